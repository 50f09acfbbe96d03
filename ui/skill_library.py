"""The skill library: search the skills the agent has learned, look at their steps, rename,
edit, delete, export and import them, and run one with a parameters form.

The memory store is opened the first time the library is shown (never at app start) at the
path the settings name; a file that is not a memory database is reported and left alone.
Questions and file choices go through :mod:`.skill_prompts`, so tests can answer them. ``run_skill_requested(name, values)`` is emitted when the person presses Run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gui_agent import GuiAgentError

from . import skill_prompts as prompts
from .skill_forms import RunSkillDialog, SkillEditDialog
from .skill_view import FLAG_STYLE, SkillDetails

log = logging.getLogger(__name__)
COLUMNS = ("Skill", "Source", "Steps", "Runs", "Status")


def _default_settings() -> Any:
    from gui_agent import load_settings

    return load_settings()


class SkillLibrary(QDialog):
    run_skill_requested = Signal(str, dict)

    def __init__(self, settings_loader: Callable[[], Any] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Skill library")
        self.resize(1100, 640)
        self.settings_loader = settings_loader or _default_settings
        self.store: Any = None
        self.skills: dict[str, Any] = {}
        self.edit_dialog: SkillEditDialog | None = None
        self.run_dialog: RunSkillDialog | None = None
        self._opened = False
        self._build()

    def _build(self) -> None:
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search names, descriptions and example tasks")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.apply_filter)
        self.count_label = QLabel()
        self.count_label.setStyleSheet("color: #6b7280;")
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet(FLAG_STYLE)
        self.message.setVisible(False)
        self.list = QTreeWidget()
        self.list.setHeaderLabels(list(COLUMNS))
        self.list.setRootIsDecorated(False)
        for column, width in enumerate((180, 75, 45, 50)):
            self.list.setColumnWidth(column, width)
        self.list.currentItemChanged.connect(lambda *_: self._show_selected())
        self.list.itemDoubleClicked.connect(lambda *_: self.run_selected())
        self.details = SkillDetails()
        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        for key, text, slot in (("run", "Run…", self.run_selected), ("edit", "Edit…", self.edit_selected),
                                ("rename", "Rename…", self.rename_selected),
                                ("delete", "Delete", self.delete_selected),
                                ("export", "Export…", self.export_selected),
                                ("import", "Import…", self.import_file), ("refresh", "Refresh", self.refresh)):
            button = QPushButton(text)
            button.clicked.connect(lambda _=False, s=slot: s())
            self.buttons[key] = button
            row.addWidget(button)
            if key == "delete":
                row.addStretch(1)
        left = QWidget()
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.search)
        column.addWidget(self.list, 1)
        column.addWidget(self.count_label)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.details)
        splitter.setSizes([440, 660])
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(splitter, 1)
        layout.addLayout(row)
        self._update_buttons()

    # -- the store ---------------------------------------------------------------------------
    def open_store(self) -> Any:
        """The memory store (opened once); None, with the reason shown, when it cannot be opened."""
        if self.store is not None:
            return self.store
        try:
            from gui_agent import MemoryStore

            self.store = MemoryStore(self.settings_loader().memory_path)
        except (GuiAgentError, OSError) as exc:
            self._show_message(f"The skill library cannot be opened: {exc}")
            return None
        self._show_message("")
        return self.store

    def _show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def refresh(self, select: str | None = None) -> None:
        """Reload the skills from the store, keeping the selection (or selecting ``select``)."""
        self._opened = True
        keep = select or self.selected_name()
        store = self.open_store()
        try:
            skills = store.list_skills(include_flagged=True) if store is not None else []
        except GuiAgentError as exc:
            self._show_message(f"The skill library cannot be read: {exc}")
            skills = []
        self.skills = {s.name: s for s in skills}
        self.list.clear()
        for skill in skills:
            self.list.addTopLevelItem(self._item(skill))
        self.apply_filter()
        if keep and not self.select(keep):
            self.details.clear()
        self._update_buttons()

    @staticmethod
    def _item(skill: Any) -> QTreeWidgetItem:
        st = skill.stats
        status = "⚠ flagged" if skill.flagged else ("new" if not st.runs else "ok")
        item = QTreeWidgetItem([skill.name, skill.source, str(len(skill.steps)),
                                f"{st.successes}/{st.runs}", status])
        item.setData(0, Qt.ItemDataRole.UserRole, skill.name)
        item.setToolTip(0, skill.description or skill.name)
        if skill.flagged:
            red = QBrush(QColor("#b91c1c"))
            for column in range(len(COLUMNS)):
                item.setForeground(column, red)
            item.setToolTip(4, "Flagged: most of its recent runs failed")
        return item

    # -- the list ----------------------------------------------------------------------------
    def apply_filter(self) -> None:
        words = self.search.text().lower().split()
        shown = 0
        for i in range(self.list.topLevelItemCount()):
            item = self.list.topLevelItem(i)
            skill = self.skills[item.data(0, Qt.ItemDataRole.UserRole)]
            haystack = " ".join((skill.name, skill.description, *skill.examples)).lower()
            hidden = not all(w in haystack for w in words)
            item.setHidden(hidden)
            shown += not hidden
        total = len(self.skills)
        self.count_label.setText(f"{shown} of {total} skills" if words else f"{total} skills")
        current = self.list.currentItem()
        if current is not None and current.isHidden():
            self.list.setCurrentItem(None)
            self._show_selected()

    def visible_names(self) -> list[str]:
        return [self.list.topLevelItem(i).text(0) for i in range(self.list.topLevelItemCount())
                if not self.list.topLevelItem(i).isHidden()]

    def select(self, name: str) -> bool:
        for i in range(self.list.topLevelItemCount()):
            item = self.list.topLevelItem(i)
            if item.text(0) == name and not item.isHidden():
                self.list.setCurrentItem(item)
                return True
        return False

    def selected_name(self) -> str | None:
        item = self.list.currentItem()
        return None if item is None or item.isHidden() else item.data(0, Qt.ItemDataRole.UserRole)

    def selected_skill(self) -> Any:
        name = self.selected_name()
        return self.skills.get(name) if name else None

    def _show_selected(self) -> None:
        skill = self.selected_skill()
        if skill is None:
            self.details.clear()
        else:
            self.details.set_skill(skill, self.store.root if self.store is not None else None)
        self._update_buttons()

    def _update_buttons(self) -> None:
        chosen = self.selected_skill() is not None
        for key in ("run", "edit", "rename", "delete", "export"):
            self.buttons[key].setEnabled(chosen)
        self.buttons["import"].setEnabled(self.store is not None)

    # -- actions -----------------------------------------------------------------------------
    def _attempt(self, title: str, action: Callable[[], Any]) -> Any:
        """Run a store action; a failure is shown in a dialog and returns None."""
        try:
            return action()
        except (GuiAgentError, OSError) as exc:
            prompts.show_error(self, title, str(exc))
            return None

    def rename_selected(self, new: str | None = None) -> bool:
        old = self.selected_name()
        if old is None or self.store is None:
            return False
        new = new if new is not None else prompts.ask_text(self, "Rename skill", "New name:", old)
        if not new or new == old:
            return False
        if self._attempt("Rename skill", lambda: self.store.rename_skill(old, new) or True) is None:
            return False
        self.refresh(select=new.strip())
        return True

    def edit_selected(self) -> SkillEditDialog | None:
        skill = self.selected_skill()
        if skill is None or self.store is None:
            return None

        def apply(edited: Any) -> None:
            from dataclasses import replace

            # A crop file lost from the store would block every edit: the step keeps its other anchors.
            steps = tuple(s if not s.crop or self.store.shot_path(s.crop).is_file() else replace(s, crop=None)
                          for s in edited.steps)
            if steps != edited.steps:
                log.warning("skill %r: dropping references to crop images missing from %s",
                            edited.name, self.store.root)
            self.store.save_skill(replace(edited, steps=steps), replace=True)
            self.refresh(select=edited.name)

        self.edit_dialog = SkillEditDialog(skill, apply, self)
        self.edit_dialog.show()
        return self.edit_dialog

    def delete_selected(self) -> bool:
        name = self.selected_name()
        if name is None or self.store is None:
            return False
        if not prompts.confirm(self, "Delete skill", f"Delete the skill “{name}” and its run history? "
                                             "This cannot be undone (export it first to keep a copy)."):
            return False
        if self._attempt("Delete skill", lambda: self.store.delete_skill(name) or True) is None:
            return False
        self.refresh()
        return True

    def export_selected(self, file: Path | None = None) -> Path | None:
        name = self.selected_name()
        if name is None or self.store is None:
            return None
        file = file or prompts.choose_save_file(self, "Export skill", str(Path.home() / f"{name}.zip"))
        if file is None:
            return None
        from gui_agent import export_skill

        return self._attempt("Export skill", lambda: export_skill(self.store, name, file))

    def import_file(self, file: Path | None = None) -> Any:
        """Add the skill in ``file``; on a name clash the person chooses to replace or rename."""
        store = self.open_store()
        if store is None:
            return None
        file = file or prompts.choose_open_file(self, "Import skill")
        if file is None:
            return None
        from gui_agent import SkillNameTaken, import_skill

        name: str | None = None
        replace = False
        while True:
            try:
                skill = import_skill(store, file, name=name, replace=replace)
                break
            except SkillNameTaken as exc:
                choice = prompts.ask_clash(self, exc.name)
                if choice == "replace":
                    replace = True
                    continue
                name = prompts.ask_text(self, "Import skill", "Import it as:", f"{exc.name} 2") if choice else None
                if not name:
                    return None
            except (GuiAgentError, OSError) as exc:
                prompts.show_error(self, "Import skill", str(exc))
                return None
        self.refresh(select=skill.name)
        return skill

    def run_selected(self) -> RunSkillDialog | None:
        skill = self.selected_skill()
        if skill is None:
            return None
        self.run_dialog = RunSkillDialog(skill, self)
        self.run_dialog.run_requested.connect(self.run_skill_requested)
        self.run_dialog.show()
        return self.run_dialog

    # -- Qt events ---------------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._opened:
            self._opened = True
            QTimer.singleShot(0, self.refresh)   # the window appears first, then the store opens

    def done(self, result: int) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None
            self._opened = False
        super().done(result)
