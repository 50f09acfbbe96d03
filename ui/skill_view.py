"""One skill, shown as what it will do: its parameters, then each step with the image of the
element it acts on (the crop kept in the memory store), the action, how the target is found
and what must hold afterwards."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

CROP_SIZE = (160, 56)        # the largest a step's image is drawn, in pixels
FLAG_STYLE = "color: #b91c1c; font-weight: bold;"
STEP_COLUMNS = ("#", "Element", "Action", "Found by", "Then", "Record")
PARAM_COLUMNS = ("Parameter", "Kind", "Default", "Choices", "Description")


def when(stamp: float | None) -> str:
    return datetime.fromtimestamp(stamp).strftime("%Y-%m-%d %H:%M") if stamp else "never"


def crop_pixmap(path: Path | None) -> QPixmap | None:
    """The crop scaled to fit CROP_SIZE; None when there is none or it cannot be read."""
    if path is None or not path.is_file():
        return None
    pixmap = QPixmap(str(path))
    if pixmap.isNull():
        return None
    w, h = CROP_SIZE
    if pixmap.width() > w or pixmap.height() > h:
        pixmap = pixmap.scaled(w, h, Qt.AspectRatioMode.KeepAspectRatio,
                               Qt.TransformationMode.SmoothTransformation)
    return pixmap


def finding(step: Any) -> str:
    """How the step's target is found, in words."""
    parts = []
    if step.target:
        parts.append(f"target “{step.target}”")
    if step.ocr_text and step.ocr_text != step.target:
        parts.append(f"text “{step.ocr_text}”")
    if step.landmarks:
        parts.append("near " + ", ".join(f"“{t}” ({dx:+d}, {dy:+d})" for t, dx, dy in step.landmarks))
    if step.crop:
        parts.append("its image")
    return "; ".join(parts) or "—"


def then(step: Any) -> str:
    if step.post_text:
        return f"“{step.post_text}” appears"
    if step.post_region:
        return "region ({}, {}, {}, {}) changes".format(*step.post_region)
    return ""


def _table(columns: tuple[str, ...]) -> QTableWidget:
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    table.setWordWrap(True)
    table.horizontalHeader().setStretchLastSection(True)
    return table


def _fit(table: QTableWidget, stretch: int) -> None:
    """Columns as wide as their contents, except ``stretch``, which takes the rest."""
    header = table.horizontalHeader()
    header.setStretchLastSection(False)
    for column in range(table.columnCount()):
        mode = QHeaderView.ResizeMode.Stretch if column == stretch else QHeaderView.ResizeMode.ResizeToContents
        header.setSectionResizeMode(column, mode)


def _item(text: str, tip: str = "") -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setToolTip(tip or text)
    return item


class SkillDetails(QWidget):
    """The selected skill; ``set_skill(skill, store_root)`` shows it, ``clear()`` empties it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel()
        self.title.setStyleSheet("font-size: 15px; font-weight: bold;")
        self.flag = QLabel()
        self.flag.setStyleSheet(FLAG_STYLE)
        self.flag.setWordWrap(True)
        self.meta = QLabel()
        self.meta.setStyleSheet("color: #6b7280;")
        self.meta.setWordWrap(True)
        self.description = QLabel()
        self.description.setWordWrap(True)
        self.description.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.examples = QLabel()
        self.examples.setWordWrap(True)
        self.params = _table(PARAM_COLUMNS)
        self.params.setMaximumHeight(120)
        self.steps = _table(STEP_COLUMNS)
        _fit(self.params, stretch=4)
        _fit(self.steps, stretch=3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.title, self.flag, self.meta, self.description, self.examples):
            layout.addWidget(widget)
        layout.addWidget(self.params)
        layout.addWidget(self.steps, 1)
        self.clear()

    def clear(self, text: str = "Select a skill to see its steps.") -> None:
        self.title.setText(text)
        for label in (self.flag, self.meta, self.description, self.examples):
            label.setText("")
            label.setVisible(False)
        self.params.setRowCount(0)
        self.params.setVisible(False)
        self.steps.setRowCount(0)
        self.steps.setVisible(False)

    def set_skill(self, skill: Any, root: Path | None) -> None:
        st = skill.stats
        self.title.setText(skill.name)
        self.flag.setText("Flagged: most of its recent runs failed; check its steps before relying "
                          "on it." if skill.flagged else "")
        self.flag.setVisible(skill.flagged)
        self.meta.setText(f"source: {skill.source} · {len(skill.steps)} steps · runs: {st.runs} "
                          f"({st.successes} ok, {st.failures} failed) · last run: {when(st.last_run_at)}")
        self.meta.setVisible(True)
        self.description.setText(skill.description or "(no description)")
        self.description.setVisible(True)
        self.examples.setText("Examples: " + "; ".join(f"“{e}”" for e in skill.examples)
                              if skill.examples else "")
        self.examples.setVisible(bool(skill.examples))
        self._fill_params(skill.parameters)
        self._fill_steps(skill.steps, root)

    def _fill_params(self, params: Any) -> None:
        self.params.setRowCount(len(params))
        for row, p in enumerate(params):
            default = "" if p.default is None else (f"{p.default:g}" if isinstance(p.default, float)
                                                    else str(p.default))
            for col, text in enumerate((p.name, p.kind, default, ", ".join(p.choices), p.description)):
                self.params.setItem(row, col, _item(text))
        self.params.resizeRowsToContents()
        self.params.setVisible(bool(params))

    def _fill_steps(self, steps: Any, root: Path | None) -> None:
        self.steps.setRowCount(len(steps))
        for row, step in enumerate(steps):
            self.steps.setItem(row, 0, _item(str(row + 1)))
            pixmap = crop_pixmap(root / step.crop if root is not None and step.crop else None)
            image = _item("" if pixmap is not None else ("(image missing)" if step.crop else "—"),
                          step.crop or "no image recorded for this step")
            if pixmap is not None:
                image.setData(Qt.ItemDataRole.DecorationRole, pixmap)
            self.steps.setItem(row, 1, image)
            action = _item(step.action)
            action.setFont(_mono(action.font()))
            self.steps.setItem(row, 2, action)
            self.steps.setItem(row, 3, _item(finding(step)))
            self.steps.setItem(row, 4, _item(then(step)))
            record = f"{step.successes} ok, {step.failures} failed" if step.successes or step.failures else ""
            self.steps.setItem(row, 5, _item(record))
        self.steps.resizeRowsToContents()
        self.steps.setVisible(True)

    def crop_of(self, row: int) -> QPixmap | None:
        """The image drawn for step ``row`` (0-based), if any."""
        item = self.steps.item(row, 1)
        value = item.data(Qt.ItemDataRole.DecorationRole) if item is not None else None
        return value if isinstance(value, QPixmap) and not value.isNull() else None


def _mono(font: Any) -> Any:
    font.setFamily("monospace")
    font.setStyleHint(font.StyleHint.Monospace)
    return font
