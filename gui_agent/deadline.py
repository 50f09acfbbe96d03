"""One overall time limit per run, shared by the run and every model call it makes.

The agent arms a :class:`Deadline` when a run starts; backends bound their network reads,
retries and generation by :meth:`Deadline.remaining`, so no single model call can outlive the
run's ``--max-seconds``. A deadline with no limit never expires.
"""

from __future__ import annotations

import math
import time

from .errors import DeadlineExceeded


class Deadline:
    """A monotonic-clock deadline; ``Deadline(30)`` expires 30 s from now, ``Deadline()`` never."""

    def __init__(self, seconds: float | None = None) -> None:
        self._seconds: float | None = None
        self._end: float | None = None
        self.arm(seconds)

    def arm(self, seconds: float | None) -> None:
        """Start counting ``seconds`` from now (None: no limit)."""
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int | float)
                                    or math.isnan(seconds)):
            raise ValueError(f"a deadline needs a number of seconds or None, not {seconds!r}")
        if seconds is not None and math.isinf(seconds) and seconds > 0:
            seconds = None
        self._seconds = None if seconds is None else max(0.0, float(seconds))
        self._end = None if self._seconds is None else time.monotonic() + self._seconds

    @property
    def seconds(self) -> float | None:
        """The limit this deadline was armed with (None: no limit)."""
        return self._seconds

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None when there is no limit."""
        if self._end is None:
            return None
        return max(0.0, self._end - time.monotonic())

    def expired(self) -> bool:
        return self._end is not None and time.monotonic() >= self._end

    def check(self, what: str) -> None:
        """Raise :class:`DeadlineExceeded` naming ``what`` was cut short, once time is up."""
        if self.expired():
            raise self.exceeded(what)

    def exceeded(self, what: str) -> DeadlineExceeded:
        """The error for ``what`` running out of the run's time (raised by the caller)."""
        return DeadlineExceeded(
            f"{what}: the run's time limit of {self._seconds or 0:g} s is used up; "
            "raise it with --max-seconds"
        )

    def __repr__(self) -> str:
        left = self.remaining()
        return "Deadline(no limit)" if left is None else f"Deadline({left:.1f} s left)"
