"""Setting a slider to a number with its keys, reading the number it shows after each.

'select 37 with the slider' and 'set the volume slider to 50' are planned as typing the number
into the slider (as for a spinner); the worker never types into a slider: it clicks its thumb
to focus it, then presses Page Up/Down while the value is far off and the arrow keys near it,
reading the value beside the slider after every key, until it shows the number (web, Qt and
GTK sliders all take these keys). A slider whose value cannot be read, or that does not get
there in MAX_SLIDER_KEYS keys, fails the step and says so.

Several sliders set at once ('set the sliders to 3, 7 and 12', 'to the combination [3, 7,
12]', 'set both sliders to 5 and 9') are planned one slider at a time in reading order: 'the
1st slider' to 3, 'the 2nd slider' to 7, ... (the grounding picks each: slider_choice.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Protocol

from ..actions import Action, Click, Fail, Hotkey, Type, Wait
from ..geometry import Box
from ..grounding.description import ordinal_word
from . import vocabulary as vocab
from .base import Subtask
from .clauses import Clause, render
from .phrases import Tokens, fail, is_number, lower_word, number

MAX_SLIDER_KEYS = 24
PAGE_DISTANCE = 8        # values: farther than this, a page key first
MAX_MISSES = 2           # looks again (after half a second) when no slider is seen


class SliderView(Protocol):
    """What the worker needs of a slider on the screen (parsing.sliders.Slider)."""

    thumb: Box
    horizontal: bool
    value: float | None


def slider_target(subtask: Subtask) -> tuple[str, float] | None:
    """(the slider's description, the wanted number) when the subtask sets a slider."""
    if len(subtask.actions) != 1 or not isinstance(subtask.actions[0], Type):
        return None
    typed = subtask.actions[0]
    if not isinstance(typed.into, str) or typed.read_from is not None:
        return None
    words = set(typed.into.lower().replace("-", " ").split())
    if not words & {w for w in vocab.DRAG_WIDGETS if " " not in w}:
        return None
    try:
        return typed.into, float(typed.text.replace("\u2212", "-"))
    except ValueError:
        return None


def one_slider_each(subtask: Subtask) -> list[Subtask]:
    """A subtask that sets several sliders, as one subtask per slider (the worker sets one
    slider per subtask, reading its value); any other subtask as it is."""
    if len(subtask.actions) < 2 or not all(slider_target(Subtask("", (a,))) for a in subtask.actions):
        return [subtask]
    return [replace(subtask, instruction=f"set {a.into} to {a.text}", actions=(a,))   # type: ignore[union-attr]
            for a in subtask.actions]


# words that may stand before a list of values: 'to the combination [3, 7, 12]'
_LIST_NOUNS = frozenset({"combination", "values", "numbers", "positions", "settings", "sequence", "list"})
_LIST_MARKS = "[](){}"


def several_sliders(clause: Clause, target: Tokens, value: Tokens) -> list[Action] | None:
    """'the sliders' + '3, 7 and 12' -> the 1st slider to 3, the 2nd to 7, the 3rd to 12; None
    when the target is not several sliders. A count that the values do not match is refused."""
    low = [lower_word(t) for t in target if lower_word(t) not in ("the", "of", "all")]
    plural = [w for w in vocab.DRAG_WIDGETS if " " not in w and low and low[-1] == f"{w}s"]
    if not plural:
        return None
    values = _values(clause, value)
    if values is None:
        raise fail(clause, f"set several {plural[0]}s to numbers, one for each, in order: "
                           f"'set the {plural[0]}s to 3, 7 and 12'; not {render(value, clause)!r}")
    count = 2 if low[0] == "both" else number(low[:1]) if len(low) >= 2 else None
    if count is not None and count != len(values):
        raise fail(clause, f"{render(target, clause)!r} but {len(values)} values")
    return [Type(v, into=f"the {ordinal_word(k)} {plural[0]}", clear=True) for k, v in enumerate(values, 1)]


def _values(clause: Clause, toks: Tokens) -> list[str] | None:
    """'the combination [3, 7, 12]' / '3, 7 and 12 respectively' -> ['3', '7', '12']; None when
    these are not two or more numbers."""
    words = [lower_word(t) for t in toks]
    while words and words[0] in _LIST_NOUNS | {"the", "a", "this", "these", "following", "of"}:
        words = words[1:]
    if words and words[-1] == "respectively":
        words = words[:-1]
    text = " ".join(words).translate({ord(c): " " for c in _LIST_MARKS})
    parts = [p.strip() for p in re.split(r",|;|\band\b|\s+", text) if p.strip()]
    if len(parts) < 2 or not all(is_number(p) for p in parts):
        return None
    return [p.replace("\u2212", "-") for p in parts]


@dataclass
class SliderRun:
    """One attempt at a slider: keys pressed, whether paging overshot."""

    keys: int = 0
    misses: int = 0
    focused: bool = False
    last: float | None = None
    paging: bool = True
    pressed: list[str] = field(default_factory=list)

    def next(self, slider: SliderView | None, wanted: float, what: str) -> Action | None:
        """The next key or click towards ``wanted``; None once the slider shows it."""
        if slider is None:
            self.misses += 1            # a page still drawing, a thumb caught mid-change
            if self.misses <= MAX_MISSES:
                return Wait(0.5)
            return Fail(f"could not find {what} on the screen (a thumb on a track)")
        if not self.focused:
            self.focused = True
            return Click(slider.thumb)
        value = slider.value
        if value is None:
            return Fail(f"could not read the value {what} shows")
        if value == wanted:
            return None
        if self.keys >= MAX_SLIDER_KEYS:
            return Fail(f"{what} shows {value:g}, not {wanted:g}, after {self.keys} keys")
        if self.last is not None and self.pressed and self.pressed[-1].startswith("page") and \
                (self.last - wanted) * (value - wanted) < 0:
            self.paging = False           # a page went past the number: arrows from here
        self.last = value
        up = value < wanted
        if self.paging and abs(wanted - value) > PAGE_DISTANCE:
            key = "pageup" if up else "pagedown"
        elif slider.horizontal:
            key = "right" if up else "left"
        else:
            key = "up" if up else "down"
        self.keys += 1
        self.pressed.append(key)
        return Hotkey((key,))
