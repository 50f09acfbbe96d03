"""The batch panel's table: one row per suite task, filled from the result log as tasks end."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QTableWidget, QTableWidgetItem, QWidget

TASK, STATUS, STEPS, TIME, DETAILS = range(5)
STATUS_COLOURS = {"passed": "#16803d", "failed": "#b91c1c"}
WAITING, RUNNING, NOT_RUN = "waiting", "running…", "not run"


class BatchTable(QTableWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, 5, parent)
        self.setHorizontalHeaderLabels(["Task", "Status", "Steps", "Time", "Details"])
        self.horizontalHeader().setStretchLastSection(True)
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setColumnWidth(TASK, 260)
        self._instructions: list[str] = []

    def set_tasks(self, tasks: Sequence[Any]) -> None:
        """One waiting row per TaskSpec (its key, its instruction and checks as a tooltip)."""
        self.setRowCount(len(tasks))
        self._instructions = [t.shown_instruction for t in tasks]
        for row, task in enumerate(tasks):
            name = QTableWidgetItem(task.key)
            name.setToolTip(f"{task.shown_instruction}\n\nChecked: {task.describe_checks()}")
            self.setItem(row, TASK, name)
            for column in (STATUS, STEPS, TIME, DETAILS):
                self.setItem(row, column, QTableWidgetItem(""))
        self.reset_rows()

    def reset_rows(self) -> None:
        for row, instruction in enumerate(self._instructions):
            self.set_row(row, WAITING, "", "", instruction)

    def set_row(self, row: int, status: str, steps: str | None = None, seconds: str | None = None,
                details: str | None = None) -> None:
        item = self.item(row, STATUS)
        item.setText(status)
        colour = STATUS_COLOURS.get(status)
        item.setData(Qt.ItemDataRole.ForegroundRole, QColor(colour) if colour else None)
        for column, text in ((STEPS, steps), (TIME, seconds), (DETAILS, details)):
            if text is not None:
                self.item(row, column).setText(text)
                self.item(row, column).setToolTip(text)

    def row_of(self, key: str) -> int:
        for row in range(self.rowCount()):
            if self.item(row, TASK).text() == key:
                return row
        return -1

    def statuses(self) -> dict[str, str]:
        return {self.item(r, TASK).text(): self.item(r, STATUS).text() for r in range(self.rowCount())}

    def apply_records(self, records: Mapping[str, Any]) -> None:
        """Fill the rows of finished tasks from their TaskRecords (by task key)."""
        for key, record in records.items():
            row = self.row_of(key)
            if row >= 0:
                details = record.reason if not record.passed else (record.run_dir or "")
                self.set_row(row, "passed" if record.passed else "failed", str(record.steps),
                             f"{record.seconds:.1f} s", details)

    def mark_running(self, workers: int) -> None:
        """Workers take tasks in suite order, so the first ``workers`` unfinished ones are running."""
        slots = workers
        for row in range(self.rowCount()):
            if self.item(row, STATUS).text() in (WAITING, RUNNING) and slots > 0:
                self.set_row(row, RUNNING)
                slots -= 1

    def end_running(self, cancelled: bool) -> None:
        for row in range(self.rowCount()):
            if self.item(row, STATUS).text() == RUNNING:
                self.set_row(row, NOT_RUN if cancelled else WAITING)
