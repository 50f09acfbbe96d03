"""Typed UI elements found on a screen."""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class Element:
    kind: ElementKind
    box: Box
    text: str = ""
    score: float = 1.0       # detector confidence 0..1
    source: str = "ocr"      # "ocr", "detector", "accessibility", ...
    checked: bool | None = None  # checkboxes / radio buttons, when it can be seen
    label: str = ""          # nearby text naming a textless widget ("Name" for a field)

    def __str__(self) -> str:
        name = self.text or self.label
        return f"{self.kind} {name!r} at ({self.box.left},{self.box.top},{self.box.right},{self.box.bottom})"


@dataclass(frozen=True)
class ScreenParse:
    """All elements of one screen, in reading order (top to bottom, left to right)."""

    elements: tuple[Element, ...]
    width: int
    height: int


class ScreenParsing(Protocol):
    """What the rooms above need of the screen parser (:class:`~.screen_parser.ScreenParser`):
    a frame's elements, and a direct read of one box (a field's value)."""

    def parse(self, image: Any) -> ScreenParse: ...

    def read_text(self, image: Any, box: Box, inset: int = 0) -> str | None: ...
