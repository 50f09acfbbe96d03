"""Questions asked of a live tree node while a step is done: has the clicked field taken the
focus (so typing may start), what does it hold now (so typed text is read back, not guessed
from pixels)."""

from __future__ import annotations

import threading
import time

from ..parsing.elements import AccessibleHandle, Element

POLL_S = 0.02


def handle_of(element: Element | None) -> AccessibleHandle | None:
    """The live tree node behind an element, if it came from the tree."""
    info = element.accessible if element is not None else None
    return info.handle if info is not None else None


def wait_for_state(handle: AccessibleHandle, state: str, timeout: float,
                   stop: threading.Event | None = None) -> bool:
    """Until the node reports ``state`` (True), or ``timeout`` seconds passed, it is gone, or
    the run was stopped (False)."""
    deadline = time.monotonic() + timeout
    while True:
        states = handle.states()
        if states is None:
            return False
        if state in states:
            return True
        if time.monotonic() >= deadline or (stop is not None and stop.is_set()):
            return False
        time.sleep(POLL_S)


def wait_for_focus(handle: AccessibleHandle, timeout: float,
                   stop: threading.Event | None = None) -> bool:
    """Until the clicked field says it has the keyboard focus (typing may start)."""
    return wait_for_state(handle, "focused", timeout, stop)


def wait_until_enabled(handle: AccessibleHandle, timeout: float,
                       stop: threading.Event | None = None) -> bool:
    """Until the control says it is enabled (a dialog's button turns sensitive once its field
    holds text)."""
    return wait_for_state(handle, "enabled", timeout, stop)
