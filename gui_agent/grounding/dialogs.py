"""A dialog on the screen, seen from its pixels: a framed panel holding a message and a row of
buttons under it, and nothing to fill in (a form in a group box is no dialog). The planner
asks for it when a step fails, to tell a modal that covers the form from a target that is
simply not there (:meth:`.queries.ScreenQueries.dialog`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..geometry import Box
from ..parsing.elements import ElementKind, ScreenParse
from .spatial import find_panels

K = ElementKind
MAX_BUTTONS = 3
_INPUTS = (K.TEXT_FIELD, K.CHECKBOX, K.RADIO, K.COMBO)
_MIN_SHARE, _MAX_SHARE = 0.03, 0.9      # of the screen's area


@dataclass(frozen=True)
class Dialog:
    """A dialog's box, its message lines (top to bottom) and its buttons' captions (left to
    right)."""

    box: Box
    message: tuple[str, ...]
    buttons: tuple[str, ...]


def covering_dialog(parse: ScreenParse, image: Any) -> Dialog | None:
    """The smallest framed panel that reads as a dialog, or None."""
    screen = parse.width * parse.height
    found: list[Dialog] = []
    for panel in find_panels(image):
        if not _MIN_SHARE * screen <= panel.area <= _MAX_SHARE * screen:
            continue
        inside = [e for e in parse.elements if panel.contains(e.box.center)]
        buttons = sorted((e for e in inside if e.kind == K.BUTTON and e.text), key=lambda e: e.box.left)
        lines = sorted((e for e in inside if e.kind == K.TEXT and e.text), key=lambda e: e.box.top)
        if not 1 <= len(buttons) <= MAX_BUTTONS or not lines or any(e.kind in _INPUTS for e in inside):
            continue
        if min(b.box.top for b in buttons) < max(t.box.bottom for t in lines) - 2:
            continue      # a dialog's buttons lie under its message
        found.append(Dialog(panel, tuple(t.text for t in lines), tuple(b.text for b in buttons)))
    return min(found, key=lambda d: d.box.area, default=None)
