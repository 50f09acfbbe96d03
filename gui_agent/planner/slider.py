"""Setting a slider to a number with its keys, reading the number it shows after each.

'select 37 with the slider' and 'set the volume slider to 50' are planned as typing the number
into the slider (as for a spinner); the worker never types into a slider: it clicks its thumb
to focus it, then presses Page Up/Down while the value is far off and the arrow keys near it,
reading the value beside the slider after every key, until it shows the number (web, Qt and
GTK sliders all take these keys). A slider whose value cannot be read, or that does not get
there in MAX_SLIDER_KEYS keys, fails the step and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from ..actions import Action, Click, Fail, Hotkey, Type, Wait
from ..geometry import Box
from . import vocabulary as vocab
from .base import Subtask

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
