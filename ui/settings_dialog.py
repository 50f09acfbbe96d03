"""The settings editor: what the CLI and the app read from ``<user config dir>/config.toml``.

It shows the file's values (defaults where the file says nothing; GUI_AGENT_* environment
variables, which win over the file, are named in a note but never saved). Save checks every
value the way the CLI does (by building ``Settings``); a bad value is shown under its field and
nothing is written. Values equal to the default are removed from the file, so later changes
to a default reach the person.
"""

from __future__ import annotations

import os
import re
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gui_agent import (
    SAFETY_MODES,
    ConfigError,
    Settings,
    check_hotkey,
    config_path,
    load_settings,
    save_settings,
)

ENGINES = (("offline", "Offline planner (no model)"), ("local", "Local model (folder or Hugging Face id)"),
           ("server", "Model server (OpenAI-compatible URL)"))
MANAGED = ("model", "base_url", "api_key_env", "grounding_model", "min_pixels", "max_pixels",
           "max_steps", "max_seconds", "safety", "allow", "stop_hotkey", "monitor", "use_memory",
           "auto_skills", "mine_skills", "memory_path", "memory_keep_days")
ERROR_STYLE = "color: #b91c1c;"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _defaults() -> dict[str, Any]:
    return {f.name: f.default for f in fields(Settings) if f.default is not MISSING}


def _text(widget: QLineEdit) -> str | None:
    return widget.text().strip() or None


class SettingsDialog(QDialog):
    """Edit and save the user settings; ``saved`` carries the config file's path."""

    saved = Signal(object)

    def __init__(self, path: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("gui-agent settings")
        self.setMinimumWidth(600)
        self.path = Path(path) if path is not None else config_path()
        self.errors: dict[str, QLabel] = {}
        self._build()
        self.load()

    # -- building ----------------------------------------------------------------------------
    def _error_row(self, form: QFormLayout, name: str) -> None:
        label = QLabel()
        label.setObjectName(f"error_{name}")
        label.setStyleSheet(ERROR_STYLE)
        label.setWordWrap(True)
        label.setVisible(False)
        self.errors[name] = label
        form.addRow(label)

    def _row(self, form: QFormLayout, name: str, title: str, widget: QWidget, tip: str = "",
             button: QPushButton | None = None) -> None:
        widget.setObjectName(name)
        if tip:
            widget.setToolTip(tip)
        if button is None:
            form.addRow(title, widget)
        else:
            line = QHBoxLayout()
            line.addWidget(widget, 1)
            line.addWidget(button)
            form.addRow(title, line)
        self._error_row(form, name)

    def _folder_button(self, target: QLineEdit, title: str, file: bool = False) -> QPushButton:
        button = QPushButton("Browse…")

        def pick() -> None:
            start = target.text() or str(Path.home())
            chosen = (QFileDialog.getSaveFileName(self, title, start)[0] if file
                      else QFileDialog.getExistingDirectory(self, title, start))
            if chosen:
                target.setText(chosen)

        button.clicked.connect(pick)
        return button

    def _build(self) -> None:
        self.engine = QComboBox()
        for key, text in ENGINES:
            self.engine.addItem(text, key)
        self.model = QLineEdit()
        self.model.setPlaceholderText("a model folder, a Hugging Face id, or the server's model name")
        self.base_url = QLineEdit()
        self.base_url.setPlaceholderText("http://localhost:8000/v1")
        self.api_key_env = QLineEdit()
        self.api_key_env.setPlaceholderText("e.g. OPENAI_API_KEY (the variable's name, not the key)")
        self.grounding_model = QLineEdit()
        self.grounding_model.setPlaceholderText("optional: a separate pointing model (folder or id)")
        self.min_pixels = QLineEdit()
        self.max_pixels = QLineEdit()
        for box in (self.min_pixels, self.max_pixels):
            box.setPlaceholderText("the model's default (e.g. 1024x28x28 or 802816)")
        model_tab, form = QWidget(), QFormLayout()
        model_tab.setLayout(form)
        self._row(form, "engine", "Planner", self.engine)
        self._row(form, "model", "Model", self.model, button=self._folder_button(self.model, "Model folder"))
        self._row(form, "base_url", "Server URL", self.base_url)
        self._row(form, "api_key_env", "API key variable", self.api_key_env)
        self._row(form, "grounding_model", "Grounding model", self.grounding_model,
                  button=self._folder_button(self.grounding_model, "Grounding model folder"))
        self._row(form, "min_pixels", "Image budget: min pixels", self.min_pixels)
        self._row(form, "max_pixels", "Image budget: max pixels", self.max_pixels)

        self.max_steps = QSpinBox()
        self.max_steps.setRange(1, 10000)
        self.max_seconds = QDoubleSpinBox()
        self.max_seconds.setRange(1.0, 7 * 86400.0)
        self.max_seconds.setDecimals(1)
        self.max_seconds.setSuffix(" s")
        self.safety = QComboBox()
        self.safety.addItems(SAFETY_MODES)
        self.allow = QLineEdit()
        self.allow.setPlaceholderText("risky words allowed without asking, comma-separated")
        self.stop_hotkey = QLineEdit()
        self.monitor = QSpinBox()
        self.monitor.setRange(0, 16)
        self.monitor.setSpecialValueText("all monitors")
        run_tab, form = QWidget(), QFormLayout()
        run_tab.setLayout(form)
        self._row(form, "max_steps", "Step limit", self.max_steps)
        self._row(form, "max_seconds", "Time limit", self.max_seconds)
        self._row(form, "safety", "Risky actions", self.safety,
                  "ask: ask before acting; refuse: never do them; allow: do them")
        self._row(form, "allow", "Pre-approved words", self.allow)
        self._row(form, "stop_hotkey", "Stop hotkey", self.stop_hotkey, "pynput form, e.g. <ctrl>+<alt>+<esc>")
        self._row(form, "monitor", "Monitor", self.monitor)

        self.use_memory = QCheckBox("Remember runs and recall skills")
        self.auto_skills = QCheckBox("Run a skill when a task clearly matches one")
        self.mine_skills = QCheckBox("Turn steps that recur into new skills")
        self.memory_path = QLineEdit()
        self.memory_keep_days = QDoubleSpinBox()
        self.memory_keep_days.setRange(0.0, 36500.0)
        self.memory_keep_days.setDecimals(1)
        self.memory_keep_days.setSuffix(" days")
        memory_tab, form = QWidget(), QFormLayout()
        memory_tab.setLayout(form)
        for name in ("use_memory", "auto_skills", "mine_skills"):
            self._row(form, name, "", getattr(self, name))
        self._row(form, "memory_path", "Memory database", self.memory_path,
                  button=self._folder_button(self.memory_path, "Memory database file", file=True))
        self._row(form, "memory_keep_days", "Keep screenshots for", self.memory_keep_days)

        self.tabs = QTabWidget()
        self.tabs.addTab(model_tab, "Model")
        self.tabs.addTab(run_tab, "Limits && safety")
        self.tabs.addTab(memory_tab, "Memory")
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.setVisible(False)
        self.general_error = QLabel()
        self.general_error.setWordWrap(True)
        self.general_error.setStyleSheet(ERROR_STYLE)
        self.general_error.setVisible(False)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        where = QLabel(f"Saved in {self.path} (shared with the gui-agent command).")
        where.setStyleSheet("color: #6b7280;")
        where.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(where)
        layout.addWidget(self.notice)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.general_error)
        layout.addWidget(self.buttons)
        self.engine.currentIndexChanged.connect(self._engine_changed)
        self.use_memory.toggled.connect(self._memory_changed)

    def _engine_changed(self) -> None:
        kind = self.engine.currentData()
        self.model.setEnabled(kind != "offline")
        self.base_url.setEnabled(kind == "server")
        self.api_key_env.setEnabled(kind == "server")

    def _memory_changed(self, on: bool) -> None:
        for name in ("auto_skills", "mine_skills", "memory_path", "memory_keep_days"):
            getattr(self, name).setEnabled(on)

    # -- values ------------------------------------------------------------------------------
    def load(self) -> None:
        """Fill the fields from the config file alone (no environment)."""
        notes = []
        try:
            s = load_settings(self.path, env={})
        except ConfigError as exc:
            s = Settings()
            notes.append(f"The config file cannot be used as it is ({exc}). The defaults are shown; "
                         "Save keeps the file's other tables and replaces these settings.")
        overridden = [f"GUI_AGENT_{n.upper()}" for n in MANAGED if os.environ.get(f"GUI_AGENT_{n.upper()}")]
        if overridden:
            notes.append("Set in the environment, winning over what is saved here: " + ", ".join(overridden))
        self.notice.setText("\n\n".join(notes))
        self.notice.setVisible(bool(notes))
        kind = "server" if s.base_url else "local" if s.model else "offline"
        self.engine.setCurrentIndex(self.engine.findData(kind))
        self._engine_changed()
        for name in ("model", "base_url", "api_key_env", "grounding_model"):
            getattr(self, name).setText(getattr(s, name) or "")
        for name in ("min_pixels", "max_pixels"):
            value = getattr(s, name)
            getattr(self, name).setText("" if value is None else str(value))
        self.max_steps.setValue(s.max_steps)
        self.max_seconds.setValue(s.max_seconds)
        self.safety.setCurrentText(s.safety)
        self.allow.setText(", ".join(s.allow))
        self.stop_hotkey.setText(s.stop_hotkey)
        self.monitor.setValue(s.monitor)
        for name in ("use_memory", "auto_skills", "mine_skills"):
            getattr(self, name).setChecked(getattr(s, name))
        self.memory_path.setText(str(s.memory_path) if s.memory_path else "")
        self.memory_path.setPlaceholderText(f"default: {_default_memory_path()}")
        self.memory_keep_days.setValue(s.memory_keep_days)
        self._memory_changed(s.use_memory)
        self.show_errors({})

    def _read(self, problems: dict[str, str]) -> dict[str, Any]:
        """Every managed setting from the fields; what cannot be read goes into ``problems``."""
        from gui_agent import parse_budget

        kind = self.engine.currentData()
        v: dict[str, Any] = {"model": None, "base_url": None, "api_key_env": None}
        if kind != "offline":
            v["model"] = _text(self.model)
            if v["model"] is None:
                problems["model"] = ("name the model: a folder or a Hugging Face id" if kind == "local"
                                     else "name the model the server serves")
        if kind == "server":
            v["base_url"] = _text(self.base_url)
            if not v["base_url"] or not re.match(r"^https?://\S+$", v["base_url"]):
                problems["base_url"] = "the server's address starts with http:// or https://"
            v["api_key_env"] = _text(self.api_key_env)
            if v["api_key_env"] and not _ENV_NAME.match(v["api_key_env"]):
                problems["api_key_env"] = "the name of an environment variable (letters, digits, _)"
        v["grounding_model"] = _text(self.grounding_model)
        for name in ("min_pixels", "max_pixels"):
            text = _text(getattr(self, name))
            try:
                v[name] = parse_budget(text) if text else None
            except ConfigError as exc:
                problems[name] = str(exc)
        v["max_steps"] = self.max_steps.value()
        v["max_seconds"] = float(self.max_seconds.value())
        v["safety"] = self.safety.currentText()
        v["allow"] = tuple(w.strip() for w in self.allow.text().split(",") if w.strip())
        try:
            v["stop_hotkey"] = check_hotkey(self.stop_hotkey.text())
        except ConfigError as exc:
            problems["stop_hotkey"] = str(exc)
        v["monitor"] = self.monitor.value()
        for name in ("use_memory", "auto_skills", "mine_skills"):
            v[name] = getattr(self, name).isChecked()
        path = _text(self.memory_path)
        v["memory_path"] = Path(path).expanduser() if path else None
        if v["memory_path"] is not None and v["memory_path"].is_dir():
            problems["memory_path"] = f"{v['memory_path']} is a folder; name the database file in it"
        v["memory_keep_days"] = float(self.memory_keep_days.value())
        return v

    def validate(self) -> dict[str, Any] | None:
        """The values to save (None where the default applies), or None with errors shown."""
        problems: dict[str, str] = {}
        values = self._read(problems)
        if not problems:
            try:
                Settings(**{k: v for k, v in values.items() if v is not None})
            except ConfigError as exc:
                problems[_field_of(str(exc))] = str(exc)
        self.show_errors(problems)
        if problems:
            return None
        defaults = _defaults()
        return {k: (None if k in defaults and v == defaults[k] else v) for k, v in values.items()}

    def show_errors(self, problems: dict[str, str]) -> None:
        for name, label in self.errors.items():
            label.setText(problems.get(name, ""))
            label.setVisible(name in problems)
        general = [text for name, text in problems.items() if name not in self.errors]
        self.general_error.setText("\n".join(general))
        self.general_error.setVisible(bool(general))
        for i in range(self.tabs.count()):
            page = self.tabs.widget(i)
            if any(not label.isHidden() and page.isAncestorOf(label) for label in self.errors.values()):
                self.tabs.setCurrentIndex(i)
                break

    def save(self) -> bool:
        """Validate and write; False (errors shown, nothing written) when a value is wrong."""
        values = self.validate()
        if values is None:
            return False
        try:
            path = save_settings(values, self.path)
        except ConfigError as exc:
            self.show_errors({_field_of(str(exc)): str(exc)})
            return False
        self.saved.emit(path)
        self.accept()
        return True


def _field_of(message: str) -> str:
    """The managed setting a ConfigError message is about ("" when none is named)."""
    found = [(message.find(name), name) for name in MANAGED if re.search(rf"\b{name}\b", message)]
    return min(found)[1] if found else ""


def _default_memory_path() -> Path:
    from gui_agent import default_memory_path

    return default_memory_path()
