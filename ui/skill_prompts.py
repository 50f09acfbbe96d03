"""The skill library's questions to the person and its file choices.

The library calls them through this module (``prompts.confirm(...)``), so tests replace them
with scripted answers and never block on a modal dialog.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QInputDialog, QLineEdit, QMessageBox, QWidget

FILE_FILTER = "gui-agent skill (*.zip);;All files (*)"


def ask_text(parent: QWidget | None, title: str, label: str, text: str = "") -> str | None:
    value, ok = QInputDialog.getText(parent, title, label, QLineEdit.EchoMode.Normal, text)
    return value.strip() if ok and value.strip() else None


def confirm(parent: QWidget | None, title: str, text: str) -> bool:
    answer = QMessageBox.question(parent, title, text, QMessageBox.StandardButton.Yes
                                  | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
    return answer == QMessageBox.StandardButton.Yes


def show_error(parent: QWidget | None, title: str, text: str) -> None:
    QMessageBox.warning(parent, title, text)


def choose_save_file(parent: QWidget | None, title: str, suggested: str) -> Path | None:
    chosen, _ = QFileDialog.getSaveFileName(parent, title, suggested, FILE_FILTER)
    return Path(chosen) if chosen else None


def choose_open_file(parent: QWidget | None, title: str) -> Path | None:
    chosen, _ = QFileDialog.getOpenFileName(parent, title, str(Path.home()), FILE_FILTER)
    return Path(chosen) if chosen else None


def ask_clash(parent: QWidget | None, name: str) -> str | None:
    """A skill called ``name`` exists: "replace", "rename" (import under another name) or None."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Import skill")
    box.setText(f"A skill named “{name}” is already in the library.")
    replace = box.addButton("Replace it", QMessageBox.ButtonRole.DestructiveRole)
    rename = box.addButton("Import under another name…", QMessageBox.ButtonRole.AcceptRole)
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(rename)
    box.setEscapeButton(cancel)
    box.exec()
    clicked = box.clickedButton()
    return "replace" if clicked is replace else "rename" if clicked is rename else None
