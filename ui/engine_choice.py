"""The engine selector in the main window: the offline planner, a local model folder, or a model server.

The choice is saved in the shared ``config.toml`` (``model`` and ``base_url``, as the settings
editor and the CLI read them) and applied to every run's settings, so the run uses what the
selector shows even when the environment says otherwise. Nothing is loaded here: the engine
factory loads the model in the worker thread when a run starts. The folder and server questions
go through this module (``choose_folder``, ``ask_server``, ``show_error``) so tests answer them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from gui_agent import GuiAgentError

log = logging.getLogger(__name__)

KINDS = ("offline", "local", "server")
PICK_FOLDER, PICK_SERVER = "pick-folder", "pick-server"
URL_RE = re.compile(r"^https?://\S+$")


@dataclass(frozen=True)
class EngineChoice:
    """What plans a run: ``offline``, ``local`` (``model`` is a folder or a cached Hugging Face id)
    or ``server`` (an OpenAI-compatible ``base_url`` serving ``model``)."""

    kind: str = "offline"
    model: str | None = None
    base_url: str | None = None

    @classmethod
    def from_settings(cls, settings: Any) -> EngineChoice:
        if settings.base_url:
            return cls("server", settings.model, settings.base_url)
        if settings.model:
            return cls("local", settings.model)
        return cls()

    def values(self) -> dict[str, Any]:
        """The settings this choice writes (None removes a key: back to the default)."""
        return {"model": self.model if self.kind != "offline" else None,
                "base_url": self.base_url if self.kind == "server" else None,
                "backend": None}

    def apply(self, settings: Any) -> Any:
        """``settings`` planning with this engine (unchanged when they already do)."""
        if EngineChoice.from_settings(settings) == self:
            return settings
        return replace(settings, **self.values())

    def label(self) -> str:
        if self.kind == "local":
            return f"Model: {Path(self.model or '').name or self.model}"
        if self.kind == "server":
            host = urlparse(self.base_url or "").netloc or self.base_url
            return f"Server: {self.model} @ {host}"
        return "Offline planner"

    def describe(self) -> str:
        if self.kind == "local":
            return (f"The local model {self.model} plans each step (loaded on the first run)."
                    + self.mode_text())
        if self.kind == "server":
            return (f"The model {self.model!r} served at {self.base_url} plans each step."
                    + self.mode_text())
        return "The offline planner: explicit instructions, no model."

    def mode_text(self) -> str:
        """The mode this model gives (guessed from its name, as `gui-agent models` says it)."""
        from gui_agent import configured_mode

        try:
            choice = configured_mode(Path(self.model or "").name or self.model)
        except GuiAgentError as exc:
            return f"\nIt cannot run as chosen: {exc}"
        return f"\nMode: {choice.describe()}"


# -- questions to the person (tests replace these) ------------------------------------------------
def choose_folder(parent: QWidget | None, start: str) -> Path | None:
    chosen = QFileDialog.getExistingDirectory(parent, "Choose a model folder", start)
    return Path(chosen) if chosen else None


def ask_server(parent: QWidget | None, url: str, model: str) -> tuple[str, str] | None:
    """(URL, model name) of an OpenAI-compatible server, or None when cancelled."""
    dialog = ServerDialog(url, model, parent)
    return dialog.result_pair() if dialog.exec() == QDialog.DialogCode.Accepted else None


def show_error(parent: QWidget | None, text: str) -> None:
    QMessageBox.warning(parent, "gui-agent engine", text)


def check_model_folder(folder: Path) -> str | None:
    """Why ``folder`` cannot be loaded as a model, or None when it looks like one."""
    from gui_agent import resolve_model

    try:
        resolve_model(str(folder))
    except GuiAgentError as exc:
        return str(exc)
    return None


class ServerDialog(QDialog):
    def __init__(self, url: str, model: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Model server")
        self.url = QLineEdit(url or "http://localhost:8000/v1")
        self.model = QLineEdit(model)
        self.model.setPlaceholderText("the name the server serves, e.g. Qwen/Qwen2.5-VL-7B-Instruct")
        self.error = QLabel()
        self.error.setStyleSheet("color: #b91c1c;")
        self.error.setVisible(False)
        form = QFormLayout()
        form.addRow("Server URL", self.url)
        form.addRow("Model name", self.model)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.check_and_accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("An OpenAI-compatible server (vLLM, llama.cpp, Ollama, …)"))
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def problem(self) -> str | None:
        if not URL_RE.match(self.url.text().strip()):
            return "The server's address starts with http:// or https://"
        if not self.model.text().strip():
            return "Name the model the server serves."
        return None

    def check_and_accept(self) -> None:
        problem = self.problem()
        self.error.setText(problem or "")
        self.error.setVisible(problem is not None)
        if problem is None:
            self.accept()

    def result_pair(self) -> tuple[str, str]:
        return self.url.text().strip(), self.model.text().strip()


class EngineSelector(QComboBox):
    """A compact combo box: the engines known this session, then "Model folder…" and "Server…".

    ``saver(values)`` persists a choice (default: ``config_file.save_settings``); a failure is
    shown and the choice still applies to this session's runs.
    """

    changed = Signal(object)     # EngineChoice

    def __init__(self, saver: Callable[[Mapping[str, Any]], Any] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.saver = saver or _save
        self.choice = EngineChoice()
        self._known: dict[str, EngineChoice] = {"offline": EngineChoice()}
        self._loaded: EngineChoice | None = None      # what the settings said when last shown
        self.save_error = ""
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.setMaximumWidth(240)
        self.activated.connect(self._activated)
        self._fill()

    def _fill(self) -> None:
        self.blockSignals(True)
        self.clear()
        for kind in KINDS:
            if kind in self._known:
                self.addItem(self._known[kind].label(), self._known[kind])
        self.insertSeparator(self.count())
        self.addItem("Model folder…", PICK_FOLDER)
        self.addItem("Model server…", PICK_SERVER)
        index = next(i for i in range(self.count()) if self.itemData(i) == self.choice)
        self.setCurrentIndex(index)
        self.setToolTip(f"{self.choice.describe()}\nSaved in config.toml, shared with the command line."
                        + (f"\n\nNot saved: {self.save_error}" if self.save_error else ""))
        self.blockSignals(False)

    def show_settings(self, settings: Any) -> None:
        """Follow the settings when what they say changed (the settings editor saved), without
        saving again; settings that say the same as before leave the person's choice alone."""
        choice = EngineChoice.from_settings(settings)
        if choice != self._loaded:
            self._loaded = choice
            if choice != self.choice:
                self._set(choice)

    def set_choice(self, choice: EngineChoice, save: bool = True) -> bool:
        """Select ``choice`` and save it; False (and the reason shown) when it could not be saved."""
        self.save_error = ""
        if save:
            try:
                self.saver(choice.values())
            except (GuiAgentError, OSError) as exc:
                self.save_error = str(exc)
                log.warning("the engine choice was not saved: %s", exc)
        self._set(choice)
        if self.save_error:
            show_error(self, f"{choice.label()} is used for this session's runs, but it could not "
                             f"be saved:\n\n{self.save_error}")
        return not self.save_error

    def _set(self, choice: EngineChoice) -> None:
        self.choice = choice
        self._known[choice.kind] = choice
        self._fill()
        self.changed.emit(choice)

    def apply(self, settings: Any) -> Any:
        return self.choice.apply(settings)

    def _activated(self, index: int) -> None:
        data = self.itemData(index)
        if isinstance(data, EngineChoice):
            if data != self.choice:
                self.set_choice(data)
            return
        picked = self.pick_folder() if data == PICK_FOLDER else self.pick_server() if data == PICK_SERVER else None
        if picked is None:
            self._fill()     # back to the current choice
            return
        self.set_choice(picked)

    def pick_folder(self) -> EngineChoice | None:
        known = self._known.get("local")
        start = known.model if known and known.model and Path(known.model).is_dir() else str(Path.home())
        folder = choose_folder(self, start)
        if folder is None:
            return None
        problem = check_model_folder(folder)
        if problem:
            show_error(self, f"That folder cannot be used as a model:\n\n{problem}")
            return None
        return EngineChoice("local", str(folder))

    def pick_server(self) -> EngineChoice | None:
        known = self._known.get("server", EngineChoice("server"))
        answer = ask_server(self, known.base_url or "", known.model or "")
        if answer is None:
            return None
        url, model = answer
        if not URL_RE.match(url) or not model:
            show_error(self, "A server needs an address starting with http:// or https:// and a model name.")
            return None
        return EngineChoice("server", model, url)


def _save(values: Mapping[str, Any]) -> Path:
    from gui_agent import save_settings

    return save_settings(values)
