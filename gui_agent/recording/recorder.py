"""The recorder: listeners + frames + coalescing + secrets -> a demonstration folder.

Threads: pynput's two listener threads stamp each raw event (time, injected or not, the frame
before it, a request for the frame after it, the window) and queue it; a pump thread coalesces
the queue into events; a writer thread waits for each event's settled "after" frame, decides
whether typed text is a secret, saves the frames and appends the event to ``events.jsonl``.
The writer holds the newest event back until the next one comes, so that a Ctrl+C typed into
the recorder's own terminal can be dropped instead of recorded.

An on-screen Stop button (the app's recording indicator) stops the recording at the press on
it *as the listener hears it* (:meth:`Recorder.stop_at_press`), not at the moment the button's
toolkit saw it: the listener hears input in the order the display server had it, but later
when the machine is loaded, and input made just before Stop must not be lost.
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import GuiAgentError
from ..geometry import Box, Point
from .coalesce import Coalescer
from .demo_folder import DemoMeta, Demonstration, DemoParameter, DemoWriter, load_demo
from .events import DemoEvent, RawEvent
from .frames import Frame, FrameBuffer, FrameRequest
from .listener import InputListener
from .secrets import SecretDetector
from .targets import image_point, param_slug, unique_name
from .windows import WindowProbe

log = logging.getLogger(__name__)

STOP_HOTKEY, INTERRUPTED, TIME_LIMIT, STOPPED = "stop hotkey", "interrupted (Ctrl+C)", "time limit", "stopped"
STOP_PRESS_WAIT = 1.0       # seconds a stop waits for the listener to hear the press on Stop


@dataclass(frozen=True)
class _PendingStop:
    """A stop asked for at ``asked``, waiting for the listener to hear a press in ``boxes``."""

    reason: str
    boxes: tuple[Box, ...]
    asked: float
    deadline: float


def _pressed_in(raw: RawEvent, boxes: Sequence[Box]) -> bool:
    return any(b.contains(Point(raw.x, raw.y)) for b in boxes)


class Recorder:
    """Records one demonstration into ``folder`` (created; it must not hold files yet).

    ``record()`` does it all in the calling thread (Ctrl+C ends it); or ``start()``, then
    ``stop()`` / the stop hotkey / ``max_seconds``, then ``finish()``. Input heard after
    ``stop()`` is not recorded: a program driving input just before it should give the
    listener ~0.2 s to hear it (or press the stop hotkey, which is ordered with the input).
    """

    def __init__(self, folder: Path | str, name: str, *, stop_hotkey: str | None = None,
                 secret_fields: Sequence[str] = (), secret_hotkey: str | None = None,
                 monitor: int = 1, parser: Any = None, detect_secrets: bool = True,
                 frame_interval: float = 0.1, settle_timeout: float = 2.0,
                 max_seconds: float | None = None, grab: Callable[[], Any] | None = None) -> None:
        from ..control.stop_hotkey import DEFAULT_STOP_HOTKEY

        self.folder = Path(folder)
        self.name = name
        self.stop_hotkey = stop_hotkey or DEFAULT_STOP_HOTKEY
        self.monitor = monitor
        self.max_seconds = max_seconds
        self.detect_secrets = detect_secrets
        self.coalescer = Coalescer(stop_hotkey=self.stop_hotkey, secret_hotkey=secret_hotkey)
        self.detector = SecretDetector(parser, secret_fields)
        self._capture: Any = None
        if grab is None:
            from ..screen.capture import ScreenCapture

            self._capture = ScreenCapture(window_info=False)
            grab = lambda: self._capture.capture(monitor)  # noqa: E731
        self.frames = FrameBuffer(grab, interval=frame_interval, settle_timeout=settle_timeout)
        self.listener = InputListener(self._on_raw)
        self.windows = WindowProbe()
        self.stop_reason: str | None = None
        self.stopped = threading.Event()
        self._raw: queue.Queue[RawEvent | None] = queue.Queue()
        self._out: queue.Queue[DemoEvent | None] = queue.Queue()
        self._writer: DemoWriter | None = None
        self._threads: list[threading.Thread] = []
        self._meta: DemoMeta | None = None
        self._started = 0.0
        self._count = 0
        self._params: list[DemoParameter] = []
        self._taken: set[str] = set()
        self._last_written: DemoEvent | None = None
        self._last_before: Frame | None = None
        self._stopped_at = float("inf")
        self._stop_lock = threading.Lock()
        self._presses: deque[RawEvent] = deque(maxlen=8)
        self._pending: _PendingStop | None = None
        self._held: list[RawEvent] = []
        self._finished = False
        self.errors: list[str] = []

    # -- listener thread -------------------------------------------------------------
    def _on_raw(self, raw: RawEvent) -> None:
        if raw.kind == "press" and not raw.injected:
            with self._stop_lock:
                self._presses.append(raw)
                pending = self._pending
                if pending is not None and _pressed_in(raw, pending.boxes):
                    self._stop_locked(pending.reason, raw.time - 1e-6)
        if raw.injected or raw.kind == "move" or raw.time > self._stopped_at:
            self._raw.put(raw)
            return
        fields: dict[str, Any] = {}
        if raw.kind in ("press", "key_down", "scroll"):
            fields["before"] = self.frames.before(raw.time)
            fields["window"] = self.windows.info(pointer=raw.kind != "key_down")
        if raw.kind in ("release", "key_up", "scroll"):
            fields["after"] = self.frames.request_after(raw.time)
        self._raw.put(replace(raw, **fields))

    # -- pump thread -----------------------------------------------------------------
    def _pump(self) -> None:
        while True:
            events: list[DemoEvent] = []
            try:
                raw = self._raw.get(timeout=0.05)
            except queue.Empty:
                pass
            else:
                if raw is None:
                    break
                pending = self._pending
                if pending is not None and raw.time > pending.asked:
                    self._held.append(raw)          # fed once the stop's moment is known
                elif raw.time <= self._stopped_at:
                    events = self.coalescer.feed(raw)
            self._settle_pending(time.time())
            events += self._release_held()
            events += self.coalescer.due(time.time())
            for event in events:
                self._out.put(event)
            if self.coalescer.stopped:
                self.stop(STOP_HOTKEY)
            elif self.max_seconds is not None and time.time() - self._started >= self.max_seconds:
                self.stop(TIME_LIMIT)
            elif self.frames.error is not None and not self.stopped.is_set():
                self.errors.append(f"screen capture failed: {self.frames.error}")
                self.stop(f"screen capture failed: {self.frames.error}")
        for event in self._release_held() + self.coalescer.flush():
            self._out.put(event)
        self._out.put(None)

    def _release_held(self) -> list[DemoEvent]:
        """Input held while a stop waited for its press, once the stop's moment is known."""
        events: list[DemoEvent] = []
        if self._held and self._pending is None:
            for raw in self._held:
                if raw.time <= self._stopped_at:
                    events += self.coalescer.feed(raw)
            self._held.clear()
        return events

    # -- writer thread ---------------------------------------------------------------
    def _write_loop(self) -> None:
        held: DemoEvent | None = None
        while True:
            event = self._out.get()
            if event is None:
                break
            if held is not None:
                self._write(held)
            held = event
        if held is not None and not self._is_interrupt_keys(held):
            self._write(held)

    def _is_interrupt_keys(self, event: DemoEvent) -> bool:
        return (self.stop_reason == INTERRUPTED and event.kind == "hotkey"
                and event.keys == ("ctrl", "c"))

    def _write(self, event: DemoEvent) -> None:
        try:
            self._write_event(event)
        except Exception as exc:  # keep recording; the error is reported at the end
            log.exception("could not save event %s", event.describe())
            self.errors.append(f"event {event.describe()}: {exc}")

    def _write_event(self, event: DemoEvent) -> None:
        assert self._writer is not None and self._meta is not None
        after = event.after
        if isinstance(after, FrameRequest):
            after = after.wait(self.frames.settle_timeout + 1.0)
        before: Frame | None = event.before
        self._count += 1
        index = self._count
        if event.kind == "type":
            event = self._typed(replace(event, index=index), before, after)
        names = [self._save(frame, f"{index:04d}-{which}.png")
                 for frame, which in ((before, "before"), (after, "after"))]
        event = replace(event, index=index, time=event.time - self._started,
                        end=event.end - self._started, before=names[0], after=names[1])
        self._writer.append(event)
        self._last_written, self._last_before = event, before
        log.info("recorded %d: %s", index, event.describe())

    def _save(self, frame: Frame | None, name: str) -> str | None:
        if frame is None:
            return None
        if frame.name is None:
            assert self._writer is not None
            frame.name = self._writer.save_frame(frame.image, name)
        return frame.name

    def _typed(self, event: DemoEvent, before: Frame | None, after: Frame | None) -> DemoEvent:
        """Name the text's parameter from the field's label; make it a secret when it is one."""
        click = self._last_written if self._last_written and self._last_written.kind == "click" else None
        label, secret, why = None, event.secret is not None, "marked with the secret hotkey"
        if self.detect_secrets or self.detector.marked:
            click_frame = self._last_before.image if click and self._last_before else None
            point = image_point(click.point, self._meta.screen) if click and click.point else None
            guess = self.detector.judge(event.text or "", click_frame=click_frame,
                                        click_point=point,
                                        before=before.image if before else None,
                                        after=after.image if after else None)
            label = guess.label
            if guess.secret and not secret:
                secret, why = True, guess.why
        name = unique_name(param_slug(label, "password" if secret else "text"), self._taken)
        self._params.append(DemoParameter(name, event.index, label, secret))
        if not secret:
            return event
        log.warning("typed text stored as secret parameter %r (%s)", name, why)
        return replace(event, text=None, secret=name)

    # -- life cycle ------------------------------------------------------------------
    def start(self) -> None:
        """Start capturing and listening; returns once input is being heard."""
        self._writer = DemoWriter(self.folder)
        first = self.frames.start()
        self._started = time.time()
        g = first.geometry
        screen = {"monitor": g.index, "left": g.left, "top": g.top, "width": g.width,
                  "height": g.height, "scale": g.scale, "pixels": list(first.image.size)}
        window = self.windows.info(pointer=True)
        self._meta = DemoMeta(
            self.name, datetime.fromtimestamp(self._started, UTC).isoformat(timespec="seconds"),
            self._started, screen,
            {"title": window.title, "box": list(window.box) if window.box else None} if window else None,
            stop_reason="recording", stop_hotkey=self.stop_hotkey, platform=sys.platform)
        self._writer.write_meta(self._meta)
        for target, name in ((self._pump, "recorder-pump"), (self._write_loop, "recorder-writer")):
            thread = threading.Thread(target=target, daemon=True, name=name)
            thread.start()
            self._threads.append(thread)
        try:
            self.listener.start()
        except GuiAgentError:
            self.stop("could not listen")
            self._shutdown()
            raise

    def stop(self, reason: str = STOPPED) -> None:
        """Stop now: input heard from here on is not recorded."""
        with self._stop_lock:
            self._stop_locked(reason, time.time())

    def stop_at_press(self, reason: str, boxes: Sequence[Box], timeout: float = STOP_PRESS_WAIT) -> None:
        """Stop at the person's press inside ``boxes`` (an on-screen Stop button, in screen
        pixels) as the listener hears it, so that input made before that press is kept however
        late the listener hears it. A press heard up to ``timeout`` s before this call counts;
        with none heard within ``timeout`` s after it, stop as :meth:`stop` would have now."""
        now = time.time()
        with self._stop_lock:
            if self.stopped.is_set():
                return
            self._pending = _PendingStop(reason, tuple(boxes), now, now + timeout)
            heard = [p for p in self._presses if p.time >= now - timeout and _pressed_in(p, boxes)]
            if heard:
                self._stop_locked(reason, heard[-1].time - 1e-6)

    def _settle_pending(self, now: float) -> None:
        with self._stop_lock:
            pending = self._pending
            if pending is not None and now >= pending.deadline:
                log.debug("no press on Stop heard within %.1f s; stopped where it was asked", now - pending.asked)
                self._stop_locked(pending.reason, pending.asked)

    def _stop_locked(self, reason: str, at: float) -> None:
        self._pending = None
        if not self.stopped.is_set():
            self.stop_reason = reason
            self._stopped_at = at
            self.stopped.set()

    def wait(self, timeout: float | None = None) -> bool:
        """True once the recording was stopped (hotkey, stop(), time limit)."""
        return self.stopped.wait(timeout)

    def finish(self) -> Demonstration:
        """Stop listening, save what is pending, write meta.json; the loaded demonstration."""
        self._shutdown()
        if self._count == 0:
            from ..errors import ConfigError

            raise ConfigError(f"nothing was recorded ({self.stop_reason}); the empty demonstration "
                              f"is in {self.folder}")
        return load_demo(self.folder)

    def _shutdown(self) -> None:
        if self._finished:
            return
        self._finished = True
        self.stop()
        self.listener.stop()
        self._raw.put(None)
        for thread in self._threads[:1]:
            thread.join(10.0)
        self.frames.stop(drain=True)
        for thread in self._threads[1:]:
            thread.join(30.0)
        self.windows.close()
        if self._capture is not None:
            self._capture.close()
        assert self._writer is not None and self._meta is not None
        self._writer.close()
        self._meta = replace(self._meta, stop_reason=self.stop_reason or STOPPED,
                             duration=time.time() - self._started, events=self._count,
                             parameters=tuple(self._params))
        self._writer.write_meta(self._meta)

    def record(self, on_ready: Callable[[], None] | None = None) -> Demonstration:
        """Record until the stop hotkey, Ctrl+C or the time limit; then finish."""
        self.start()
        if on_ready is not None:
            on_ready()
        try:
            while not self.wait(0.2):
                pass
        except KeyboardInterrupt:
            self.stop(INTERRUPTED)
        return self.finish()
