"""Waiting on the screen: settle after an action, poll for a condition, pre/postconditions.

The settle rule itself (shared with the agent) is :func:`gui_agent.verify.settle_after`.
:class:`Waiter` is a stop/pause-aware bounded poll: a pause stretches the
deadline instead of eating it.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import AmbiguousTarget, GroundingError
from ..geometry import Box
from ..grounding.matching import ocr_fold
from ..screen.observation import Observation
from ..verify import frames_equal

Observe = Callable[[], Observation]


class Waiter:
    """Bounded polling that honours a stop event (ends the wait) and a pause event (set = paused)."""

    def __init__(self, stop: threading.Event, pause: threading.Event) -> None:
        self.stop = stop
        self.pause = pause

    def hold_while_paused(self) -> float:
        """Block while paused (until resumed or stopped); the seconds spent paused."""
        start = time.monotonic()
        while self.pause.is_set() and not self.stop.is_set():
            self.stop.wait(0.05)
        return time.monotonic() - start

    def poll(self, check: Callable[[Observation], bool], first: Observation, observe: Observe,
             timeout: float, interval: float, live: bool = True) -> tuple[bool, Observation]:
        """Call ``check`` on ``first`` and on each new frame until it holds or ``timeout`` passes.

        A frame identical to the last one checked is not checked again (the answer would not
        change, and a check may be an OCR parse). Returns (held, last observation).
        """
        obs, checked = first, None
        deadline = time.monotonic() + timeout
        while True:
            if checked is None or not frames_equal(checked.image, obs.image):
                if check(obs):
                    return True, obs
                checked = obs
            if not live or self.stop.is_set() or time.monotonic() >= deadline:
                return False, obs
            self.stop.wait(interval)
            deadline += self.hold_while_paused()
            if self.stop.is_set():
                return False, obs
            obs = observe()


def words_of(text: str) -> list[str]:
    """The words of ``text`` that OCR reads reliably (letters and digits, two or more)."""
    return [w for w in re.findall(r"[^\W_]+", text.casefold()) if len(w) >= 2]


def reads_as(text: str, read: str) -> bool:
    """Whether an OCR ``read`` of a small region holds ``text``: letters and digits only, the
    spaces between words ignored (a tight crop reads "Log in" as "Login") and the glyphs OCR
    confuses folded together ("l"/"I", "0"/"O")."""
    wanted = ocr_fold(" ".join(words_of(text)))
    return bool(wanted) and wanted in ocr_fold(read)


def text_visible(resolve: Callable[[str, Observation], Any], text: str, obs: Observation,
                 elements: Callable[[Observation], Sequence[Any] | None] | None = None) -> bool:
    """Whether ``text`` is on the screen (found once or more) by the OCR ladder's ``resolve``.

    With ``elements`` (the screen's parsed elements), a text that OCR cuts into lines otherwise
    than when it was recorded ("Red Green" then, "Red" and "Green" now, or the other way round)
    is visible when each of its words is.
    """
    try:
        resolve(f'"{text}"', obs)
    except AmbiguousTarget:
        return True   # shown more than once is still shown
    except GroundingError:
        wanted = words_of(text)
        shown = elements(obs) if elements is not None and wanted else None
        if not shown:
            return False
        seen = {w for e in shown for w in words_of(f"{e.text or ''} {getattr(e, 'label', '') or ''}")}
        return all(w in seen for w in wanted)
    return True


def shifted(corners: tuple[int, int, int, int], shift: tuple[int, int]) -> Box:
    """A learned (l, t, r, b) box moved by ``shift``."""
    left, top, right, bottom = corners
    return Box.from_corners(left + shift[0], top + shift[1], right + shift[0], bottom + shift[1])


def region_changed(before: Observation, after: Observation, region: Box) -> bool:
    """Whether the pixels inside ``region`` differ between the two frames (clipped to them)."""
    if before.image.size != after.image.size:
        return True
    box = region.clip(*after.image.size)
    if box.width == 0 or box.height == 0:
        return False
    corners = box.corners
    return not frames_equal(before.image.crop(corners), after.image.crop(corners))
