"""What a node of an accessibility tree is, in the element kinds the rest of gui-agent knows.

Role and state names are AT-SPI's (Linux); Windows UI Automation control types and macOS AX
roles map onto the same names when their sources are written (a UIA ``Button`` and an AX
``AXButton`` are a "push button"), so that everything above this module stays the same.
"""

from __future__ import annotations

from ..parsing.elements import ElementKind

K = ElementKind

# Roles of the windows a tree's applications show (the top of each window's subtree).
WINDOW_ROLES = frozenset({"frame", "dialog", "file chooser", "alert", "window", "color chooser",
                          "font chooser"})
# Windows a person answers before going on; a task names one by its title ('in the Save dialog').
DIALOG_ROLES = frozenset({"dialog", "file chooser", "alert", "color chooser", "font chooser"})

_KINDS: dict[str, ElementKind] = {
    "push button": K.BUTTON, "toggle button": K.BUTTON, "button": K.BUTTON,
    "push button menu": K.BUTTON,
    "check box": K.CHECKBOX, "switch": K.CHECKBOX,
    "radio button": K.RADIO,
    "entry": K.TEXT_FIELD, "password text": K.TEXT_FIELD, "spin button": K.TEXT_FIELD,
    "editbar": K.TEXT_FIELD, "terminal": K.TEXT_FIELD,
    "combo box": K.COMBO,
    "page tab": K.TAB,
    "link": K.LINK,
    "menu": K.MENU,
    "menu item": K.MENU_ITEM, "check menu item": K.MENU_ITEM, "radio menu item": K.MENU_ITEM,
    "tearoff menu item": K.MENU_ITEM,
    "label": K.TEXT, "static": K.TEXT, "heading": K.TEXT, "caption": K.TEXT,
    "paragraph": K.TEXT, "list item": K.TEXT, "table cell": K.TEXT, "tree item": K.TEXT,
    "column header": K.TEXT, "row header": K.TEXT, "table column header": K.TEXT,
    "table row header": K.TEXT, "status bar": K.TEXT, "description value": K.TEXT,
    "icon": K.ICON, "image": K.ICON,
}
# Text roles: an editable one is a field, a read-only one a display (a calculator's figure).
TEXT_ROLES = frozenset({"text", "document text", "document frame", "rich text"})
# Kinds whose state "checked" is worth keeping (a toggle button's, a selected tab's).
CHECKABLE = frozenset({K.CHECKBOX, K.RADIO, K.TAB, K.BUTTON, K.MENU_ITEM})
# Kinds named by a label beside them rather than by their own text.
LABELLED = frozenset({K.TEXT_FIELD, K.COMBO})
# The states kept on an element (the platform's names); the rest say nothing to a task.
KEPT_STATES = frozenset({"focused", "checked", "selected", "expanded", "expandable", "enabled",
                         "sensitive", "editable", "focusable", "active", "showing", "pressed",
                         "indeterminate", "multi-line", "modal"})


def kind_of(role: str, states: frozenset[str], parent: str = "") -> ElementKind | None:
    """The element kind of a node (None: a container or decoration, not an element); ``parent``
    is its parent's role (Qt shows a menu bar's menus as "menu item"s)."""
    if role in TEXT_ROLES:
        return K.TEXT_FIELD if "editable" in states else K.TEXT
    if role == "menu item" and parent == "menu bar":
        return K.MENU
    return _KINDS.get(role)


def is_checked(kind: ElementKind, role: str, states: frozenset[str]) -> bool | None:
    """Whether a check box, radio button, toggle or tab is on (None: it has no such state)."""
    if kind not in CHECKABLE:
        return None
    if kind == K.TAB:
        return "selected" in states
    if kind == K.BUTTON and role != "toggle button":
        return None
    if kind == K.MENU_ITEM and role not in ("check menu item", "radio menu item"):
        return None
    return "checked" in states or "pressed" in states
