"""Ctrl+C (SIGINT) and SIGTERM as a flag as well as a KeyboardInterrupt.

The exception alone can be lost: it is raised wherever the main thread happens to be, and a
library may take it there (Ray defers SIGINT around its own calls and re-raises it inside
them). A long-running command also checks the flag at each turn of its loop. The handler only
assigns an attribute: it takes no lock, so it cannot deadlock with the code it interrupts.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class StopFlag:
    """Set once a stop signal arrived; checked by the command's loop."""

    def __init__(self) -> None:
        self.signal: int | None = None

    def is_set(self) -> bool:
        return self.signal is not None

    def raise_if_set(self) -> None:
        if self.signal is not None:
            raise KeyboardInterrupt


@contextmanager
def stop_signals(signals: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM)) -> Iterator[StopFlag]:
    """While inside, each of ``signals`` sets the flag and raises KeyboardInterrupt (in the main
    thread only: elsewhere the flag stays unset and the handlers are not touched)."""
    flag = StopFlag()

    def handler(signum: int, frame: object) -> None:
        flag.signal = signum
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        yield flag
        return
    previous = {sig: signal.signal(sig, handler) for sig in signals}
    try:
        yield flag
    finally:
        for sig, was in previous.items():
            signal.signal(sig, was)
