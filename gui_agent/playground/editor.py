"""The playground's Editor page: a plain-text editor with its own File menu (imports Qt).

Files are saved only inside the save directory chosen at start-up, through the small
in-app file-name dialog (never the native file dialog, which needs a window manager).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtGui import QAction, QFont, QKeySequence
from PySide6.QtWidgets import QLabel, QMenuBar, QPlainTextEdit, QVBoxLayout, QWidget

from gui_agent.playground.dialogs import FileNameDialog
from gui_agent.playground.state import StateRecorder

log = logging.getLogger(__name__)

DEFAULT_FILE_NAME = "untitled.txt"


class EditorPage(QWidget):
    """File (New, Open…, Save, Save As…, Quit) over a QPlainTextEdit; the state follows the text."""

    def __init__(self, recorder: StateRecorder, save_dir: Path, quit_app: Callable[[], None]):
        super().__init__()
        self._recorder = recorder
        self._quit_app = quit_app
        self.save_dir = save_dir
        self.path: Path | None = None
        self.file_dialog: FileNameDialog | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.menu_bar = QMenuBar(self)
        self.file_menu = self.menu_bar.addMenu("File")
        self.actions_by_name: dict[str, QAction] = {}
        for name, shortcut, slot in (
            ("New", QKeySequence.StandardKey.New, self.new_file),
            ("Open…", QKeySequence.StandardKey.Open, self.open_file),
            ("Save", QKeySequence.StandardKey.Save, self.save),
            ("Save As…", QKeySequence("Ctrl+Shift+S"), self.save_as),
            ("Quit", QKeySequence("Ctrl+Q"), self.quit),
        ):
            if name == "Quit":
                self.file_menu.addSeparator()
            action = self.file_menu.addAction(name)
            action.setShortcut(QKeySequence(shortcut))
            action.triggered.connect(lambda _=False, n=name, s=slot: self._menu(n, s))
            self.actions_by_name[name] = action
        layout.addWidget(self.menu_bar)
        self.text_edit = QPlainTextEdit()
        self.text_edit.setAccessibleName("Text")
        mono = QFont("DejaVu Sans Mono")
        mono.setPointSizeF(self.font().pointSizeF())
        self.text_edit.setFont(mono)
        layout.addWidget(self.text_edit, 1)
        self.status_label = QLabel("")
        self.status_label.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.status_label)
        self.text_edit.textChanged.connect(self._text_changed)
        self._show_status()

    def text(self) -> str:
        return self.text_edit.toPlainText()

    def _menu(self, name: str, slot: Callable[[], None]) -> None:
        self._recorder.event("menu", menu="File", item=name)
        slot()

    def _text_changed(self) -> None:
        self._recorder.update("editor", text=self.text(), modified=True)
        self._show_status()

    def _show_status(self) -> None:
        name = self.path.name if self.path else DEFAULT_FILE_NAME
        modified = self._recorder.get("editor")["modified"]
        self.status_label.setText(f"{name} — {'modified' if modified else 'no changes'}")

    def new_file(self) -> None:
        self.path = None
        self.text_edit.setPlainText("")
        self._recorder.update("editor", text="", path=None, modified=False)
        self._show_status()

    def open_file(self) -> None:
        self._ask_file_name("Open file", "Open", must_exist=True, on_chosen=self._load)

    def save(self) -> None:
        if self.path is None:
            self.save_as()
        else:
            self._write(self.path)

    def save_as(self) -> None:
        initial = self.path.name if self.path else DEFAULT_FILE_NAME
        self._ask_file_name("Save as", "Save", initial=initial, on_chosen=self._write)

    def quit(self) -> None:
        self._quit_app()

    def _ask_file_name(
        self,
        title: str,
        action_text: str,
        *,
        on_chosen: Callable[[Path], None],
        initial: str = "",
        must_exist: bool = False,
    ) -> None:
        dialog = FileNameDialog(
            title, action_text, self.save_dir, initial, self._recorder, self, must_exist=must_exist
        )

        def finished(result: int) -> None:
            self.file_dialog = None
            dialog.deleteLater()
            if result == FileNameDialog.DialogCode.Accepted and dialog.chosen_path is not None:
                on_chosen(dialog.chosen_path)

        dialog.finished.connect(finished)
        self.file_dialog = dialog
        dialog.present()

    def _load(self, path: Path) -> None:
        try:
            content = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self.status_label.setText(f"Could not open {path.name}: {exc}")
            return
        self.text_edit.setPlainText(content)
        self.path = path
        self._recorder.update("editor", text=content, path=str(path), modified=False)
        self._recorder.event("file_opened", path=str(path))
        self._show_status()

    def _write(self, path: Path) -> None:
        content = self.text()
        try:
            path.write_text(content, encoding="utf-8")
        except OSError as exc:
            log.error("could not save %s: %s", path, exc)
            self.status_label.setText(f"Could not save {path.name}: {exc}")
            return
        self.path = path
        saved = [f for f in self._recorder.get("editor")["saved_files"] if f["path"] != str(path)]
        saved.append({"path": str(path), "content": content})
        self._recorder.update("editor", path=str(path), modified=False, saved_files=saved)
        self._recorder.event("file_saved", path=str(path))
        self._show_status()
        self.status_label.setText(f"Saved {path.name}")
