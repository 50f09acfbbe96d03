"""In-app modal dialogs of the playground (imports Qt).

Dialogs are frameless with a drawn title strip and border, so they look like windows
both under a window manager and on a bare Xvfb (where nothing would decorate them), and
they are centred on their parent. They are shown with ``open()`` (modal, non-blocking) so
tests and the agent drive them through the normal event loop; ``dialog`` in the state
file names the one that is open.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QPainter, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gui_agent.playground.perturb import apply_renames
from gui_agent.playground.state import SETTINGS_DEFAULTS, StateRecorder

COLORS = ("Red", "Green", "Blue", "Yellow")
SIZES = ("Small", "Medium", "Large")


class FramedDialog(QDialog):
    """A modal dialog with a visible title strip and border; reports itself in the state."""

    def __init__(self, title: str, recorder: StateRecorder, parent: QWidget) -> None:
        super().__init__(parent, Qt.WindowType.Dialog | Qt.WindowType.FramelessWindowHint)
        self.setWindowTitle(title)
        self.setModal(True)
        self._recorder = recorder
        outer = QVBoxLayout(self)
        outer.setContentsMargins(1, 1, 1, 1)
        outer.setSpacing(0)
        self.title_label = QLabel(title)
        self.title_label.setAutoFillBackground(True)
        self.title_label.setBackgroundRole(QPalette.ColorRole.Highlight)
        self.title_label.setForegroundRole(QPalette.ColorRole.HighlightedText)
        bold = QFont(self.font())
        bold.setBold(True)
        self.title_label.setFont(bold)
        self.title_label.setContentsMargins(10, 6, 10, 6)
        outer.addWidget(self.title_label)
        body_widget = QWidget()
        self.body = QVBoxLayout(body_widget)
        self.body.setContentsMargins(14, 12, 14, 12)
        self.body.setSpacing(10)
        outer.addWidget(body_widget)
        self.finished.connect(self._on_finished)

    def present(self) -> None:
        """Show modally, centred over the parent window, and take the keyboard focus.

        Texts the main window renames (``--rename``) are renamed here too.
        """
        parent = self.parentWidget().window()
        apply_renames(self, getattr(parent, "renames", {}))
        self.adjustSize()
        centre = parent.geometry().center()
        self.move(centre.x() - self.width() // 2, centre.y() - self.height() // 2)
        self._recorder.set("dialog", self.windowTitle())
        self._recorder.event("dialog_opened", title=self.windowTitle())
        self.open()
        self.raise_()
        self.activateWindow()

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt API)
        super().paintEvent(event)
        painter = QPainter(self)
        painter.setPen(self.palette().color(QPalette.ColorRole.Dark))
        painter.drawRect(self.rect().adjusted(0, 0, -1, -1))
        painter.end()

    def _on_finished(self, result: int) -> None:
        accepted = result == QDialog.DialogCode.Accepted
        self._recorder.set("dialog", None)
        self._recorder.event("dialog_closed", title=self.windowTitle(), accepted=accepted)


def button_row(*buttons: QPushButton) -> QHBoxLayout:
    row = QHBoxLayout()
    row.addStretch(1)
    for button in buttons:
        button.setMinimumWidth(88)
        row.addWidget(button)
    return row


class ConfirmDialog(FramedDialog):
    """'Delete 'Bananas'?' with Yes / No."""

    def __init__(self, title: str, question: str, recorder: StateRecorder, parent: QWidget):
        super().__init__(title, recorder, parent)
        self.question_label = QLabel(question)
        self.body.addWidget(self.question_label)
        self.yes_button = QPushButton("Yes")
        self.no_button = QPushButton("No")
        self.yes_button.clicked.connect(lambda: recorder.click("Yes", title))
        self.no_button.clicked.connect(lambda: recorder.click("No", title))
        self.yes_button.clicked.connect(self.accept)
        self.no_button.clicked.connect(self.reject)
        self.no_button.setDefault(True)
        self.body.addLayout(button_row(self.yes_button, self.no_button))
        self.setMinimumWidth(320)


class FileNameDialog(FramedDialog):
    """A small stand-in for a file dialog: a 'File name' field and Save/Open + Cancel.

    (The native QFileDialog is awkward with no window manager.) ``chosen_path`` is set on accept.
    """

    def __init__(
        self,
        title: str,
        action_text: str,
        directory: Path,
        initial_name: str,
        recorder: StateRecorder,
        parent: QWidget,
        *,
        must_exist: bool = False,
    ) -> None:
        super().__init__(title, recorder, parent)
        self.directory = directory
        self.must_exist = must_exist
        self.chosen_path: Path | None = None
        form = QFormLayout()
        self.folder_label = QLabel()
        width = self.fontMetrics().averageCharWidth() * 40
        self.folder_label.setText(
            self.fontMetrics().elidedText(str(directory), Qt.TextElideMode.ElideMiddle, width)
        )
        self.name_edit = QLineEdit(initial_name)
        self.name_edit.setMinimumWidth(280)
        self.name_edit.setAccessibleName("File name")
        form.addRow("Folder", self.folder_label)
        form.addRow("File name", self.name_edit)
        self.body.addLayout(form)
        self.error_label = QLabel("")
        self.error_label.hide()
        self.body.addWidget(self.error_label)
        self.action_button = QPushButton(action_text)
        self.cancel_button = QPushButton("Cancel")
        self.action_button.setDefault(True)
        self.action_button.clicked.connect(lambda: recorder.click(action_text, title))
        self.cancel_button.clicked.connect(lambda: recorder.click("Cancel", title))
        self.action_button.clicked.connect(self._try_accept)
        self.cancel_button.clicked.connect(self.reject)
        self.body.addLayout(button_row(self.action_button, self.cancel_button))
        self.name_edit.selectAll()
        self.name_edit.setFocus()

    def _error(self, text: str) -> None:
        self.error_label.setText(text)
        self.error_label.show()
        self._recorder.event("error", title=self.windowTitle(), text=text)

    def _try_accept(self) -> None:
        name = self.name_edit.text().strip()
        if not name or "/" in name or "\\" in name or name in (".", ".."):
            self._error("Enter a file name without folders")
            return
        path = self.directory / name
        if self.must_exist and not path.is_file():
            self._error(f"No file named {name}")
            return
        self.chosen_path = path
        self.accept()


class SettingsDialog(FramedDialog):
    """Settings with General / Advanced tabs and OK / Cancel / Apply.

    Every edit updates ``settings.pending``; Apply and OK copy it to ``settings.applied``;
    Cancel (or closing) drops pending edits.
    """

    def __init__(self, recorder: StateRecorder, parent: QWidget) -> None:
        super().__init__("Settings", recorder, parent)
        self.tabs = QTabWidget()
        self.tabs.addTab(self._general_tab(), "General")
        self.tabs.addTab(self._advanced_tab(), "Advanced")
        self.body.addWidget(self.tabs)
        self.ok_button = QPushButton("OK")
        self.cancel_button = QPushButton("Cancel")
        self.apply_button = QPushButton("Apply")
        for button in (self.ok_button, self.cancel_button, self.apply_button):
            text = button.text()
            button.clicked.connect(lambda _=False, t=text: recorder.click(t, "Settings"))
        self.ok_button.setDefault(True)
        self.ok_button.clicked.connect(self._ok)
        self.apply_button.clicked.connect(self.apply)
        self.cancel_button.clicked.connect(self.reject)
        self.body.addLayout(button_row(self.ok_button, self.cancel_button, self.apply_button))
        self.load(recorder.get("settings")["applied"])
        self._connect_changes()
        self.tabs.currentChanged.connect(self._tab_changed)
        recorder.update("settings", dialog_tab="General")
        self.setMinimumWidth(self.fontMetrics().averageCharWidth() * 60)

    def _general_tab(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        form = QFormLayout()
        self.name_edit = QLineEdit()
        self.email_edit = QLineEdit()
        self.color_combo = QComboBox()
        self.color_combo.addItems(COLORS)
        self.name_edit.setAccessibleName("Name")
        self.email_edit.setAccessibleName("Email")
        self.color_combo.setAccessibleName("Color")
        form.addRow("Name", self.name_edit)
        form.addRow("Email", self.email_edit)
        form.addRow("Color", self.color_combo)
        layout.addLayout(form)
        options = QGroupBox("Options")
        options_layout = QVBoxLayout(options)
        self.notifications_check = QCheckBox("Enable notifications")
        self.auto_save_check = QCheckBox("Auto-save")
        self.line_numbers_check = QCheckBox("Show line numbers")
        for check in (self.notifications_check, self.auto_save_check, self.line_numbers_check):
            options_layout.addWidget(check)
        size_box = QGroupBox("Size")
        size_layout = QHBoxLayout(size_box)
        size_layout.setSpacing(36)  # well apart, so OCR reads three words, not one line
        self.size_radios = {name: QRadioButton(name) for name in SIZES}
        for radio in self.size_radios.values():
            size_layout.addWidget(radio)
        size_layout.addStretch(1)
        layout.addWidget(options)
        layout.addWidget(size_box)
        return page

    def _advanced_tab(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        form = QFormLayout()
        self.retries_spin = QSpinBox()
        self.retries_spin.setRange(0, 10)
        self.retries_spin.setAccessibleName("Retries")
        form.addRow("Retries", self.retries_spin)
        layout.addLayout(form)
        self.verbose_check = QCheckBox("Verbose logging")
        layout.addWidget(self.verbose_check)
        layout.addStretch(1)
        return page

    def load(self, values: dict) -> None:
        """Put ``values`` (a settings dict) into the widgets."""
        merged = {**SETTINGS_DEFAULTS, **values}
        self.name_edit.setText(merged["name"])
        self.email_edit.setText(merged["email"])
        self.color_combo.setCurrentText(merged["color"])
        self.notifications_check.setChecked(merged["notifications"])
        self.auto_save_check.setChecked(merged["auto_save"])
        self.line_numbers_check.setChecked(merged["line_numbers"])
        self.size_radios[merged["size"]].setChecked(True)
        self.retries_spin.setValue(merged["retries"])
        self.verbose_check.setChecked(merged["verbose_logging"])

    def values(self) -> dict:
        """The settings as the widgets show them now."""
        size = next(name for name, radio in self.size_radios.items() if radio.isChecked())
        return {
            "name": self.name_edit.text(),
            "email": self.email_edit.text(),
            "notifications": self.notifications_check.isChecked(),
            "auto_save": self.auto_save_check.isChecked(),
            "line_numbers": self.line_numbers_check.isChecked(),
            "size": size,
            "color": self.color_combo.currentText(),
            "retries": self.retries_spin.value(),
            "verbose_logging": self.verbose_check.isChecked(),
        }

    def apply(self) -> None:
        values = self.values()
        settings = self._recorder.get("settings")
        self._recorder.update(
            "settings", applied=values, pending=values, apply_count=settings["apply_count"] + 1
        )
        self._recorder.event("settings_applied", **values)

    def _ok(self) -> None:
        self.apply()
        self.accept()

    def _connect_changes(self) -> None:
        for edit in (self.name_edit, self.email_edit):
            edit.textChanged.connect(self._changed)
        for check in (
            self.notifications_check,
            self.auto_save_check,
            self.line_numbers_check,
            self.verbose_check,
            *self.size_radios.values(),
        ):
            check.toggled.connect(self._changed)
        self.color_combo.currentTextChanged.connect(self._changed)
        self.retries_spin.valueChanged.connect(self._changed)

    def _changed(self, *_args) -> None:
        if any(radio.isChecked() for radio in self.size_radios.values()):
            self._recorder.update_nested("settings", "pending", **self.values())

    def _tab_changed(self, index: int) -> None:
        name = ("General", "Advanced")[index]   # the tab's own name, even when shown renamed
        self._recorder.update("settings", dialog_tab=name)
        self._recorder.event("dialog_tab", title="Settings", tab=name)

    def _on_finished(self, result: int) -> None:
        applied = self._recorder.get("settings")["applied"]
        self._recorder.update("settings", pending=applied, dialog_tab=None)
        super()._on_finished(result)
