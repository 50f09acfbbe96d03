"""Typed UI elements found on a screen."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from ..geometry import Box


class ElementKind(StrEnum):
    TEXT = "text"            # a run of text (label, link text, button caption before fusion)
    BUTTON = "button"        # a bordered face, with or without a caption
    TEXT_FIELD = "field"     # an editable text box (may contain text or a placeholder)
    CHECKBOX = "checkbox"
    RADIO = "radio"
    COMBO = "combo"          # a drop-down (field with an arrow)
    TAB = "tab"
    LINK = "link"
    ICON = "icon"            # a small glyph without text (close "x", arrows, ...)
    CLOSE = "close"
    MENU = "menu"            # a menu's title (in a menu bar, or a submenu): opens the menu
    MENU_ITEM = "menu item"  # an item of an open menu


class AccessibleHandle(Protocol):
    """A live node of the platform's accessibility tree, asked again when needed (after a
    click: has the field taken the focus? after typing: what does it hold now?)."""

    def states(self) -> frozenset[str] | None:
        """Its states now ("focused", "checked", ...); None when it is gone."""
        ...

    def value(self) -> str | None:
        """Its text now (a field's content, a display's figure); None when it has none."""
        ...


@dataclass(frozen=True)
class Accessible:
    """What the accessibility tree says of an element besides its kind, box and name."""

    role: str                                 # the platform's role name ("push button", ...)
    states: frozenset[str] = frozenset()      # focused, checked, selected, expanded, enabled, ...
    value: str | None = None                  # a field's text when the tree was read
    description: str = ""
    window: str = ""                          # the title of the window it belongs to
    window_active: bool = True                # that window has the keyboard focus
    handle: AccessibleHandle | None = field(default=None, compare=False, repr=False)

    @property
    def enabled(self) -> bool:
        return "enabled" in self.states

    @property
    def focused(self) -> bool:
        return "focused" in self.states


@dataclass(frozen=True)
class Window:
    """A window the accessibility tree knows: its title, role ("frame", "dialog", ...), box in
    image pixels and whether it has the focus; a parse lists them bottom to top."""

    title: str
    role: str
    box: Box
    active: bool = False
    modal: bool = False       # while it is open, the windows under it take no input


@dataclass(frozen=True)
class Element:
    kind: ElementKind
    box: Box
    text: str = ""
    score: float = 1.0       # detector confidence 0..1
    source: str = "ocr"      # "ocr", "detector", "accessibility", ...
    checked: bool | None = None  # checkboxes / radio buttons, when it can be seen
    label: str = ""          # nearby text naming a textless widget ("Name" for a field)
    accessible: Accessible | None = None   # what the accessibility tree says (source "a11y")
    looks_like: tuple[str, ...] = ()   # a caption-less icon's names, from the glyph it resembles

    @property
    def name(self) -> str:
        """What it is called: its text, its label, or the name of the icon it looks like."""
        return self.text or self.label or (self.looks_like[0] if self.looks_like else "")

    def __str__(self) -> str:
        name = self.name
        return f"{self.kind} {name!r} at ({self.box.left},{self.box.top},{self.box.right},{self.box.bottom})"


@dataclass(frozen=True)
class ScreenParse:
    """All elements of one screen, in reading order (top to bottom, left to right)."""

    elements: tuple[Element, ...]
    width: int
    height: int
    windows: tuple[Window, ...] = ()     # the accessibility tree's windows, bottom to top


class ScreenParsing(Protocol):
    """What the rooms above need of the screen parser (:class:`~.screen_parser.ScreenParser`):
    a frame's elements, and a direct read of one box (a field's value)."""

    def parse(self, image: Any) -> ScreenParse: ...

    def read_text(self, image: Any, box: Box, inset: int = 0) -> str | None: ...
