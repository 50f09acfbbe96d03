"""The main window: task box and Run, Dry run, Pause/Stop, live view, step log, status bar.

During a real run (not a dry run) the window hides and the small status panel takes over,
so the agent has the screen to itself; the panel is painted out of what the agent sees and
refused as a click target. After the run the window comes back with the results.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, QUrl
from PySide6.QtGui import QCloseEvent, QDesktopServices, QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from gui_agent import Box

from .app_events import EventLog
from .engine_choice import EngineSelector
from .engine_worker import AgentFactory, EngineWorker, HotkeyFactory, RunRequest
from .live_view import LiveView, Overlay, pil_to_qimage
from .panels import Panels, load_app_settings
from .recorder_flow import RecorderFlow
from .recorder_flow import hotkey_label as _hotkey_label
from .run_outcome import outcome_summary, run_folder_link
from .run_prompts import answer_prompt
from .skill_suggestions import SkillSuggester, open_run_form
from .status_panel import StatusPanel
from .step_log import PREVIEW_WIDTH, StepLogModel, StepLogView, make_row
from .task_box import TaskBox
from .task_history import TaskHistory, default_history_file

log = logging.getLogger(__name__)

HIDE_DELAY_S = 0.3          # lets the screen repaint under the hidden window before the first look
class MainWindow(QMainWindow):
    def __init__(self, agent_factory: AgentFactory | None = None, *,
                 settings_loader: Any = None, history: TaskHistory | None = None,
                 hotkey_factory: HotkeyFactory | None = None, event_log: EventLog | None = None,
                 close_timeout: float = 5.0, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        if agent_factory is None:
            from .agent_factory import EngineFactory

            agent_factory = EngineFactory()
        self.settings_loader = settings_loader or load_app_settings
        self.history = history if history is not None else TaskHistory(default_history_file())
        self.events = event_log or EventLog(None)
        self.close_timeout = close_timeout
        self.worker = EngineWorker(agent_factory, hotkey_factory)  # no parent: outlives the window if a run does
        self.panel = StatusPanel()
        self.run_dir: Path | None = None
        self.last_result: Any = None
        self.following = True           # the live view follows the run (no step selected)
        self._live: tuple[Any, tuple[int, int], Overlay | None] | None = None
        self._hidden_for_run = False
        self._closing = False
        self._announced = False
        self._build()
        self._connect()
        self.panels = Panels(self)   # Tools menu: Skills…, Settings…, Batch…
        self.panels.run_skill_requested.connect(lambda name, params: self.start_run(name, params))
        self.suggester = SkillSuggester(lambda: self.settings_loader())   # the task box's skill suggestions
        self.task_box.suggest = self.suggester.suggest
        self.recorder = RecorderFlow(self)   # Record: countdown, indicator, compile, review, save
        self.recorder.saved.connect(lambda name: (self.suggester.invalidate(), self.panels.open_skills().refresh(name)))
        self.task_box.set_history(self.history.tasks)
        self._show_settings()
        self._set_running(False)

    # -- building ----------------------------------------------------------------------------
    def _build(self) -> None:
        self.setWindowTitle("gui-agent")
        self.resize(1000, 680)
        self.task_box = TaskBox()
        self.run_button = QPushButton("Run")
        self.run_button.setDefault(True)
        self.dry_run_box = QCheckBox("Dry run")
        self.dry_run_box.setToolTip("Plan and ground every step on the real screen, "
                                    "but never touch the mouse or keyboard")
        self.pause_button = QPushButton("Pause")
        self.stop_button = QPushButton("Stop")
        self.engine_choice = EngineSelector()
        self.record_button = QPushButton("Record")
        self.record_button.setToolTip("Record a skill: do a task yourself, then name it and its parameters")
        top = QHBoxLayout()
        top.addWidget(self.task_box, 1)
        for widget in (self.engine_choice, self.run_button, self.dry_run_box, self.pause_button, self.stop_button,
                       self.record_button):
            top.addWidget(widget)

        self.live_title = QLabel("Live view")
        self.live_title.setStyleSheet("font-weight: bold;")
        self.back_to_live = QPushButton("Back to live")
        self.back_to_live.setVisible(False)
        self.live_view = LiveView()
        left_head = QHBoxLayout()
        left_head.addWidget(self.live_title, 1)
        left_head.addWidget(self.back_to_live)
        left = QVBoxLayout()
        left.setContentsMargins(0, 0, 0, 0)
        left.addLayout(left_head)
        left.addWidget(self.live_view, 1)

        self.plan_label = QLabel("Type a task and press Run.")
        self.plan_label.setWordWrap(True)
        self.plan_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.step_model = StepLogModel(self)
        self.step_view = StepLogView(self.step_model)
        steps_title = QLabel("Steps")
        steps_title.setStyleSheet("font-weight: bold;")
        right = QVBoxLayout()
        right.setContentsMargins(0, 0, 0, 0)
        right.addWidget(self.plan_label)
        right.addWidget(steps_title)
        right.addWidget(self.step_view, 1)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        for layout in (left, right):
            holder = QWidget()
            holder.setLayout(layout)
            splitter.addWidget(holder)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([520, 460])
        central = QWidget()
        body = QVBoxLayout(central)
        body.addLayout(top)
        body.addWidget(splitter, 1)
        self.setCentralWidget(central)

        self.outcome_label = QLabel("Ready.")
        self.folder_label = QLabel()
        self.folder_label.setTextFormat(Qt.TextFormat.RichText)
        self.folder_label.setToolTip("Open the run folder (screenshots, steps.jsonl, run.json)")
        self.settings_label = QLabel()
        self.settings_label.setStyleSheet("color: #6b7280;")
        bar = self.statusBar()
        bar.addWidget(self.outcome_label, 1)
        bar.addPermanentWidget(self.folder_label)
        bar.addPermanentWidget(self.settings_label)

    def _connect(self) -> None:
        self.run_button.clicked.connect(self.start_run)
        self.task_box.returnPressed.connect(self.start_run)
        self.task_box.skill_chosen.connect(lambda recall: open_run_form(self, recall, self.start_run))
        self.record_button.clicked.connect(lambda: self.recorder.start())
        self.pause_button.clicked.connect(self.toggle_pause)
        self.stop_button.clicked.connect(self.stop_run)
        self.panel.stop_clicked.connect(self.stop_run)
        self.back_to_live.clicked.connect(self.follow_live)
        self.step_view.step_selected.connect(self.show_step)
        self.folder_label.linkActivated.connect(lambda _link: self.open_run_folder())
        w = self.worker
        w.planned.connect(self._on_plan)
        w.observed.connect(self._on_frame)
        w.targeted.connect(self._on_target)
        w.stepped.connect(self._on_step)
        w.prompted.connect(lambda prompt: answer_prompt(self, prompt))
        w.finished.connect(self._on_finished)
        w.hotkey_stopped.connect(lambda: self._set_outcome_text("Stopping (stop hotkey)…"))

    def _show_settings(self) -> None:
        try:
            s = self.settings_loader()
        except Exception as exc:  # shown again, with a dialog, when Run is pressed
            self.settings_label.setText("settings: invalid")
            self.settings_label.setToolTip(str(exc))
            return
        self.engine_choice.show_settings(s)
        self.settings_label.setText(f"safety: {s.safety} · max {s.max_steps} steps · "
                                    f"stop: {_hotkey_label(s.stop_hotkey)}")

    # -- state -------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.worker.running

    def _set_running(self, running: bool) -> None:
        for widget in (self.run_button, self.task_box, self.engine_choice, self.record_button):
            widget.setEnabled(not running)
        self.dry_run_box.setEnabled(not running)
        self.pause_button.setEnabled(running)
        self.stop_button.setEnabled(running)
        self.pause_button.setText("Pause")

    def _set_outcome_text(self, text: str, style: str = "") -> None:
        self.outcome_label.setText(text)
        self.outcome_label.setStyleSheet(style)

    def screen_box(self, widget: QWidget) -> Box:
        rect = widget.frameGeometry()
        screen = widget.screen() or QGuiApplication.primaryScreen()
        ratio = screen.devicePixelRatio() if screen is not None else 1.0
        return Box(round(rect.x() * ratio), round(rect.y() * ratio),
                   round(rect.width() * ratio), round(rect.height() * ratio))

    # -- actions -----------------------------------------------------------------------------
    def start_run(self, skill: str | None = None, params: dict | None = None) -> bool:
        """Start the task in the task box (or a library skill); False when nothing was started."""
        task = f"replay the skill {skill!r}" if skill else self.task_box.text().strip()
        if self.worker.running:
            return False
        if not task:
            self._set_outcome_text("Type a task first.")
            self.task_box.setFocus()
            return False
        try:
            settings = self.engine_choice.apply(self.settings_loader())
        except Exception as exc:
            QMessageBox.critical(self, "gui-agent settings", f"The settings cannot be used:\n\n{exc}")
            return False
        self._show_settings()
        if not skill:
            self.history.add(task)
            self.task_box.set_history(self.history.tasks)
        dry = self.dry_run_box.isChecked()
        self._reset_for_run()
        if dry:
            keep_out, delay = (self.screen_box(self),), 0.0
        else:
            self.panel.set_hint(_hotkey_label(settings.stop_hotkey))
            self.panel.show_in_corner(self.screen())
            keep_out, delay = (self.panel.screen_box(),), HIDE_DELAY_S
            self._hidden_for_run = True
            self.hide()
        request = RunRequest(task, settings, dry_run=dry, keep_out=keep_out, start_delay=delay, skill=skill,
                             params=tuple((params or {}).items()))
        self.events.emit("run_started", task=task, dry_run=dry, keep_out=[list(b.corners) for b in keep_out],
                         stop_button=None if dry else self._where(self.panel.stop_button))
        self._set_running(True)
        self._set_outcome_text(f"Running: {task}")
        self.worker.start(request)
        return True

    def _reset_for_run(self) -> None:
        self.step_model.clear()
        self.live_view.clear()
        self.following = True
        self.back_to_live.setVisible(False)
        self.live_title.setText("Live view")
        self.plan_label.setText("Planning…")
        self.folder_label.setText("")
        self.run_dir = None
        self.last_result = None
        self._live = None

    def stop_run(self) -> None:
        if self.worker.running:
            self.worker.stop()
            self.stop_button.setEnabled(False)
            self.pause_button.setEnabled(False)
            self._set_outcome_text("Stopping…")

    def toggle_pause(self) -> None:
        if not self.worker.running:
            return
        paused = not self.worker.paused
        self.worker.set_paused(paused)
        self.pause_button.setText("Resume" if paused else "Pause")
        self._set_outcome_text("Paused — press Resume to go on." if paused else "Running…")
        self.panel.set_step("Paused" if paused else "Resuming…")

    def follow_live(self) -> None:
        self.following = True
        self.step_view.clearSelection()
        self.back_to_live.setVisible(False)
        self.live_title.setText("Live view")
        if self._live is not None:
            self.live_view.set_frame(*self._live)

    def show_step(self, row: int) -> None:
        """Show the screen a step started from, with what it acted on."""
        if row < 0 or row >= self.step_model.rowCount():
            return
        item = self.step_model.row_at(row)
        step = item.step
        self.following = False
        self.back_to_live.setVisible(True)
        self.live_title.setText(f"Step {step.index} — before")
        if item.preview is None:
            self.live_view.clear()
            return
        overlay = Overlay(step.box, step.point, (), f"{step.index}. {step.action} — {step.outcome}",
                          step.source or "")
        self.live_view.set_frame(item.preview, item.source_size, overlay)

    def open_run_folder(self) -> bool:
        if self.run_dir is None:
            return False
        return QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.run_dir)))

    # -- from the worker ---------------------------------------------------------------------
    def _show_live(self, image: Any, overlay: Overlay | None) -> None:
        frame = (pil_to_qimage(image, PREVIEW_WIDTH), tuple(image.size), overlay)
        self._live = frame
        if self.following:
            self.live_view.set_frame(*frame)

    def _on_plan(self, subtasks: list[Any]) -> None:
        lines = [f"{i}. {sub.instruction}" for i, sub in enumerate(subtasks, 1)]
        self.plan_label.setText("Plan:\n" + "\n".join(lines) if lines else "Plan: nothing to do")
        self.panel.set_step(f"Planned {len(lines)} subtask{'s' if len(lines) != 1 else ''}")

    def _on_frame(self) -> None:
        frame = self.worker.take_frame()
        if frame is not None:
            self._show_live(frame, None)

    def _on_target(self, info: Any) -> None:
        label = f"next: {info.action}"
        self._show_live(info.image, Overlay(info.box, info.point, info.others, label, info.source or ""))
        self.panel.set_step(f"Step {self.step_model.rowCount() + 1}: {info.action}")

    def _on_step(self, event: Any) -> None:
        step = event.step
        self.step_model.append(make_row(step, event.image))
        if self.following:
            self.step_view.scrollToBottom()
        self.panel.set_step(f"Step {step.index} {step.outcome}: {step.action}")
        self.events.emit("step", index=step.index, action=step.action, outcome=step.outcome,
                         source=step.source, screen_point=step.screen_point, error=step.error)

    def _on_finished(self, result: Any) -> None:
        self.last_result = result
        self.suggester.invalidate()      # the run may have taught the library a skill
        self._set_running(False)
        self.panel.hide()
        self.run_dir = result.run_dir
        if getattr(result, "skill", None):
            self.plan_label.setText(f"Done by the skill {result.skill!r}: no planning needed.")
        self._set_outcome_text(*outcome_summary(result))
        if result.run_dir is not None:
            self.folder_label.setText(run_folder_link(result.run_dir))
            self.folder_label.setToolTip(f"Open {result.run_dir}")
        if self._hidden_for_run and not self._closing:
            self.show()
            self.raise_()
            self.activateWindow()
            self.events.emit("window_restored")
        self._hidden_for_run = False
        self.events.emit("run_finished", outcome=result.outcome, reason=result.reason,
                         steps=len(result.steps), run_dir=result.run_dir,
                         panel_clicks=self.panel.clicks)

    # -- Qt events ---------------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._announced:
            self._announced = True
            QTimer.singleShot(50, self._announce_ready)

    def _where(self, widget: QWidget) -> list[int]:
        """A widget's screen rectangle [x, y, w, h] for the events file."""
        if widget is self:
            box = self.screen_box(self)
            return [box.left, box.top, box.width, box.height]
        corner = widget.mapToGlobal(widget.rect().topLeft())
        return [corner.x(), corner.y(), widget.width(), widget.height()]

    def _announce_ready(self) -> None:
        self.events.emit("ready", window=self._where(self), task_box=self._where(self.task_box),
                         run_button=self._where(self.run_button), dry_run=self._where(self.dry_run_box),
                         record_button=self._where(self.record_button))

    def closeEvent(self, event: QCloseEvent) -> None:
        self._closing = True
        self.recorder.shutdown()
        if self.worker.running:
            self.worker.stop()
            if not self.worker.wait(self.close_timeout):
                log.warning("the run did not stop within %.1f s; leaving it to end on its own",
                            self.close_timeout)
        self.panel.close()
        super().closeEvent(event)
