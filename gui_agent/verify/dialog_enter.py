"""Did a dialog take the Enter pressed in one of its fields?

An Enter typed into a dialog's field is meant for the dialog's default button: it closes the
dialog, or another window takes the focus (a confirmation, the next dialog). When instead the
same dialog keeps the focus, its field still holds what was typed and everything that changed
lies inside the dialog, the Enter went to something of the dialog's own: a completion list
still open under the field, or the folder its file list had selected while a path was typed
(Qt's file dialog then opens that folder instead of saving). The screen changed, but the
dialog did not take the Enter; reporting that as done would be a success nobody saw.

A dialog that rightly stays open after Enter (a find dialog) changes what lies behind it (the
match it selected), so it is not taken for one that ignored the Enter.
"""

from __future__ import annotations

from ..geometry import Box, Point
from ..grounding.candidate import Candidate
from ..screen.observation import ActiveWindow, Observation
from .effect import TextReader, holds_text

MARGIN_PX = 4     # a change this close outside the dialog's box still counts as inside it


def dialog_kept_open(before: Observation, after: Observation, change: Box | None) -> ActiveWindow | None:
    """The dialog that had the focus ``before`` an Enter when it still has it ``after`` and the
    screen ``change`` (image pixels) lies inside it; None otherwise (not a dialog, it closed,
    another window has the focus, nothing changed, or something outside it changed)."""
    window, now = before.window, after.window
    if window is None or not window.dialog or window.box is None or change is None:
        return None
    if now is None or now.id != window.id:
        return None
    inside = before.box_to_image(window.box).expand(MARGIN_PX)
    if not (inside.contains(Point(change.left, change.top))
            and inside.contains(Point(change.right - 1, change.bottom - 1))):
        return None
    return window


def field_holds(typed: str, field: Candidate | None, after: Observation,
                reader: TextReader | None) -> bool:
    """Whether the field still holds ``typed`` after the Enter: its accessible value where the
    tree has it, else what the screen shows in its box."""
    if field is None or not typed.strip():
        return False
    info = field.element.accessible if field.element is not None else None
    value = info.handle.value() if info is not None and info.handle is not None else None
    if value is not None:
        return " ".join(typed.split()) in " ".join(value.split())
    if reader is None or field.box.height < 8:
        return False
    shown = reader.read_text(after.image, field.box.clip(*after.size))
    return bool(shown) and holds_text(typed, shown)
