"""A number field set by its arrows: 'set the spinner to 4' types the number, and a field that
refused the keys (many spinners do) is nudged with its up/down arrows, one click at a time, the
value read back after each, until it shows the number (at most MAX_NUDGES clicks)."""

from __future__ import annotations

from collections.abc import Callable

from ..actions import Action, Click, Done, Fail, Type
from .base import Subtask

MAX_NUDGES = 50
_DIGIT_LOOKALIKES = str.maketrans({"O": "0", "o": "0", "l": "1", "I": "1", "|": "1", "S": "5"})


def read_number(text: str | None) -> float | None:
    """A number shown on screen, tolerating OCR's letter-for-digit confusions."""
    if text is None:
        return None
    # A text caret beside the digits reads as "|", "l" or "I": drop it before the look-alikes.
    cleaned = text.strip().strip("|lI").translate(_DIGIT_LOOKALIKES)
    cleaned = cleaned.replace(" ", "").replace(",", ".")
    try:
        return float(cleaned)
    except ValueError:
        return None


def numeric_entry(subtask: Subtask) -> tuple[str, float] | None:
    """(field, wanted number) when the subtask replaces a field's text with a number."""
    if len(subtask.actions) != 1:
        return None
    action = subtask.actions[0]
    if not (isinstance(action, Type) and action.clear and isinstance(action.into, str)):
        return None
    wanted = read_number(action.text)
    return (action.into, wanted) if wanted is not None else None


def nudge(subtask: Subtask, shown_text: Callable[[str], str | None], nudges: int,
          refused: bool = False) -> Action | None:
    """The next arrow click towards the number the subtask types into a field (``shown_text``
    reads a field's text), Fail when it will not get there, None when there is nothing to do.
    ``refused``: the typing was seen to fail (the field kept its value), so a field that shows
    the number now is Done, the arrows' doing."""
    entry = numeric_entry(subtask)
    if entry is None:
        return None
    field, wanted = entry
    shown = read_number(shown_text(field))
    if shown is None:
        return None
    if shown == wanted:
        return Done() if refused else None
    if nudges >= MAX_NUDGES:
        return Fail(f"{field} shows {shown:g}, not {wanted:g}, after {nudges} arrow clicks")
    return Click("the up arrow" if shown < wanted else "the down arrow")
