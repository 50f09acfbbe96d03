"""The skill library's two forms: edit a skill's description and parameters, and run a skill
with a value for each parameter. Both are non-modal dialogs that report errors inside
themselves and stay open until the values are right."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gui_agent import PARAM_KINDS, PLACEHOLDER_RE, GuiAgentError, Skill, SkillParameter

ERROR_STYLE = "color: #b91c1c;"
NAME, KIND, DEFAULT, CHOICES, DESCRIPTION = range(5)
NUMBER_RANGE = 1e9


def _error_label() -> QLabel:
    label = QLabel()
    label.setStyleSheet(ERROR_STYLE)
    label.setWordWrap(True)
    label.setVisible(False)
    return label


def _number_text(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else ("" if value is None else str(value))


class SkillEditDialog(QDialog):
    """Description and parameters (name, kind, default, choices). Renaming a parameter renames
    its ``{placeholder}`` in the steps. ``apply(skill)`` stores the result; what it raises is
    shown here and the dialog stays open."""

    def __init__(self, skill: Skill, apply: Callable[[Skill], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.skill = skill
        self.apply = apply
        self.setWindowTitle(f"Edit skill: {skill.name}")
        self.description = QPlainTextEdit(skill.description)
        self.description.setFixedHeight(70)
        self.table = QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels(["Name", "Kind", "Default", "Choices", "Description"])
        self.table.horizontalHeaderItem(CHOICES).setToolTip("For a choice: the values, comma-separated")
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        for p in skill.parameters:
            self.add_parameter(p)
        self.add_button = QPushButton("Add parameter")
        self.remove_button = QPushButton("Remove parameter")
        self.add_button.clicked.connect(lambda: self.add_parameter())
        self.remove_button.clicked.connect(self.remove_selected)
        self.error = _error_label()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        used = sorted({n for s in skill.steps for n in s.placeholders})
        hint = QLabel("Steps use: " + ", ".join(f"{{{n}}}" for n in used) if used else
                      "No step uses a parameter yet.")
        hint.setStyleSheet("color: #6b7280;")
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Description"))
        layout.addWidget(self.description)
        layout.addWidget(QLabel("Parameters"))
        layout.addWidget(self.table, 1)
        layout.addLayout(row)
        layout.addWidget(hint)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.resize(720, 420)

    def add_parameter(self, p: SkillParameter | None = None) -> int:
        row = self.table.rowCount()
        self.table.insertRow(row)
        name = QTableWidgetItem(p.name if p else "")
        name.setData(Qt.ItemDataRole.UserRole, p.name if p else None)   # the name the steps use now
        self.table.setItem(row, NAME, name)
        kind = QComboBox()
        kind.addItems(PARAM_KINDS)
        kind.setCurrentText(p.kind if p else "text")
        self.table.setCellWidget(row, KIND, kind)
        self.table.setItem(row, DEFAULT, QTableWidgetItem(_number_text(p.default) if p else ""))
        self.table.setItem(row, CHOICES, QTableWidgetItem(", ".join(p.choices) if p else ""))
        self.table.setItem(row, DESCRIPTION, QTableWidgetItem(p.description if p else ""))
        return row

    def remove_selected(self) -> None:
        for row in sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True):
            self.table.removeRow(row)

    def set_cell(self, row: int, column: int, text: str) -> None:
        if column == KIND:
            self.table.cellWidget(row, KIND).setCurrentText(text)
        else:
            self.table.item(row, column).setText(text)

    def _cell(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return item.text().strip() if item is not None else ""

    def build(self) -> Skill:
        """The edited skill (ConfigError when a parameter or step does not fit)."""
        params, renames = [], {}
        for row in range(self.table.rowCount()):
            cell = lambda column, r=row: self._cell(r, column)  # noqa: E731
            name = cell(NAME)
            kind = self.table.cellWidget(row, KIND).currentText()
            default = cell(DEFAULT) or None
            choices = tuple(c.strip() for c in cell(CHOICES).split(",") if c.strip())
            old = self.table.item(row, NAME).data(Qt.ItemDataRole.UserRole)
            before = next((p for p in self.skill.parameters if p.name == old), None)
            secret = bool(before and before.secret)   # a secret stays secret (and keeps no default)
            params.append(SkillParameter(name, kind, None if secret else default,
                                         choices if kind == "choice" else (), cell(DESCRIPTION), secret=secret))
            if old and old != name:
                renames[old] = name

        def rename(match: Any) -> str:
            return "{" + renames.get(match.group(1), match.group(1)) + "}"

        def renamed(text: str | None) -> str | None:
            return PLACEHOLDER_RE.sub(rename, text) if text else text

        steps = tuple(replace(s, action=renamed(s.action), target=renamed(s.target), ocr_text=renamed(s.ocr_text),
                              post_text=renamed(s.post_text)) for s in self.skill.steps)
        return replace(self.skill, description=renamed(self.description.toPlainText().strip()),
                       parameters=tuple(params), steps=steps)

    def save(self) -> bool:
        try:
            skill = self.build()
            self.apply(skill)
        except GuiAgentError as exc:
            self.error.setText(str(exc))
            self.error.setVisible(True)
            return False
        self.accept()
        return True


class NumberBox(QDoubleSpinBox):
    """A number field that shows 2 as "2" and 2.5 as "2.5", not "2.000000"."""

    def textFromValue(self, value: float) -> str:
        return f"{value:.6f}".rstrip("0").rstrip(".")


class RunSkillDialog(QDialog):
    """One typed field per parameter: a line for text, a number box, a list for choices.
    ``run_requested(name, values)`` carries the values typed (str or float)."""

    run_requested = Signal(str, dict)

    def __init__(self, skill: Skill, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.skill = skill
        self.setWindowTitle(f"Run skill: {skill.name}")
        self.fields: dict[str, QWidget] = {}
        self.errors: dict[str, QLabel] = {}
        form = QFormLayout()
        for p in skill.parameters:
            widget = self._field(p)
            widget.setObjectName(p.name)
            if p.description:
                widget.setToolTip(p.description)
            self.fields[p.name] = widget
            form.addRow(p.name, widget)
            self.errors[p.name] = _error_label()
            form.addRow(self.errors[p.name])
        self.preview = QLabel()
        self.preview.setWordWrap(True)
        self.preview.setStyleSheet("color: #374151; font-family: monospace;")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.run_button = buttons.addButton("Run", QDialogButtonBox.ButtonRole.AcceptRole)
        self.run_button.setDefault(True)
        buttons.accepted.connect(self.run)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        if not skill.parameters:
            layout.addWidget(QLabel("This skill takes no parameters."))
        layout.addLayout(form)
        layout.addWidget(QLabel("It will do:"))
        layout.addWidget(self.preview)
        layout.addWidget(buttons)
        for widget in self.fields.values():
            if isinstance(widget, QDoubleSpinBox):
                widget.valueChanged.connect(self._update_preview)
            elif isinstance(widget, QComboBox):
                widget.currentTextChanged.connect(self._update_preview)
            else:
                widget.textChanged.connect(self._update_preview)
        self._update_preview()

    @staticmethod
    def _field(p: SkillParameter) -> QWidget:
        if p.kind == "number":
            box = NumberBox()
            box.setRange(-NUMBER_RANGE, NUMBER_RANGE)
            box.setDecimals(6)
            box.setValue(float(p.default) if p.default is not None else 0.0)
            return box
        if p.kind == "choice":
            combo = QComboBox()
            combo.addItems(list(p.choices))
            if p.default is not None:
                combo.setCurrentText(str(p.default))
            return combo
        line = QLineEdit("" if p.default is None else str(p.default))
        line.setPlaceholderText(p.description or f"a value for {p.name}")
        return line

    def set_value(self, name: str, value: Any) -> None:
        widget = self.fields[name]
        if isinstance(widget, QDoubleSpinBox):
            widget.setValue(float(value))
        elif isinstance(widget, QComboBox):
            widget.setCurrentText(str(value))
        else:
            widget.setText(str(value))

    def raw_values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, widget in self.fields.items():
            if isinstance(widget, QDoubleSpinBox):
                out[name] = widget.value()
            elif isinstance(widget, QComboBox):
                out[name] = widget.currentText()
            else:
                out[name] = widget.text()
        return out

    def values(self) -> dict[str, str | float] | None:
        """The typed values, or None with the faults shown under their fields."""
        problems: dict[str, str] = {}
        out: dict[str, str | float] = {}
        for p in self.skill.parameters:
            raw = self.raw_values()[p.name]
            if isinstance(raw, str) and not raw.strip():
                problems[p.name] = f"{p.name} needs a value"
                continue
            try:
                out[p.name] = p.coerce(raw)
            except GuiAgentError as exc:
                problems[p.name] = str(exc)
        for name, label in self.errors.items():
            label.setText(problems.get(name, ""))
            label.setVisible(name in problems)
        return None if problems else out

    def _update_preview(self) -> None:
        try:
            lines = self.skill.render({k: v for k, v in self.raw_values().items() if v != ""})
        except GuiAgentError as exc:
            self.preview.setText(f"(fill in the values: {exc})")
            return
        self.preview.setText("\n".join(f"{i}. {line}" for i, line in enumerate(lines, 1)))

    def run(self) -> bool:
        values = self.values()
        if values is None:
            return False
        self.run_requested.emit(self.skill.name, values)
        self.accept()
        return True
