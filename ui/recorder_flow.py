"""Record a skill from the app: Record → a short countdown → a small always-on-top indicator with
Stop while the main window is out of the way → Stop (the button, or the recorder's stop hotkey) →
the recording is compiled in the background → the skill opens for review → Save puts it in the
library, where it can be replayed.

The indicator never becomes part of the demonstration: pressing its Stop stops the recorder on
the *press* (before the release is heard), and any click, drag or scroll that still landed inside
the indicator's rectangle is dropped before compiling (``recording_job.drop_events_inside``).
Errors are shown through ``show_error`` (tests replace it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from .recording_job import Compiler, RecorderFactory, RecordingJob, recording_folder, recording_name
from .status_panel import STYLE as PANEL_STYLE
from .status_panel import StatusPanel

log = logging.getLogger(__name__)

COUNTDOWN_S = 3
IDLE, COUNTDOWN, RECORDING, COMPILING, REVIEW = "idle", "countdown", "recording", "compiling", "review"
STYLE = PANEL_STYLE.replace("background: #1f2430; border: 1px solid #4b5563;",
                            "background: #3b0d0f; border: 1px solid #b91c1c;")


def hotkey_label(combination: str) -> str:
    """"<ctrl>+<alt>+<esc>" -> "Ctrl+Alt+Esc"."""
    return "+".join(part.strip("<>").capitalize() for part in combination.split("+"))


def show_error(parent: QWidget | None, text: str) -> None:
    QMessageBox.warning(parent, "gui-agent recorder", text)


class RecordingIndicator(StatusPanel):
    """The status panel, red: a countdown, then "Recording" and Stop. ``stop_requested`` fires
    on the Stop button's press (``stop_clicked`` only on its release)."""

    stop_requested = Signal()

    def __init__(self) -> None:
        super().__init__(style=STYLE)
        self.setWindowTitle("gui-agent is recording")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.stop_button and event.type() == QEvent.Type.MouseButtonPress:
            self.stop_requested.emit()
        return super().eventFilter(watched, event)

    def set_hint(self, stop_hint: str) -> None:
        self.title.setText("● Recording" + (f" · {stop_hint} stops it" if stop_hint else ""))


class RecorderFlow(QObject):
    """Drives one recording at a time for ``window`` (a MainWindow: ``settings_loader``,
    ``outcome_label``, ``hide``/``show``). ``saved(name)`` fires when a reviewed skill is stored."""

    state_changed = Signal(str)
    saved = Signal(str)

    def __init__(self, window: Any, *, recorder_factory: RecorderFactory | None = None,
                 compiler: Compiler | None = None, folder_for: Callable[[str], Path] | None = None,
                 countdown: float = COUNTDOWN_S, store_opener: Callable[[Any], Any] | None = None) -> None:
        super().__init__(window)
        self.window = window
        self.job = RecordingJob(recorder_factory, compiler, self)
        self.folder_for = folder_for or recording_folder
        self.countdown = countdown
        self.store_opener = store_opener or _open_store
        self.indicator = RecordingIndicator()
        self.review: Any = None
        self.state = IDLE
        self.skill: Any = None
        self._left = 0
        self._name = ""
        self._settings: Any = None
        self.tick_ms = 1000               # one countdown step (tests shorten it)
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._tick)
        self.indicator.stop_requested.connect(self.stop)
        self.indicator.stop_clicked.connect(self.stop)
        self.job.listening.connect(self._on_listening)
        self.job.stopped.connect(self._on_stopped)
        self.job.compiled.connect(self._on_compiled)
        self.job.failed.connect(self._on_failed)

    def _set_state(self, state: str) -> None:
        self.state = state
        self.state_changed.emit(state)

    def _emit(self, kind: str, **data: Any) -> None:
        events = getattr(self.window, "events", None)
        if events is not None:
            events.emit(kind, **data)

    def _status(self, text: str) -> None:
        self.window.outcome_label.setText(text)
        self.window.outcome_label.setStyleSheet("")

    # -- the steps ---------------------------------------------------------------------------
    def start(self) -> bool:
        """Begin the countdown (False when a run or another recording is in progress)."""
        if self.state != IDLE or getattr(self.window, "running", False):
            return False
        try:
            self._settings = self.window.settings_loader()
        except Exception as exc:
            show_error(self.window, f"The settings cannot be used:\n\n{exc}")
            return False
        self._name = recording_name()
        self._set_state(COUNTDOWN)
        self.indicator.set_hint(hotkey_label(self._settings.stop_hotkey))
        self.indicator.show_in_corner(self.window.screen())
        self.window.hide()
        self._left = int(round(self.countdown))
        if self._left <= 0:
            QTimer.singleShot(0, self._begin)
        else:
            self.indicator.set_step(f"Recording starts in {self._left}…")
            self._timer.start(self.tick_ms)
        return True

    def _tick(self) -> None:
        self._left -= 1
        if self._left > 0:
            self.indicator.set_step(f"Recording starts in {self._left}…")
            return
        self._timer.stop()
        self._begin()

    def _begin(self) -> None:
        if self.state != COUNTDOWN:
            return
        self._set_state(RECORDING)
        self.indicator.set_step("Starting the recorder…")
        folder = self.folder_for(self._name)
        self.job.start(folder, self._name, self._settings, lambda: (self.indicator.screen_box(),))

    def stop(self) -> None:
        """Stop: cancels the countdown, or ends the recording."""
        if self.state == COUNTDOWN:
            self._timer.stop()
            self.indicator.hide()
            self._set_state(IDLE)
            self._back("Recording cancelled.")
        elif self.state == RECORDING:
            self.job.stop()

    def _on_listening(self) -> None:
        self.indicator.set_step("Do the task now; press Stop when it is done.")
        button = self.indicator.stop_button
        corner = button.mapToGlobal(button.rect().topLeft())
        self._emit("recording_started", folder=self.job.folder, indicator=list(self.indicator.screen_box().corners),
                   stop_button=[corner.x(), corner.y(), button.width(), button.height()])

    def _on_stopped(self, reason: str) -> None:
        self._emit("recording_stopped", reason=reason)
        self._set_state(COMPILING)
        self.indicator.hide()
        self._back(f"Recording stopped ({reason}); compiling it into a skill…")

    def _back(self, text: str) -> None:
        if not self.window.isVisible():
            self.window.show()
            self.window.raise_()
            self.window.activateWindow()
        self._status(text)

    def _on_failed(self, message: str) -> None:
        self._emit("recording_failed", error=message)
        self.indicator.hide()
        self._set_state(IDLE)
        self._back(f"The recording failed: {message}")
        show_error(self.window, f"The recording could not be turned into a skill:\n\n{message}")

    def _on_compiled(self, result: tuple[Any, Any]) -> None:
        from .recording_review import RecordingReview

        self.skill, demo = result
        self._emit("recording_compiled", folder=demo.folder, events=len(demo.events),
                   steps=[s.action for s in self.skill.steps], parameters=[p.name for p in self.skill.parameters])
        self._set_state(REVIEW)
        self._status(f"Recorded {len(self.skill.steps)} steps: name the skill and its parameters, then save.")
        self.review = RecordingReview(self.skill, self._save, self.window, folder=demo.folder)
        self.review.finished.connect(self._review_closed)
        self.review.show()
        self.review.raise_()

    def _save(self, skill: Any) -> None:
        """Store the reviewed skill (raises GuiAgentError, shown in the review, when it cannot)."""
        store = self.store_opener(self._settings)
        try:
            store.save_skill(skill)
        finally:
            store.close()
        self.skill = skill
        self._emit("skill_saved", name=skill.name, steps=len(skill.steps))
        self._status(f"Saved the skill “{skill.name}” in the library.")
        self.saved.emit(skill.name)

    def _review_closed(self, result: int) -> None:
        if self.state == REVIEW:
            self._set_state(IDLE)
            if not result:
                self._status("The recording was not saved (its demonstration folder is kept).")

    def shutdown(self, timeout: float = 5.0) -> None:
        """The window is closing: stop a recording in progress and wait a little for it."""
        self._timer.stop()
        if self.job.running:
            self.job.stop()
            self.job.wait(timeout)
        self.indicator.close()


def _open_store(settings: Any) -> Any:
    from gui_agent import MemoryStore

    return MemoryStore(settings.memory_path)
