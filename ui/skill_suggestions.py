"""Suggestions in the task box: past tasks that contain the typed text, then the skills the
library ranks best for it (``SkillIndex.rank``), each shown with its name and description.

Choosing a past task puts it in the box, as before. Choosing a skill opens the library's
parameters form (:class:`ui.skill_forms.RunSkillDialog`) with the values recall read from the
typed text already filled in; its Run replays exactly that skill. That is what a person picking
a *skill* expects: the skill runs, with values they can see and correct first. (Filling the box
with one of the skill's example phrasings instead would replace their words with someone else's,
and whether that phrasing then runs the skill would depend on recall and the memory settings.)

The memory store is opened on the first keystroke that needs it, read once, and closed; the
index is rebuilt after ``invalidate()`` (a run or a recording may have added skills) or when it
is older than ``max_age`` seconds. Any failure only turns skill suggestions off: typing goes on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QStringListModel, Qt
from PySide6.QtGui import QColor

log = logging.getLogger(__name__)

RECALL_ROLE = Qt.ItemDataRole.UserRole + 7
MIN_SCORE = 0.1         # a skill under this score shares (almost) no word with the typed text
MIN_CHARS = 3
SKILL_COLOUR = QColor("#1d4ed8")


class SkillSuggester:
    """``suggest(text)`` -> the best skills for ``text`` (``Recall``s, best first); [] on any problem."""

    def __init__(self, settings_loader: Callable[[], Any], *, limit: int = 3, min_score: float = MIN_SCORE,
                 max_age: float = 30.0) -> None:
        self.settings_loader = settings_loader
        self.limit = limit
        self.min_score = min_score
        self.max_age = max_age
        self.error = ""
        self.loads = 0
        self._index: Any = None
        self._loaded_at = 0.0
        self._failed = False

    def invalidate(self) -> None:
        self._index, self._failed = None, False

    def index(self) -> Any:
        """The SkillIndex over the library (None when there is no library or it cannot be read)."""
        stale = time.monotonic() - self._loaded_at > self.max_age
        if self._failed and not stale:
            return None
        if self._index is None or stale:
            self._index = self._load()
        return self._index

    def _load(self) -> Any:
        self._loaded_at = time.monotonic()
        self.loads += 1
        try:
            from gui_agent import MemoryStore, SkillIndex, default_memory_path

            path = self.settings_loader().memory_path or default_memory_path()
            if not path.exists():          # never create a memory database by typing
                self._failed, self.error = False, ""
                return SkillIndex([])
            with MemoryStore(path) as store:
                skills = store.list_skills()
        except Exception as exc:  # a locked, foreign or broken store: no suggestions, typing goes on
            log.warning("no skill suggestions: %s", exc)
            self._failed, self.error = True, str(exc)
            return None
        self._failed, self.error = False, ""
        return SkillIndex(skills)

    def suggest(self, text: str) -> list[Any]:
        if len(text.strip()) < MIN_CHARS:
            return []
        index = self.index()
        if index is None:
            return []
        try:
            ranked = index.rank(text, self.limit)
        except Exception as exc:
            log.warning("ranking skills for %r failed: %s", text, exc)
            return []
        return [r for r in ranked if r.score >= self.min_score]


class SuggestionModel(QStringListModel):
    """Rows: past tasks (their own text), then skills. The completer filters the rows by their
    text (contains, as it always did for past tasks); a skill row's text is what was typed, so it
    always stays, and highlighting it leaves the box alone. It shows the skill's name and
    description and holds its ``Recall`` under ``RECALL_ROLE``."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.recalls: dict[int, Any] = {}

    def set_history(self, tasks: list[str]) -> None:
        self.recalls = {}
        self.setStringList(list(tasks))

    def set_rows(self, tasks: list[str], recalls: list[Any], typed: str) -> None:
        self.recalls = {len(tasks) + i: r for i, r in enumerate(recalls)}
        self.setStringList(list(tasks) + [typed] * len(recalls))

    def recall_at(self, row: int) -> Any:
        return self.recalls.get(row)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        recall = self.recalls.get(index.row()) if index.isValid() else None
        if recall is None:
            return None if role == RECALL_ROLE else super().data(index, role)
        skill = recall.skill
        if role == Qt.ItemDataRole.DisplayRole:
            return f"Skill: {skill.name}" + (f" — {skill.description}" if skill.description else "")
        if role == Qt.ItemDataRole.ToolTipRole:
            values = ", ".join(f"{k}={v}" for k, v in recall.values.items())
            return (f"{skill.description or skill.name}\n{len(skill.steps)} steps"
                    + (f"; values from your text: {values}" if values else "")
                    + "\nChoose it to run the skill (its parameters form opens first).")
        if role == Qt.ItemDataRole.ForegroundRole:
            return SKILL_COLOUR
        if role == RECALL_ROLE:
            return recall
        return super().data(index, role)


def open_run_form(parent: Any, recall: Any, on_run: Callable[[str, dict], Any]) -> Any:
    """The library's parameters form for the chosen skill, values read from the typed text filled in."""
    from .skill_forms import RunSkillDialog

    dialog = RunSkillDialog(recall.skill, parent)
    for name, value in recall.values.items():
        if name in dialog.fields:
            try:
                dialog.set_value(name, value)
            except (TypeError, ValueError):
                log.info("value %r does not fit parameter %s", value, name)
    dialog.run_requested.connect(on_run)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog
