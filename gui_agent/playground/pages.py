"""The playground's Login, Settings, Items and Contacts pages (imports Qt).

Visible texts are chosen so that each clickable target is unique on its screen, except
the Contacts page's three "Edit" buttons, which are identical on purpose (ordinal and
relational targets: 'the Edit button next to Bob', 'the 2nd Edit button').
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gui_agent.playground.dialogs import ConfirmDialog, SettingsDialog
from gui_agent.playground.state import CONTACTS, StateRecorder


def heading(text: str, scale: float = 1.4) -> QLabel:
    label = QLabel(text)
    font = QFont(label.font())
    font.setPointSizeF(font.pointSizeF() * scale)
    font.setBold(True)
    label.setFont(font)
    return label


def page_layout(page: QWidget, title: str, blurb: str) -> QVBoxLayout:
    layout = QVBoxLayout(page)
    layout.setContentsMargins(24, 18, 24, 18)
    layout.setSpacing(12)
    layout.addWidget(heading(title))
    text = QLabel(blurb)
    text.setWordWrap(True)
    layout.addWidget(text)
    return layout


class LoginPage(QWidget):
    """Username / Password / Remember me / Log in; any non-empty pair logs in."""

    logged_in = Signal(object)  # the user name, or None after a failed attempt

    def __init__(self, recorder: StateRecorder) -> None:
        super().__init__()
        self._recorder = recorder
        outer = QVBoxLayout(self)
        outer.setContentsMargins(24, 40, 24, 24)
        card = QFrame()
        card.setFrameShape(QFrame.Shape.StyledPanel)
        card.setFixedWidth(500)
        layout = page_layout(card, "Sign in", "Sign in with any user name and password.")
        form = QFormLayout()
        form.setHorizontalSpacing(16)
        form.setVerticalSpacing(12)
        self.username_edit = QLineEdit()
        self.password_edit = QLineEdit()
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.username_edit.setAccessibleName("Username")
        self.password_edit.setAccessibleName("Password")
        form.addRow("Username", self.username_edit)
        form.addRow("Password", self.password_edit)
        self.remember_check = QCheckBox("Remember me")
        form.addRow("", self.remember_check)
        layout.addLayout(form)
        self.login_button = QPushButton("Log in")
        self.login_button.setMinimumWidth(110)
        self.login_button.setAutoDefault(True)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.login_button)
        layout.addLayout(row)
        self.status_label = QLabel("")
        layout.addWidget(self.status_label)
        centred = QHBoxLayout()
        centred.addStretch(1)
        centred.addWidget(card)
        centred.addStretch(1)
        outer.addLayout(centred)
        outer.addStretch(1)
        self.username_edit.textChanged.connect(lambda t: recorder.update("login", username=t))
        self.password_edit.textChanged.connect(
            lambda t: recorder.update("login", password_length=len(t))
        )
        self.remember_check.toggled.connect(self._remember_toggled)
        self.login_button.clicked.connect(self._log_in)
        self.password_edit.returnPressed.connect(self._log_in)

    def _remember_toggled(self, checked: bool) -> None:
        self._recorder.update("login", remember_me=checked)
        self._recorder.event("toggle", text="Remember me", checked=checked)

    def _log_in(self) -> None:
        self._recorder.click("Log in", "Login")
        username = self.username_edit.text().strip()
        attempts = self._recorder.get("login")["attempts"] + 1
        if username and self.password_edit.text():
            status, logged_in_as = f"Welcome, {username}!", username
        else:
            status, logged_in_as = "Invalid credentials", None
        self.status_label.setText(status)
        self._recorder.update("login", status=status, logged_in_as=logged_in_as, attempts=attempts)
        self._recorder.event("login", ok=logged_in_as is not None, username=username)
        self.logged_in.emit(logged_in_as)


def on_off(value: bool) -> str:
    return "on" if value else "off"


class SettingsPage(QWidget):
    """A summary of the applied settings and the button that opens the Settings dialog."""

    def __init__(self, recorder: StateRecorder) -> None:
        super().__init__()
        self._recorder = recorder
        self.dialog: SettingsDialog | None = None
        layout = page_layout(
            self, "Preferences", "Review your preferences, or change them in the settings dialog."
        )
        self.open_button = QPushButton("Open settings…")
        self.open_button.clicked.connect(self.open_dialog)
        row = QHBoxLayout()
        row.addWidget(self.open_button)
        row.addStretch(1)
        layout.addLayout(row)
        summary_box = QGroupBox("Current preferences")
        summary_layout = QVBoxLayout(summary_box)
        self.summary_label = QLabel()
        self.summary_label.setTextFormat(Qt.TextFormat.PlainText)
        summary_layout.addWidget(self.summary_label)
        layout.addWidget(summary_box)
        layout.addStretch(1)
        self.refresh()

    def refresh(self) -> None:
        s = self._recorder.get("settings")["applied"]
        profile = f"{s['name'] or '(no name)'} <{s['email'] or 'no email'}>"
        self.summary_label.setText(
            "\n".join(
                [
                    f"Profile: {profile}",
                    f"Notifications are {on_off(s['notifications'])}",
                    f"Automatic saving is {on_off(s['auto_save'])}",
                    f"Line numbering is {on_off(s['line_numbers'])}",
                    f"Text size: {s['size'].lower()}",
                    f"Accent: {s['color'].lower()}",
                    f"Retry count: {s['retries']}",
                    f"Detailed logs are {on_off(s['verbose_logging'])}",
                ]
            )
        )

    def open_dialog(self) -> None:
        self._recorder.click("Open settings…", "Settings")
        self.dialog = SettingsDialog(self._recorder, self)
        self.dialog.apply_button.clicked.connect(self.refresh)
        self.dialog.finished.connect(self._dialog_finished)
        self.dialog.present()

    def _dialog_finished(self, _result: int) -> None:
        self.refresh()
        if self.dialog is not None:
            self.dialog.deleteLater()
        self.dialog = None


class ItemsPage(QWidget):
    """A list with Add and Delete; Delete asks for confirmation first."""

    def __init__(self, recorder: StateRecorder) -> None:
        super().__init__()
        self._recorder = recorder
        self.confirm_dialog: ConfirmDialog | None = None
        layout = page_layout(
            self, "Shopping list", "Add items to the list, or select one and delete it."
        )
        body = QHBoxLayout()
        self.list_widget = QListWidget()
        self.list_widget.addItems(recorder.get("items")["list"])
        self.list_widget.setFixedWidth(320)
        self.list_widget.setSpacing(2)
        body.addWidget(self.list_widget)
        side = QVBoxLayout()
        side.setSpacing(8)
        side.addWidget(QLabel("New item"))
        self.new_item_edit = QLineEdit()
        self.new_item_edit.setFixedWidth(240)
        self.new_item_edit.setAccessibleName("New item")
        side.addWidget(self.new_item_edit)
        self.add_button = QPushButton("Add")
        self.delete_button = QPushButton("Delete")
        for button in (self.add_button, self.delete_button):
            button.setFixedWidth(100)
        side.addWidget(self.add_button)
        side.addSpacing(18)
        side.addWidget(self.delete_button)
        side.addStretch(1)
        body.addLayout(side)
        body.addStretch(1)
        layout.addLayout(body, 1)
        self.status_label = QLabel("")
        layout.addWidget(self.status_label)
        self.new_item_edit.textChanged.connect(lambda t: recorder.update("items", new_item=t))
        self.new_item_edit.returnPressed.connect(self.add_item)
        self.add_button.clicked.connect(self.add_item)
        self.delete_button.clicked.connect(self.ask_delete)
        self.list_widget.currentTextChanged.connect(self._selected)

    def items(self) -> list[str]:
        return [self.list_widget.item(i).text() for i in range(self.list_widget.count())]

    def _selected(self, text: str) -> None:
        self._recorder.update("items", selected=text or None)

    def _status(self, text: str) -> None:
        self.status_label.setText(text)

    def add_item(self) -> None:
        self._recorder.click("Add", "Items")
        name = self.new_item_edit.text().strip()
        if not name:
            self._status("Type a name in New item first")
            return
        self.list_widget.addItem(name)
        self.new_item_edit.clear()
        self._recorder.update("items", list=self.items())
        self._recorder.event("item_added", name=name)
        self._status(f"Added '{name}'")

    def ask_delete(self) -> None:
        self._recorder.click("Delete", "Items")
        item = self.list_widget.currentItem()
        if item is None:
            self._status("Select an item to delete first")
            return
        name = item.text()
        self.confirm_dialog = ConfirmDialog(
            "Confirm delete", f"Delete '{name}'?", self._recorder, self
        )
        self.confirm_dialog.finished.connect(lambda result: self._delete_answered(name, result))
        self.confirm_dialog.present()

    def _delete_answered(self, name: str, result: int) -> None:
        if self.confirm_dialog is not None:
            self.confirm_dialog.deleteLater()
        self.confirm_dialog = None
        if result != ConfirmDialog.DialogCode.Accepted:
            self._status(f"Kept '{name}'")
            return
        rows = [
            i for i in range(self.list_widget.count()) if self.list_widget.item(i).text() == name
        ]
        if rows:
            self.list_widget.takeItem(rows[0])
        deleted = self._recorder.get("items")["deleted"] + [name]
        self._recorder.update("items", list=self.items(), deleted=deleted)
        self._recorder.event("item_deleted", name=name)
        self._status(f"Deleted '{name}'")


class ContactsPage(QWidget):
    """A table-like panel: one row per contact, each with its own (identical) Edit button."""

    def __init__(self, recorder: StateRecorder) -> None:
        super().__init__()
        self._recorder = recorder
        layout = page_layout(self, "Address book", "Choose a contact to edit.")
        frame = QFrame()
        frame.setFrameShape(QFrame.Shape.StyledPanel)
        grid = QGridLayout(frame)
        grid.setHorizontalSpacing(32)
        grid.setVerticalSpacing(10)
        bold = QFont(self.font())
        bold.setBold(True)
        for column, title in enumerate(("Name", "Email", "Action")):
            label = QLabel(title)
            label.setFont(bold)
            grid.addWidget(label, 0, column)
        self.edit_buttons: list[QPushButton] = []
        emails = dict(CONTACTS)
        for row, name in enumerate(recorder.get("contacts")["rows"], start=1):  # shown order
            email = emails[name]
            grid.addWidget(QLabel(name), row, 0)
            grid.addWidget(QLabel(email), row, 1)
            button = QPushButton("Edit")
            button.setFixedWidth(80)
            button.clicked.connect(lambda _=False, i=row - 1, n=name: self._edit(i, n))
            grid.addWidget(button, row, 2)
            self.edit_buttons.append(button)
        grid.setColumnStretch(3, 1)
        layout.addWidget(frame)
        self.status_label = QLabel("")
        layout.addWidget(self.status_label)
        layout.addStretch(1)

    def _edit(self, index: int, name: str) -> None:
        self._recorder.click("Edit", name)
        self._recorder.update("contacts", last_edit={"name": name, "index": index})
        self.status_label.setText(f"Editing {name}")
