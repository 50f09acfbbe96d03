"""The step log: one row per step (thumbnail, index, action, outcome, what found the target —
a11y, ocr, template, vlm — and time)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QImage, QPixmap
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from .live_view import describe_source

THUMB_WIDTH = 64
PREVIEW_WIDTH = 960   # kept per step for the live view; smaller than a screen to bound memory

COLUMNS = ("", "#", "Action", "Outcome", "Found by", "Time")
OUTCOME_COLOURS = {"ok": QColor(22, 128, 61), "failed": QColor(190, 30, 45),
                   "refused": QColor(180, 83, 9), "skipped": QColor(107, 114, 128)}

Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class StepRow:
    step: Any                         # gui_agent.trajectory.StepLog
    preview: QImage | None            # the screen before the step, at most PREVIEW_WIDTH wide
    source_size: tuple[int, int]      # the size of the image the step's pixels refer to
    thumbnail: QImage | None

    @property
    def seconds(self) -> float:
        return sum(self.step.timings.values())


def make_row(step: Any, image: Any | None) -> StepRow:
    """A row for ``step``; ``image`` is the PIL screen it started from (None if unknown)."""
    from .live_view import pil_to_qimage

    if image is None:
        return StepRow(step, None, (0, 0), None)
    preview = pil_to_qimage(image, PREVIEW_WIDTH)
    thumb = preview.scaledToWidth(THUMB_WIDTH, Qt.TransformationMode.SmoothTransformation)
    return StepRow(step, preview, tuple(image.size), thumb)


class StepLogModel(QAbstractTableModel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: list[StepRow] = []
        self._pixmaps: dict[int, QPixmap] = {}

    # -- content -----------------------------------------------------------------------------
    def append(self, row: StepRow) -> None:
        n = len(self._rows)
        self.beginInsertRows(QModelIndex(), n, n)
        self._rows.append(row)
        self.endInsertRows()

    def clear(self) -> None:
        self.beginResetModel()
        self._rows.clear()
        self._pixmaps.clear()
        self.endResetModel()

    def row_at(self, row: int) -> StepRow:
        return self._rows[row]

    @property
    def rows(self) -> tuple[StepRow, ...]:
        return tuple(self._rows)

    # -- QAbstractTableModel -----------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self._rows[index.row()]
        step, column = row.step, index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(row, column)
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return self._pixmap(index.row())
        if role == Qt.ItemDataRole.ForegroundRole and column == 3:
            return QBrush(OUTCOME_COLOURS.get(step.outcome, QColor(0, 0, 0)))
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (1, 5):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    @staticmethod
    def _text(row: StepRow, column: int) -> str | None:
        step = row.step
        if column == 1:
            return str(step.index)
        if column == 2:
            return step.action
        if column == 3:
            return step.outcome
        if column == 4:
            return step.source or "—"
        if column == 5:
            return f"{row.seconds:.2f} s"
        return None

    def _pixmap(self, row: int) -> QPixmap | None:
        if row not in self._pixmaps:
            thumb = self._rows[row].thumbnail
            if thumb is None:
                return None
            self._pixmaps[row] = QPixmap.fromImage(thumb)
        return self._pixmaps[row]

    @staticmethod
    def _tooltip(row: StepRow) -> str:
        step = row.step
        lines = [f"{step.index}. {step.action} — {step.outcome}", f"subtask: {step.subtask}"]
        if step.source:
            lines.append(f"found by: {describe_source(step.source)}")
        if step.screen_point:
            lines.append(f"acted at {step.screen_point} (screen)")
        if step.why:
            lines.append(f"why: {step.why}")
        if step.error:
            lines.append(f"error: {step.error}")
        if step.alternatives:
            lines.append("other candidates: " + "; ".join(step.alternatives))
        timings = ", ".join(f"{k} {v:.2f}s" for k, v in step.timings.items())
        if timings:
            lines.append(f"time: {timings}")
        return "\n".join(lines)


class StepLogView(QTableView):
    """The table; ``step_selected(row)`` fires when the person picks a step (-1: none)."""

    step_selected = Signal(int)

    def __init__(self, model: StepLogModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setAlternatingRowColors(True)
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(48)
        header = self.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(28)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setIconSize(QSize(THUMB_WIDTH, 40))
        # selectionChanged, not currentRowChanged: Qt makes the first row current by itself
        self.selectionModel().selectionChanged.connect(self._selection_changed)

    def _selection_changed(self, *_: object) -> None:
        rows = self.selectionModel().selectedRows()
        if rows:
            self.step_selected.emit(rows[0].row())

    def select_row(self, row: int) -> None:
        self.selectRow(row)
