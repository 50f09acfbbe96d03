"""The task box: a line edit that walks through past tasks with Up/Down and suggests, as you type,
past tasks containing the text and the library's best skills for it (see ``skill_suggestions``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import QCompleter, QLineEdit, QWidget

from .skill_suggestions import RECALL_ROLE, SuggestionModel


class TaskBox(QLineEdit):
    skill_chosen = Signal(object)        # the chosen skill's Recall (skill, values read from the text)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPlaceholderText('What should the agent do? e.g. click the Contacts tab, then click "Edit"')
        self.setClearButtonEnabled(True)
        self._history: list[str] = []
        self._position = -1          # -1: the text being typed, 0: newest past task, ...
        self._draft = ""
        self.suggest: Callable[[str], list[Any]] | None = None   # text -> Recalls (the app sets it)
        self._model = SuggestionModel(self)
        completer = QCompleter(self._model, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)     # a skill row's text is what was typed
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        completer.activated[QModelIndex].connect(self._activated)
        self.setCompleter(completer)
        self.textEdited.connect(self._update_suggestions)

    def set_history(self, tasks: list[str]) -> None:
        """Past tasks, newest first."""
        self._history = list(tasks)
        self._position = -1
        self._model.set_history(self._history)

    @property
    def history(self) -> list[str]:
        return list(self._history)

    def _update_suggestions(self, text: str) -> None:
        recalls = self.suggest(text) if self.suggest is not None and text.strip() else []
        self._model.set_rows(self._history, recalls, text)

    def suggestions(self) -> list[str]:
        """What the popup lists now (display texts): past tasks containing the text, then skills."""
        model = self.completer().completionModel()
        return [model.index(r, 0).data() for r in range(model.rowCount())]

    def _activated(self, index: QModelIndex) -> None:
        recall = index.data(RECALL_ROLE)
        if recall is not None:
            self.skill_chosen.emit(recall)

    def _current_recall(self) -> Any:
        popup = self.completer().popup()
        index = popup.currentIndex() if popup is not None else QModelIndex()
        return index.data(RECALL_ROLE) if index.isValid() else None

    def keyPressEvent(self, event: Any) -> None:
        popup = self.completer().popup()
        if popup is not None and popup.isVisible():
            recall = self._current_recall()
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and recall is not None:
                event.accept()      # a skill was chosen: its form opens, the task box does not run
                popup.hide()
                self.skill_chosen.emit(recall)
                return
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
