"""The engine selector: offline planner | a local model folder | a server URL and model name,
saved in the shared config.toml and carried by every run's settings; the engine factory builds
the model planner through model_parts like the CLI, and a model that cannot load ends the run
with its error. Offscreen, with a scripted engine (no model is ever loaded)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from tests.support.requirements import require_module  # noqa: E402

require_module("PySide6")
require_module("pytestqt")

from gui_agent.actions import Click  # noqa: E402
from gui_agent.config import Settings, load_settings  # noqa: E402
from gui_agent.errors import ConfigError  # noqa: E402
from tests.support.ui_fakes import FakeHotkey, ScriptedEngine, run_task  # noqa: E402
from ui import engine_choice  # noqa: E402
from ui.agent_factory import EngineFactory  # noqa: E402
from ui.engine_choice import PICK_FOLDER, PICK_SERVER, EngineChoice  # noqa: E402
from ui.main_window import MainWindow  # noqa: E402
from ui.task_history import TaskHistory  # noqa: E402


@pytest.fixture
def config_dir(tmp_path, monkeypatch):
    folder = tmp_path / "config"
    monkeypatch.setenv("GUI_AGENT_CONFIG_DIR", str(folder))
    for name in ("GUI_AGENT_MODEL", "GUI_AGENT_BASE_URL", "GUI_AGENT_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    return folder


@pytest.fixture
def errors(monkeypatch):
    shown: list[str] = []
    monkeypatch.setattr(engine_choice, "show_error", lambda parent, text: shown.append(text))
    return shown


@pytest.fixture
def model_folder(tmp_path):
    folder = tmp_path / "tiny-vl"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "model.safetensors").write_bytes(b"\0" * 16)
    return folder


def make(qtbot, tmp_path, engine, settings=None):
    settings = settings or Settings(runs_dir=tmp_path / "runs", safety="allow")
    window = MainWindow(engine, settings_loader=lambda: settings, history=TaskHistory(None),
                        hotkey_factory=FakeHotkey, close_timeout=3.0)
    qtbot.addWidget(window)
    window.show()
    window.dry_run_box.setChecked(True)
    return window


def pick(selector, data) -> None:
    """What choosing an entry of the combo box does (QComboBox.activated)."""
    index = next(i for i in range(selector.count()) if selector.itemData(i) == data)
    selector.activated.emit(index)


def test_a_choice_reads_and_writes_the_model_settings():
    assert EngineChoice.from_settings(Settings()) == EngineChoice("offline")
    assert EngineChoice.from_settings(Settings(model="/m")) == EngineChoice("local", "/m")
    server = EngineChoice.from_settings(Settings(model="qwen", base_url="http://h:8000/v1"))
    assert server == EngineChoice("server", "qwen", "http://h:8000/v1") and server.label() == "Server: qwen @ h:8000"
    assert EngineChoice("local", "/models/tiny-vl").label() == "Model: tiny-vl"
    assert EngineChoice().values() == {"model": None, "base_url": None, "backend": None}
    s = Settings(model="/m", backend="transformers", max_steps=7)
    assert EngineChoice("local", "/m").apply(s) is s                     # already so: untouched
    moved = EngineChoice("server", "qwen", "http://h/v1").apply(s)
    assert (moved.model, moved.base_url, moved.backend, moved.max_steps) == ("qwen", "http://h/v1", None, 7)
    assert EngineChoice().apply(s).model is None


def test_the_chosen_engine_is_saved_and_carried_by_each_run(qtbot, tmp_path, config_dir, errors, model_folder,
                                                            monkeypatch):
    engine = ScriptedEngine((Click("OK"),))
    window = make(qtbot, tmp_path, engine)
    selector = window.engine_choice
    assert selector.currentText() == "Offline planner" and selector.isVisible()
    monkeypatch.setattr(engine_choice, "choose_folder", lambda parent, start: model_folder)
    pick(selector, PICK_FOLDER)
    assert selector.currentText() == "Model: tiny-vl" and errors == []
    assert load_settings(config_dir / "config.toml").model == str(model_folder)
    run_task(qtbot, window, "click OK")
    first = engine.requests[-1].settings
    assert (first.model, first.base_url, first.max_steps) == (str(model_folder), None, 30)

    monkeypatch.setattr(engine_choice, "ask_server", lambda parent, url, model: ("http://127.0.0.1:9000/v1", "qwen"))
    pick(selector, PICK_SERVER)
    saved = load_settings(config_dir / "config.toml")
    assert (saved.model, saved.base_url) == ("qwen", "http://127.0.0.1:9000/v1")
    run_task(qtbot, window, "click OK")
    assert (engine.requests[-1].settings.model, engine.requests[-1].settings.base_url) == (
        "qwen", "http://127.0.0.1:9000/v1")

    # the folder chosen before is still offered, and so is the offline planner
    labels = [selector.itemText(i) for i in range(selector.count())]
    assert labels[:3] == ["Offline planner", "Model: tiny-vl", "Server: qwen @ 127.0.0.1:9000"]
    pick(selector, EngineChoice())
    run_task(qtbot, window, "click OK")
    assert engine.requests[-1].settings.model is None and engine.requests[-1].settings.base_url is None
    text = (config_dir / "config.toml").read_text()
    assert "model" not in text and "base_url" not in text


def test_the_engine_cannot_change_during_a_run(qtbot, tmp_path):
    window = make(qtbot, tmp_path, ScriptedEngine(forever=True), Settings(runs_dir=tmp_path / "runs", max_steps=1000))
    window.task_box.setText("wait for ever")
    assert window.start_run()
    assert not window.engine_choice.isEnabled() and not window.record_button.isEnabled()
    window.stop_run()
    qtbot.waitUntil(lambda: window.last_result is not None, timeout=3000)
    assert window.engine_choice.isEnabled() and window.record_button.isEnabled()


def test_cancelled_or_bad_choices_change_nothing(qtbot, tmp_path, config_dir, errors, monkeypatch):
    window = make(qtbot, tmp_path, ScriptedEngine())
    selector = window.engine_choice
    monkeypatch.setattr(engine_choice, "choose_folder", lambda parent, start: None)
    pick(selector, PICK_FOLDER)
    assert selector.currentText() == "Offline planner" and not (config_dir / "config.toml").exists()
    not_a_model = tmp_path / "photos"
    not_a_model.mkdir()
    monkeypatch.setattr(engine_choice, "choose_folder", lambda parent, start: not_a_model)
    pick(selector, PICK_FOLDER)
    assert "config.json" in errors[-1] and selector.currentText() == "Offline planner"
    monkeypatch.setattr(engine_choice, "ask_server", lambda parent, url, model: ("localhost:8000", "qwen"))
    pick(selector, PICK_SERVER)
    assert "http://" in errors[-1] and selector.choice == EngineChoice()
    assert not (config_dir / "config.toml").exists()


def test_a_choice_that_cannot_be_saved_still_applies_to_this_session(qtbot, tmp_path, errors, model_folder,
                                                                   monkeypatch):
    engine = ScriptedEngine((Click("OK"),))
    window = make(qtbot, tmp_path, engine)

    def broken(values):
        raise ConfigError("config.toml: not a valid TOML file")

    window.engine_choice.saver = broken
    monkeypatch.setattr(engine_choice, "choose_folder", lambda parent, start: model_folder)
    pick(window.engine_choice, PICK_FOLDER)
    assert "could not be saved" in errors[-1] and "not a valid TOML" in errors[-1]
    assert "Not saved" in window.engine_choice.toolTip()
    run_task(qtbot, window, "click OK")
    assert engine.requests[-1].settings.model == str(model_folder)


def test_the_selector_follows_the_settings_editor_without_saving(qtbot, tmp_path):
    settings = {"now": Settings(runs_dir=tmp_path / "runs")}
    saves = []
    window = MainWindow(ScriptedEngine(), settings_loader=lambda: settings["now"], history=TaskHistory(None),
                        hotkey_factory=FakeHotkey)
    qtbot.addWidget(window)
    window.engine_choice.saver = saves.append
    settings["now"] = Settings(runs_dir=tmp_path / "runs", model="qwen", base_url="http://gpu:8000/v1")
    window._show_settings()          # what the settings editor's Save triggers
    assert window.engine_choice.currentText() == "Server: qwen @ gpu:8000" and saves == []


def _factory_without_a_screen(monkeypatch) -> EngineFactory:
    """The app's factory with a dry-run desktop standing in for the screen (no X server here)."""
    from gui_agent import DryRunController
    from gui_agent.desktop import LiveDesktop

    class Still(LiveDesktop):
        def observe(self):
            from PIL import Image

            from gui_agent import Observation

            return Observation.from_image(Image.new("RGB", (64, 48), "white"))

    monkeypatch.setattr("gui_agent.display.display_available", lambda: True)
    monkeypatch.setattr("gui_agent.display_available", lambda: True)   # the public name, once loaded
    monkeypatch.setattr("gui_agent.live_desktop",
                        lambda settings, apps, dry_run=False: Still(DryRunController(apps=apps), capture=object()))
    factory = EngineFactory()
    factory._parser = "the parser"
    return factory


def test_the_engine_factory_builds_the_model_planner_like_the_cli(monkeypatch):
    from gui_agent import AgentHooks, RunControl
    from gui_agent.planner.base import Planner
    from ui.engine_worker import RunRequest

    calls = []
    model = Planner("model planner", object(), object())   # type: ignore[arg-type]

    def fake_model_parts(settings, parser=None, deadline=None):
        calls.append((settings.model, settings.base_url, parser, deadline))
        return (model if settings.model else None), FakeModelLadder(), parser

    monkeypatch.setattr("gui_agent.engine.model_parts", fake_model_parts)
    factory = _factory_without_a_screen(monkeypatch)

    def engine_for(settings):
        return factory(RunRequest("t", settings), AgentHooks(), RunControl(), lambda desktop: desktop)

    assert engine_for(Settings()).planner.name == "offline" and calls == []
    engine = engine_for(Settings(model="qwen", base_url="http://h/v1"))
    assert engine.planner is model and isinstance(engine.ladder, FakeModelLadder)
    assert calls[0][:3] == ("qwen", "http://h/v1", "the parser")        # the OCR parser is shared
    assert calls[0][3] is engine.deadline                                # model calls keep the run's time
    engine = engine_for(Settings(grounding_model="/g"))
    assert engine.planner.name == "offline" and isinstance(engine.ladder, FakeModelLadder)


class FakeModelLadder:
    last_alternatives: list = []


def test_a_model_that_cannot_load_ends_the_run_with_its_error(qtbot, tmp_path, monkeypatch):
    factory = _factory_without_a_screen(monkeypatch)
    missing = tmp_path / "no-such-model"

    def agent_factory(request, hooks, control, wrap):
        factory(request, hooks, control, wrap)       # the real model_parts: the folder is missing
        raise AssertionError("a missing model folder must not get this far")

    window = make(qtbot, tmp_path, agent_factory, Settings(runs_dir=tmp_path / "runs", model=str(missing)))
    assert window.engine_choice.currentText() == "Model: no-such-model"
    result = run_task(qtbot, window, "click OK")
    assert result.outcome == "error" and f"model folder {missing} does not exist" in result.reason
    assert "does not exist" in window.outcome_label.text() and window.run_button.isEnabled()
