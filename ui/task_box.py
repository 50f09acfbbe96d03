"""The task box: a line edit that walks through past tasks with Up/Down and completes them."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QStringListModel, Qt
from PySide6.QtWidgets import QCompleter, QLineEdit, QWidget


class TaskBox(QLineEdit):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPlaceholderText('What should the agent do? e.g. click the Contacts tab, then click "Edit"')
        self.setClearButtonEnabled(True)
        self._history: list[str] = []
        self._position = -1          # -1: the text being typed, 0: newest past task, ...
        self._draft = ""
        self._model = QStringListModel(self)
        completer = QCompleter(self._model, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.setCompleter(completer)

    def set_history(self, tasks: list[str]) -> None:
        """Past tasks, newest first."""
        self._history = list(tasks)
        self._position = -1
        self._model.setStringList(self._history)

    @property
    def history(self) -> list[str]:
        return list(self._history)

    def keyPressEvent(self, event: Any) -> None:
        popup = self.completer().popup()
        if popup is not None and popup.isVisible():
            super().keyPressEvent(event)
            return
        if event.key() == Qt.Key.Key_Up and self._history:
            if self._position == -1:
                self._draft = self.text()
            self._position = min(self._position + 1, len(self._history) - 1)
            self.setText(self._history[self._position])
            return
        if event.key() == Qt.Key.Key_Down and self._position >= 0:
            self._position -= 1
            self.setText(self._draft if self._position == -1 else self._history[self._position])
            return
        super().keyPressEvent(event)
