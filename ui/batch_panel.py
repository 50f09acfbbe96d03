"""Batch from the app: open a suite file, check it, run it with progress, open the report.

The suite runs as a ``gui-agent batch SUITE --quiet`` subprocess (a QProcess), so the app
stays responsive and Cancel is the runner's own clean stop: SIGTERM makes it stop its workers,
keep the finished results and still write the report. Each ``[n/N] PASS|FAIL task`` line it
prints triggers a read of ``OUT/results.jsonl`` (written before the line), which fills the
task's row. Closing the panel leaves a batch running (reopen it to watch); quitting the app
stops it.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QProcess, QProcessEnvironment, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from .batch_table import BatchTable

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
PROGRESS_LINE = re.compile(r"^\[(\d+)/(\d+)\] (PASS|FAIL) ")
CANCEL_GRACE_MS = 40_000     # the runner stops its workers (up to 20 s each, in parallel) before this
QUIT_WAIT_MS = 30_000
EXIT_TEXT = {0: "All tasks passed.", 1: "Some tasks failed.", 130: "Cancelled; finished results are kept."}
ERROR_STYLE = "color: #b91c1c;"


@dataclass(frozen=True)
class BatchJob:
    suite: Path
    out: Path
    workers: int = 1
    headless: bool = True


def batch_argv(job: BatchJob) -> list[str]:
    """The command line that runs a job: the CLI's batch command, in plain-line mode."""
    argv = [sys.executable, "-m", "gui_agent.cli", "batch", str(job.suite), "--quiet",
            "--out", str(job.out), "--workers", str(job.workers)]
    return argv + (["--headless"] if job.headless else [])


def default_out(suite: Path) -> Path:
    from gui_agent import user_data_dir

    return user_data_dir() / "batch" / suite.stem


class BatchPanel(QDialog):
    """``batch_finished(exit_code)`` is emitted when a run ends (130: cancelled, -1: crashed)."""

    batch_finished = Signal(int)

    def __init__(self, parent: QWidget | None = None, *,
                 command: Callable[[BatchJob], list[str]] = batch_argv) -> None:
        super().__init__(parent)
        self.setWindowTitle("Batch")
        self.resize(900, 560)
        self.command = command
        self.suite: Any = None
        self.job: BatchJob | None = None
        self.process: QProcess | None = None
        self.exit_code: int | None = None
        self._stdout = b""
        self._stderr: list[str] = []
        self._cancelled = False
        self._reported = 0
        self._kill_timer = QTimer(self)
        self._kill_timer.setSingleShot(True)
        self._kill_timer.timeout.connect(self._kill)
        self._build()
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stop_on_quit)
        self._set_running(False)

    def _build(self) -> None:
        self.suite_edit = QLineEdit()
        self.suite_edit.setReadOnly(True)
        self.suite_edit.setPlaceholderText("no suite file opened")
        self.open_button = QPushButton("Open suite…")
        self.open_button.clicked.connect(lambda: self.open_suite())
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet(ERROR_STYLE)
        self.error.setVisible(False)
        self.out_edit = QLineEdit()
        self.workers = QSpinBox()
        self.workers.setRange(1, max(1, os.cpu_count() or 1))
        self.headless = QCheckBox("On virtual displays (keeps your mouse and screen free)")
        self.headless.setChecked(True)
        self.table = BatchTable()
        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m tasks")
        self.status = QLabel("Open a suite file (YAML) to run its tasks.")
        self.status.setWordWrap(True)
        self.run_button = QPushButton("Run")
        self.cancel_button = QPushButton("Cancel")
        self.report_button = QPushButton("Open report")
        self.run_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.report_button.clicked.connect(self.open_report)
        top = QHBoxLayout()
        top.addWidget(QLabel("Suite"))
        top.addWidget(self.suite_edit, 1)
        top.addWidget(self.open_button)
        options = QFormLayout()
        options.addRow("Results folder", self.out_edit)
        options.addRow("Parallel workers", self.workers)
        options.addRow("", self.headless)
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        for button in (self.run_button, self.cancel_button, self.report_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.error)
        layout.addLayout(options)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.progress)
        layout.addLayout(buttons)

    # -- state -------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.process is not None

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running and self.suite is not None)
        self.open_button.setEnabled(not running)
        for widget in (self.out_edit, self.workers, self.headless):
            widget.setEnabled(not running)
        self.cancel_button.setEnabled(running and not self._cancelled)
        self.report_button.setEnabled(not running and self.report_path() is not None)

    def report_path(self) -> Path | None:
        if self.job is None:
            return None
        index = self.job.out / "index.html"
        return index if index.is_file() else None

    def _show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))

    # -- suite -------------------------------------------------------------------------------
    def open_suite(self, path: Path | None = None) -> bool:
        """Load and check a suite file (a file dialog when no path is given)."""
        if self.running:
            return False
        if path is None:
            chosen, _ = QFileDialog.getOpenFileName(self, "Open a task suite", str(Path.cwd()),
                                                    "Task suites (*.yaml *.yml);;All files (*)")
            if not chosen:
                return False
            path = Path(chosen)
        from gui_agent import ConfigError, load_suite

        self.suite_edit.setText(str(path))
        self.table.setRowCount(0)
        self.job = None
        try:
            self.suite = load_suite(path)
        except ConfigError as exc:
            self.suite = None
            self._show_error(f"This suite cannot run: {exc}")
            self.status.setText("Fix the suite file and open it again.")
            self._set_running(False)
            return False
        self._show_error("")
        self.out_edit.setText(str(default_out(Path(path))))
        self.table.set_tasks(self.suite.tasks)
        self.progress.setRange(0, len(self.suite.tasks))
        self.progress.setValue(0)
        n = len(self.suite.tasks)
        self.status.setText(f"{self.suite.name}: {n} task{'s' if n != 1 else ''}. Press Run.")
        self._set_running(False)
        return True

    # -- running -----------------------------------------------------------------------------
    def start(self) -> bool:
        if self.running or self.suite is None:
            return False
        out = Path(self.out_edit.text().strip() or default_out(self.suite.path)).expanduser()
        self.job = BatchJob(self.suite.path, out, self.workers.value(), self.headless.isChecked())
        argv = self.command(self.job)
        self.table.reset_rows()
        self.progress.setValue(0)
        self.exit_code, self._stdout, self._stderr, self._cancelled = None, b"", [], False
        self._reported = 0       # progress lines seen: the result log is this run's only after one
        self._show_error("")
        proc = QProcess(self)
        env = QProcessEnvironment.systemEnvironment()
        env.insert("PYTHONUNBUFFERED", "1")
        env.insert("PYTHONPATH", os.pathsep.join(p for p in (str(PACKAGE_ROOT), env.value("PYTHONPATH")) if p))
        proc.setProcessEnvironment(env)
        proc.readyReadStandardOutput.connect(self._read_stdout)
        proc.readyReadStandardError.connect(self._read_stderr)
        proc.finished.connect(self._on_finished)
        proc.errorOccurred.connect(self._on_error)
        self.process = proc
        self._set_running(True)
        self.table.mark_running(self.job.workers)
        self.status.setText(f"Running {self.suite.name}…")
        proc.start(argv[0], argv[1:])
        return True

    def cancel(self) -> None:
        """Ask the runner to stop (it keeps finished results and writes the report)."""
        if self.process is None or self._cancelled:
            return
        self._cancelled = True
        self.status.setText("Cancelling: stopping the workers…")
        self._set_running(True)
        self.process.terminate()
        self._kill_timer.start(CANCEL_GRACE_MS)

    def _kill(self) -> None:
        if self.process is not None:
            self.process.kill()

    def stop_on_quit(self) -> None:
        """The app is quitting: stop the runner cleanly, killing it if it will not stop."""
        proc = self.process
        if proc is None:
            return
        proc.terminate()
        if not proc.waitForFinished(QUIT_WAIT_MS):
            proc.kill()
            proc.waitForFinished(2000)

    def _read_stdout(self) -> None:
        if self.process is None:
            return
        self._stdout += bytes(self.process.readAllStandardOutput())
        *lines, self._stdout = self._stdout.split(b"\n")
        for raw in lines:
            self._line(raw.decode("utf-8", "replace").rstrip("\r"))

    def _read_stderr(self) -> None:
        if self.process is not None:
            text = bytes(self.process.readAllStandardError()).decode("utf-8", "replace")
            self._stderr = (self._stderr + text.splitlines())[-30:]

    def _line(self, line: str) -> None:
        match = PROGRESS_LINE.match(line)
        if match is None:
            return
        done, total = int(match.group(1)), int(match.group(2))
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self._reported += 1
        self._update_results()

    def _update_results(self) -> None:
        from gui_agent import latest_by_task, read_records

        if self.job is None or not self._reported:
            return
        self.table.apply_records(latest_by_task(read_records(self.job.out / "results.jsonl")))
        if self.running and not self._cancelled:
            self.table.mark_running(self.job.workers)

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart and self.process is not None:
            self._stderr.append(f"the batch runner could not start: {self.process.errorString()}")
            self._finish(-1)

    def _on_finished(self, code: int, status: QProcess.ExitStatus) -> None:
        self._read_stdout()
        self._read_stderr()
        if self._stdout:
            self._line(self._stdout.decode("utf-8", "replace"))
            self._stdout = b""
        crashed = status == QProcess.ExitStatus.CrashExit
        self._finish(130 if crashed and self._cancelled else -1 if crashed else code)

    def _finish(self, code: int) -> None:
        if self.process is None:
            return
        self._kill_timer.stop()
        self.process.deleteLater()
        self.process = None
        self.exit_code = code
        self._update_results()
        self.table.end_running(cancelled=code == 130)
        text = EXIT_TEXT.get(code)
        if text is None:
            tail = "\n".join(self._stderr[-6:]).strip()
            text = "The batch could not run." if code == 2 else f"The batch runner stopped (exit status {code})."
            self._show_error(tail or text)
        passed = sum(1 for s in self.table.statuses().values() if s == "passed")
        self.status.setText(f"{text} {passed} of {self.table.rowCount()} passed.")
        self._cancelled = False
        self._set_running(False)
        self.batch_finished.emit(code)

    def open_report(self) -> bool:
        path = self.report_path()
        return path is not None and QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))
