"""Waiting for the screen: settled frames, what changed, and whether the agent goes round in circles."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from ..geometry import Box
from ..screen.observation import Observation, frame_digest  # noqa: F401 - re-exported

# A pixel counts as changed when any channel moves by more than this (ignores dithering noise).
PIXEL_TOLERANCE = 8
# When a step says what its effect looks like, the first look comes this soon after the input
# (an application shows a click's effect ~12 ms after it; later looks come every interval).
FIRST_LOOK_S = 0.02


def _array(image: Image.Image) -> np.ndarray:
    return np.asarray(image if image.mode == "RGB" else image.convert("RGB"))


def changed_mask(before: Image.Image, after: Image.Image) -> np.ndarray:
    """Per pixel: does any channel differ by more than PIXEL_TOLERANCE (same-size frames)."""
    import cv2

    d = cv2.absdiff(_array(before), _array(after))
    return np.maximum(np.maximum(d[..., 0], d[..., 1]), d[..., 2]) > PIXEL_TOLERANCE


def changed_region(before: Image.Image, after: Image.Image) -> Box | None:
    """The bounding box of the pixels that differ, or None when the frames agree."""
    if before.size != after.size:
        return Box(0, 0, *after.size)
    if before.tobytes() == after.tobytes():
        return None
    import cv2

    points = cv2.findNonZero(changed_mask(before, after).view(np.uint8))
    if points is None:
        return None
    x, y, w, h = cv2.boundingRect(points)
    return Box(x, y, w, h)


def frames_equal(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and changed_region(a, b) is None


@dataclass(frozen=True)
class Settled:
    observation: Observation
    settled: bool        # False when the timeout ran out while the screen still moved
    waited: float        # seconds spent waiting


def wait_until_settled(
    observe: Callable[[], Observation],
    *,
    timeout: float = 3.0,
    interval: float = 0.05,
    first: Observation | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Settled:
    """Capture until two consecutive frames agree, at most ``timeout`` seconds."""
    start = clock()
    previous = first or observe()
    while True:
        if clock() - start >= timeout:
            return Settled(previous, False, clock() - start)
        sleep(interval)
        current = observe()
        if frames_equal(previous.image, current.image):
            return Settled(current, True, clock() - start)
        previous = current


class LoopDetector:
    """Flags the same action repeated on an unchanged screen (the classic agent failure)."""

    def __init__(self, repeats: int = 3, window: int = 12) -> None:
        self.repeats = repeats
        self._seen: deque[tuple[str, str]] = deque(maxlen=window)

    def observe(self, action_text: str, screen_digest: str) -> bool:
        """Record one step; True when it makes a loop of ``repeats`` identical (action, screen) pairs."""
        key = (action_text, screen_digest)
        self._seen.append(key)
        return sum(1 for k in self._seen if k == key) >= self.repeats

    def reset(self) -> None:
        self._seen.clear()


@dataclass(frozen=True)
class Expectation:
    """What the step being performed lets the settle rule assume (see :func:`expecting`).

    ``ready(before, frame)``: the frame already shows what the step is for (its effect is
    visible, its postcondition holds); the first such frame is returned at once, without
    waiting for two equal frames: whoever acts next polls the screen for its own target (a
    skill's next step does), so a frame still being drawn does no harm. ``changes``: the action
    is expected to change the screen; only then is the grace waited when nothing changed.
    """

    ready: Callable[[Observation, Observation], bool] | None = None
    changes: bool = True


_EXPECTED: ContextVar[Expectation | None] = ContextVar("gui_agent_settle_expectation", default=None)


def expected() -> Expectation:
    """The expectation in force (the default one outside :func:`expecting`)."""
    return _EXPECTED.get() or Expectation()


@contextmanager
def expecting(expectation: Expectation) -> Iterator[None]:
    """Settle by ``expectation`` for the actions performed inside the block (this context only)."""
    token = _EXPECTED.set(expectation)
    try:
        yield
    finally:
        _EXPECTED.reset(token)


def settle_after(observe: Callable[[], Observation], before: Observation | None, settings: Any,
                 stop: threading.Event | None = None) -> Observation:
    """A settled frame after an action; waits longer when nothing changed since ``before``.

    ``settings`` gives ``settle_interval``, ``settle_timeout`` and ``settle_change_grace``; the
    agent and the replayer share this rule. ``before`` None: no action was just performed (a
    run's first screen), so there is nothing to give time to react. Inside :func:`expecting`,
    the first frame that is ``ready`` ends the wait, and the grace is waited only when the
    action was expected to change the screen.
    """
    stop = stop or threading.Event()
    expectation = expected()
    if before is None:
        return wait_until_settled(observe, timeout=settings.settle_timeout,
                                  interval=settings.settle_interval).observation
    if expectation.ready is not None:
        stop.wait(min(FIRST_LOOK_S, settings.settle_interval))
        return _until_ready(observe, before, settings, stop, expectation)
    stop.wait(settings.settle_interval)
    obs = wait_until_settled(observe, timeout=settings.settle_timeout,
                             interval=settings.settle_interval).observation
    if expectation.changes and frames_equal(before.image, obs.image):
        # Nothing changed yet: give a slow application (a dialog opening on a busy machine)
        # longer to react, so the next step does not start on a stale screen.
        deadline = time.monotonic() + settings.settle_change_grace
        while time.monotonic() < deadline and not stop.is_set():
            stop.wait(settings.settle_interval)
            obs = observe()
            if not frames_equal(before.image, obs.image):
                return wait_until_settled(observe, timeout=settings.settle_timeout,
                                          interval=settings.settle_interval, first=obs).observation
    return obs


def _until_ready(observe: Callable[[], Observation], before: Observation, settings: Any,
                 stop: threading.Event, expectation: Expectation) -> Observation:
    """The first frame that is ready; else, once the screen settled (after the grace, when a
    change was expected), the settled frame."""
    ready = expectation.ready
    assert ready is not None
    start = time.monotonic()
    limit = settings.settle_timeout + (settings.settle_change_grace if expectation.changes else 0.0)
    previous: Observation | None = None
    while True:
        obs = observe()
        if ready(before, obs):
            return obs
        settled = previous is not None and frames_equal(previous.image, obs.image)
        waited = time.monotonic() - start
        if settled and (not expectation.changes or waited >= settings.settle_change_grace):
            return obs
        if waited >= limit or stop.is_set():
            return obs
        previous = obs
        stop.wait(settings.settle_interval)


def first_ready(observe: Callable[[], Observation], before: Observation, *, limit: float,
                interval: float, stop: threading.Event) -> Observation | None:
    """Inside :func:`expecting` with a ``ready`` test, the first frame that is ready, polled from
    now on; when none is within ``limit``, or the screen has settled unchanged for three
    intervals, the frame then. None when no ready test is in force (the caller settles as usual).
    The phases of one action (a field taking the click, the typed text showing) wait this way
    under a skill step, as :func:`settle_after` does for the whole action."""
    ready = expected().ready
    if ready is None:
        return None
    start = time.monotonic()
    stop.wait(min(FIRST_LOOK_S, interval))
    previous: Observation | None = None
    still = 0
    while True:
        obs = observe()
        if ready(before, obs):
            return obs
        still = still + 1 if previous is not None and frames_equal(previous.image, obs.image) else 0
        if still >= 3 or time.monotonic() - start >= limit or stop.is_set():
            return obs
        previous = obs
        stop.wait(interval)
