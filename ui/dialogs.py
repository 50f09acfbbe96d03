"""The questions the agent asks the person: allow a risky action, or answer a question.

MainWindow calls these through the module (``dialogs.ask_confirmation``) so tests can
replace them with scripted answers.
"""

from __future__ import annotations

from PySide6.QtWidgets import QInputDialog, QLineEdit, QMessageBox, QWidget


def ask_confirmation(parent: QWidget | None, action: str, target: str, reason: str) -> bool:
    """Allow once / Deny for one action; Deny is the default and what Escape chooses."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("gui-agent asks before acting")
    box.setText(f"The agent wants to:\n\n    {action}")
    details = f"Why it asks: {reason}" if reason else "This action needs your permission."
    if target:
        details += f"\n\nOn: {target}"
    box.setInformativeText(details)
    allow = box.addButton("Allow once", QMessageBox.ButtonRole.AcceptRole)
    deny = box.addButton("Deny", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(deny)
    box.setEscapeButton(deny)
    box.exec()
    return box.clickedButton() is allow


def ask_text(parent: QWidget | None, question: str) -> str | None:
    """The person's answer to the agent's question; None when cancelled or left empty."""
    text, ok = QInputDialog.getText(parent, "gui-agent has a question", question,
                                    QLineEdit.EchoMode.Normal, "")
    text = text.strip()
    return text if ok and text else None
