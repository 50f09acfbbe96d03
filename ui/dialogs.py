"""The questions the agent asks the person: allow a risky action, or answer a question.

MainWindow calls these through the module (``dialogs.confirm_action``, ``dialogs.ask_text``) so
tests can replace them with scripted answers. ``confirm_action`` is the full question (the
screenshot with the action drawn on it; Allow once / Always for this task / Deny);
``ask_confirmation`` is the plain Allow once / Deny form; a script that replaces it (as tests
did before "Always" existed) answers every confirmation through it.
"""

from __future__ import annotations

from typing import Any

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


_PLAIN = ask_confirmation


def confirm_action(parent: QWidget | None, request: Any) -> str:
    """"once", "always" or "deny" for a :class:`ui.confirm_dialog.ConfirmRequest`."""
    from .confirm_dialog import DENY, ONCE, ConfirmDialog

    if ask_confirmation is not _PLAIN:
        allowed = ask_confirmation(parent, request.action, request.target, request.reason)
        return ONCE if allowed else DENY
    return ConfirmDialog(request, parent).ask()


def ask_text(parent: QWidget | None, question: str) -> str | None:
    """The person's answer to the agent's question; None when cancelled or left empty."""
    text, ok = QInputDialog.getText(parent, "gui-agent has a question", question,
                                    QLineEdit.EchoMode.Normal, "")
    text = text.strip()
    return text if ok and text else None
