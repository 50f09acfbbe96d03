"""The main window's Tools menu: the skill library, the settings editor and batch runs.

Each panel's module is imported the first time it is opened, so none of them (nor the memory
store, YAML or the batch runner) slows the app's start. ``Panels.run_skill_requested`` forwards
the library's Run button, so it can be connected before the library was ever opened.

While the main window is hidden (it hides during a real run so the agent has the screen), the
open panels hide too, and come back with it: the agent must never see or click them.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow


def load_app_settings() -> Any:
    """The settings as the CLI sees them (defaults < config file < environment)."""
    from gui_agent import load_settings

    return load_settings()


class Panels(QObject):
    run_skill_requested = Signal(str, dict)

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.skill_library: Any = None
        self.settings_dialog: Any = None
        self.batch_panel: Any = None
        self._hidden: list[Any] = []
        menu = window.menuBar().addMenu("&Tools")
        self.actions: dict[str, QAction] = {}
        for key, text, shortcut, slot in (
                ("skills", "&Skills…", "Ctrl+K", self.open_skills),
                ("settings", "S&ettings…", "Ctrl+,", self.open_settings),
                ("batch", "&Batch…", "Ctrl+B", self.open_batch)):
            action = QAction(text, window)
            action.setShortcut(QKeySequence(shortcut))
            action.triggered.connect(lambda _=False, s=slot: s())
            menu.addAction(action)
            self.actions[key] = action
        window.installEventFilter(self)

    def open_panels(self) -> list[Any]:
        return [p for p in (self.skill_library, self.settings_dialog, self.batch_panel)
                if p is not None and p.isVisible()]

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window:
            if event.type() == QEvent.Type.Hide and not self.window.isMinimized():
                self._hidden = self.open_panels()
                for panel in self._hidden:
                    panel.hide()
            elif event.type() == QEvent.Type.Show and self._hidden:
                hidden, self._hidden = self._hidden, []
                for panel in hidden:
                    panel.show()
        return False

    def _front(self, dialog: Any) -> Any:
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        return dialog

    def open_skills(self) -> Any:
        if self.skill_library is None:
            from .skill_library import SkillLibrary

            self.skill_library = SkillLibrary(getattr(self.window, "settings_loader", None), self.window)
            self.skill_library.run_skill_requested.connect(self.run_skill_requested)
        return self._front(self.skill_library)

    def open_settings(self) -> Any:
        """The open editor, or a fresh one that shows the file as it is now."""
        from .settings_dialog import SettingsDialog

        if self.settings_dialog is not None:
            if self.settings_dialog.isVisible():
                return self._front(self.settings_dialog)
            self.settings_dialog.deleteLater()
        self.settings_dialog = SettingsDialog(parent=self.window)
        refresh = getattr(self.window, "_show_settings", None)
        if refresh is not None:
            self.settings_dialog.saved.connect(lambda _path: refresh())
        return self._front(self.settings_dialog)

    def open_batch(self) -> Any:
        if self.batch_panel is None:
            from .batch_panel import BatchPanel

            self.batch_panel = BatchPanel(self.window)
        return self._front(self.batch_panel)
