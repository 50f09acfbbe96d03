"""Recording a demonstration from the app, off the UI thread: start the recorder, wait until it
is stopped (the app's Stop, or the recorder's own stop hotkey), finish the demonstration folder,
drop any input that landed on the app's own recording indicator, and compile the skill.

The recorder and the compiler are injected (tests use a fake recorder); by default they are
:class:`gui_agent.recording.Recorder` and :func:`gui_agent.recording.compile_demo`. Results come
back as Qt signals, queued to the UI thread.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal

from gui_agent import Box

log = logging.getLogger(__name__)


class RecorderLike(Protocol):
    """What the job needs of :class:`gui_agent.recording.Recorder`."""

    stop_reason: str | None
    errors: list[str]

    def start(self) -> None: ...
    def stop(self, reason: str = ...) -> None: ...
    def stop_at_press(self, reason: str, boxes: Sequence[Box], timeout: float = ...) -> None: ...
    def wait(self, timeout: float | None = None) -> bool: ...
    def finish(self) -> Any: ...


RecorderFactory = Callable[[Path, str, Any], RecorderLike]     # (folder, name, settings) -> a Recorder
Compiler = Callable[[Any, str], Any]                  # (Demonstration, name) -> Skill
POINTED = ("click", "drag", "scroll")
APP_STOP = "stopped in the app"


def default_recorder(folder: Path, name: str, settings: Any) -> RecorderLike:
    from gui_agent import Recorder

    return Recorder(folder, name, stop_hotkey=settings.stop_hotkey, monitor=settings.monitor)


def default_compiler(demo: Any, name: str) -> Any:
    from gui_agent import compile_demo

    return compile_demo(demo, name=name)


def recording_name() -> str:
    """A name until the person gives one in the review (a valid skill name, dated)."""
    return time.strftime("recording %Y-%m-%d %H.%M.%S")


def recording_folder(name: str) -> Path:
    """A new folder ``<user data dir>/recordings/<name as a slug>`` (where ``gui-agent record`` puts them)."""
    from gui_agent import user_data_dir

    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "demo"
    root = user_data_dir() / "recordings"
    folder, n = root / slug, 1
    while folder.exists():
        n += 1
        folder = root / f"{slug}-{n}"
    return folder


def _inside(point: tuple[int, int] | None, boxes: Sequence[Box]) -> bool:
    return point is not None and any(b.left <= point[0] < b.right and b.top <= point[1] < b.bottom
                                     for b in boxes)


def drop_events_inside(demo: Any, boxes: Sequence[Box]) -> Any:
    """The demonstration without clicks, drags and scrolls on ``boxes`` (the app's indicator),
    its folder rewritten to match, so that compiling it again later gives the same skill."""
    kept = tuple(e for e in demo.events
                 if not (e.kind in POINTED and (_inside(e.point, boxes) or _inside(e.end_point, boxes))))
    if len(kept) == len(demo.events):
        return demo
    log.info("dropped %d event(s) on the recording indicator", len(demo.events) - len(kept))
    if not kept:
        from gui_agent import ConfigError

        raise ConfigError("nothing was recorded but the click on Stop")
    meta = replace(demo.meta, events=len(kept))
    for name, text in (("events.jsonl", "".join(json.dumps(e.to_json(), ensure_ascii=False) + "\n" for e in kept)),
                       ("meta.json", json.dumps(meta.to_json(), indent=2, ensure_ascii=False) + "\n")):
        tmp = demo.folder / f".{name}.tmp"
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, demo.folder / name)
    return replace(demo, meta=meta, events=kept)


class RecordingJob(QObject):
    """One recording at a time: ``start``, then ``stop`` (or the recorder stops itself)."""

    listening = Signal()            # the recorder hears input now
    stopped = Signal(str)           # why it stopped; finishing and compiling follow
    compiled = Signal(object)       # (Skill, Demonstration)
    failed = Signal(str)            # what went wrong (nothing was compiled)

    def __init__(self, recorder_factory: RecorderFactory | None = None, compiler: Compiler | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.recorder_factory = recorder_factory or default_recorder
        self.compiler = compiler or default_compiler
        self.recorder: RecorderLike | None = None
        self.folder: Path | None = None
        self._keep_out: Callable[[], Sequence[Box]] = tuple
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, folder: Path, name: str, settings: Any, keep_out: Callable[[], Sequence[Box]]) -> None:
        if self.running:
            raise RuntimeError("a recording is already in progress")
        self.folder, self.recorder, self._stop = folder, None, threading.Event()
        self._keep_out = keep_out
        self._thread = threading.Thread(target=self._run, args=(folder, name, settings),
                                        daemon=True, name="gui-agent-record")
        self._thread.start()

    def stop(self, reason: str = APP_STOP) -> None:
        """Stop at the person's press on the indicator's Stop as the recorder hears it (input
        before that press is kept even when the listener hears it late), or now when no press
        on it is heard within a second (the window closing, say)."""
        self._stop.set()
        recorder = self.recorder
        if recorder is not None:
            recorder.stop_at_press(reason, self._keep_out())

    def wait(self, timeout: float) -> bool:
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self, folder: Path, name: str, settings: Any) -> None:
        try:
            recorder = self.recorder_factory(folder, name, settings)
            self.recorder = recorder
            recorder.start()
            if self._stop.is_set():          # Stop came while the recorder was starting
                recorder.stop(APP_STOP)
            self.listening.emit()
            while not recorder.wait(0.1):
                pass
            self.stopped.emit(str(recorder.stop_reason or APP_STOP))
            demo = drop_events_inside(recorder.finish(), self._keep_out())
            for error in recorder.errors:
                log.warning("recording: %s", error)
            skill = self.compiler(demo, name)
        except Exception as exc:  # shown to the person; the UI must never be left waiting
            log.exception("the recording failed")
            self.failed.emit(f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc))
            return
        self.compiled.emit((skill, demo))
