"""Screen frames around input events: a ring buffer of recent frames and settled "after" frames.

A background thread grabs the monitor every ``interval`` seconds and keeps the last
``history`` seconds. The frame *before* an event is the newest one whose grab finished before
the event was heard (minus a small margin: the application may already be repainting), so it
is truly from before. The frame *after* an event is asked for when the event ends
(:meth:`FrameBuffer.request_after`) and delivered once two consecutive frames taken after it
are equal (the screen settled), or after ``settle_timeout`` seconds at the latest.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from PIL import Image

from ..screen.observation import MonitorGeometry, Observation

log = logging.getLogger(__name__)

BEFORE_MARGIN_S = 0.02   # a frame must have been grabbed this long before the event
AFTER_DELAY_S = 0.05     # frames this soon after an event do not count as "after" yet


@dataclass(eq=False)
class Frame:
    image: Image.Image
    start: float           # time.time() when the grab began
    end: float             # ... and when it returned
    digest: str
    geometry: MonitorGeometry
    name: str | None = None  # file name once saved


@dataclass(eq=False)
class FrameRequest:
    """An "after" frame for an event that ended at ``time``; ``frame`` is set once settled."""

    time: float
    deadline: float
    frame: Frame | None = None
    settled: bool = False
    done: threading.Event = field(default_factory=threading.Event)

    def wait(self, timeout: float | None = None) -> Frame | None:
        self.done.wait(timeout)
        return self.frame


def _digest(image: Image.Image) -> str:
    return hashlib.blake2b(image.tobytes(), digest_size=12).hexdigest()


class FrameBuffer:
    """Keeps recent frames of one monitor; ``grab`` returns an Observation (tests pass their own)."""

    def __init__(self, grab: Callable[[], Observation], *, interval: float = 0.1,
                 history: float = 1.2, settle_timeout: float = 2.0) -> None:
        self.grab = grab
        self.interval = interval
        self.settle_timeout = settle_timeout
        self._frames: deque[Frame] = deque(maxlen=max(3, int(history / interval) + 2))
        self._requests: list[FrameRequest] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None
        self.grabs = 0

    # -- capture ---------------------------------------------------------------------
    def capture(self) -> Frame:
        """Grab one frame now, add it to the buffer and serve waiting requests."""
        start = time.time()
        observation = self.grab()
        end = time.time()
        frame = Frame(observation.image, start, end, _digest(observation.image), observation.monitor)
        with self._lock:
            previous = self._frames[-1] if self._frames else None
            self._frames.append(frame)
            self.grabs += 1
            self._serve(previous, frame)
        return frame

    def _serve(self, previous: Frame | None, frame: Frame) -> None:
        waiting: list[FrameRequest] = []
        for request in self._requests:
            after = request.time + AFTER_DELAY_S
            if (previous is not None and previous.start >= after
                    and previous.digest == frame.digest):
                request.frame, request.settled = frame, True
            elif frame.start >= request.deadline:
                request.frame = frame
            else:
                waiting.append(request)
                continue
            request.done.set()
        self._requests = waiting

    def _run(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            try:
                self.capture()
            except Exception as exc:  # the display went away: stop, the recorder reports it
                log.warning("screen capture failed while recording: %s", exc)
                self.error = exc
                self._release_all()
                return
            next_at += self.interval
            delay = next_at - time.monotonic()
            if delay < 0:          # fell behind (busy machine): do not try to catch up
                next_at, delay = time.monotonic(), 0.0
            self._stop.wait(delay)
        self._release_all()

    def _release_all(self) -> None:
        with self._lock:
            requests, self._requests = self._requests, []
            last = self._frames[-1] if self._frames else None
        for request in requests:
            request.frame = request.frame or last
            request.done.set()

    def start(self) -> Frame:
        """Take the first frame (so that every event has a "before") and start the thread."""
        first = self.capture()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True, name="recorder-frames")
        self._thread.start()
        return first

    def stop(self, drain: bool = True) -> None:
        """Stop grabbing; with ``drain``, first let pending "after" requests settle (bounded)."""
        if drain:
            deadline = time.monotonic() + self.settle_timeout + 0.5
            while time.monotonic() < deadline and self.pending() and self.running:
                time.sleep(self.interval / 2)
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)
        self._release_all()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def pending(self) -> int:
        with self._lock:
            return len(self._requests)

    # -- queries ---------------------------------------------------------------------
    def before(self, at: float) -> Frame | None:
        """The newest frame whose grab ended before ``at`` (minus the margin); else the oldest."""
        with self._lock:
            frames = list(self._frames)
        for frame in reversed(frames):
            if frame.end <= at - BEFORE_MARGIN_S:
                return frame
        return frames[0] if frames else None

    def request_after(self, at: float) -> FrameRequest:
        request = FrameRequest(at, at + self.settle_timeout)
        with self._lock:
            self._requests.append(request)
        if not self.running:
            self._release_all()
        return request

    def latest(self) -> Frame | None:
        with self._lock:
            return self._frames[-1] if self._frames else None
