"""What a batch run shows while it works: a rich progress bar, or plain lines with ``--quiet``.

The bar counts passed / failed / remaining and estimates the time left as the wall time
per task finished in this run (parallel workers make it shorter) times the tasks left;
tasks skipped because an earlier run passed them count as passed and take no time.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from ..terminal_text import printable
from .results import TaskRecord


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def describe_record(record: TaskRecord) -> str:
    verdict = "PASS" if record.passed else "FAIL"
    tail = f" — {record.reason}" if record.reason and not record.passed else ""
    again = f", attempt {len(record.retries) + 1}" if record.retries else ""  # --ray: re-run
    return f"{verdict} {record.task} ({record.steps} steps, {record.seconds:.1f}s{again}){tail}"


class BatchProgress:
    """Use as a context manager; call ``finished`` as each task ends."""

    def __init__(self, total: int, already_passed: int = 0, *, quiet: bool = False,
                 workers: int = 1, title: str = "batch") -> None:
        self.total = total
        self.passed = already_passed
        self.failed = 0
        self.workers = max(1, workers)
        self.quiet = quiet
        self.title = printable(title)  # a suite's name is data (rich shows it as plain text)
        self._started = time.monotonic()
        self._finished_here = 0
        self._progress: Any = None
        self._bar: Any = None

    @property
    def remaining(self) -> int:
        return max(0, self.total - self.passed - self.failed)

    def eta(self) -> str:
        if not self._finished_here:
            return "?"
        per_task = (time.monotonic() - self._started) / self._finished_here
        return _clock(per_task * self.remaining)

    def _fields(self) -> dict[str, Any]:
        return {"passed": self.passed, "failed": self.failed, "remaining": self.remaining,
                "eta": self.eta()}

    def __enter__(self) -> BatchProgress:
        if self.quiet:
            self.note(f"{self.title}: {self.total} tasks, {self.passed} already passed")
            return self
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(),
            TextColumn("[green]{task.fields[passed]} passed[/] [red]{task.fields[failed]} "
                       "failed[/] {task.fields[remaining]} remaining"),
            TimeElapsedColumn(), TextColumn("ETA {task.fields[eta]}"),
            console=Console(stderr=True), transient=False)
        self._progress.__enter__()
        from rich.markup import escape

        self._bar = self._progress.add_task(escape(self.title), total=self.total,
                                            completed=self.passed, **self._fields())
        return self

    def note(self, text: str) -> None:
        """A line above the bar (or on stdout with --quiet); task names and reasons are data."""
        text = printable(text)
        if self._progress is not None:
            self._progress.console.print(text, markup=False, highlight=False)
        else:
            print(text, flush=True)

    def started(self, task: str, worker: int) -> None:
        if self.quiet:
            return
        self.note(f"start {task} (worker {worker})")

    def finished(self, record: TaskRecord) -> None:
        if record.passed:
            self.passed += 1
        else:
            self.failed += 1
        self._finished_here += 1
        done = self.passed + self.failed
        self.note(f"[{done}/{self.total}] {describe_record(record)}")
        if self._progress is not None:
            self._progress.update(self._bar, completed=done, **self._fields())

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.update(self._bar, **self._fields())
            self._progress.__exit__(None, None, None)
            self._progress = None
        sys.stdout.flush()
