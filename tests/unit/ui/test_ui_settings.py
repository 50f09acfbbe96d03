"""The settings editor and the config file writer: round trips through a tmp config dir,
invalid values shown next to their field and never saved, other tables kept intact."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from gui_agent.config import load_settings  # noqa: E402
from gui_agent.config_file import check_hotkey, save_settings, toml_value, update_text  # noqa: E402
from gui_agent.errors import ConfigError  # noqa: E402
from tests.support.requirements import require_module  # noqa: E402

require_module("PySide6")
require_module("pytestqt")

from ui.settings_dialog import SettingsDialog  # noqa: E402

OTHER_TABLES = """# my settings
[agent]
# a comment that stays
max_steps = 12
allow = [
  "delete",
]

[agent.notes]
colour = "blue"

[models]
pairs = [
  ["a", "b"]
]
"""


@pytest.fixture
def config_dir(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "config"
    monkeypatch.setenv("GUI_AGENT_CONFIG_DIR", str(folder))
    for name in ("USE_MEMORY", "MAX_STEPS", "SAFETY", "MODEL", "MEMORY_PATH"):
        monkeypatch.delenv(f"GUI_AGENT_{name}", raising=False)
    return folder


@pytest.fixture
def dialog(qtbot, config_dir):
    def make() -> SettingsDialog:
        d = SettingsDialog()
        qtbot.addWidget(d)
        d.show()
        return d

    return make


# -- the file writer ---------------------------------------------------------------------------
def test_update_text_changes_only_the_keys_given_and_keeps_comments_and_tables():
    new = update_text(OTHER_TABLES, {"max_steps": 40, "allow": ["send"], "safety": "refuse"})
    data = tomllib.loads(new)
    assert data["agent"]["max_steps"] == 40 and data["agent"]["allow"] == ["send"]
    assert data["agent"]["safety"] == "refuse"
    assert data["agent"]["notes"] == {"colour": "blue"} and data["models"] == {"pairs": [["a", "b"]]}
    assert "# a comment that stays" in new and new.startswith("# my settings")


def test_update_text_removes_keys_set_to_none_and_writes_flat_files_flat():
    assert "max_steps" not in tomllib.loads(update_text(OTHER_TABLES, {"max_steps": None}))["agent"]
    flat = update_text("max_steps = 3\n\n[models]\nx = 1\n", {"max_steps": 5, "monitor": 2})
    assert tomllib.loads(flat) == {"max_steps": 5, "monitor": 2, "models": {"x": 1}}
    fresh = update_text("[models]\nx = 1\n", {"max_steps": 5})
    assert tomllib.loads(fresh) == {"models": {"x": 1}, "agent": {"max_steps": 5}}


def test_toml_values_round_trip_awkward_strings():
    text = 'a"b\\c\n\t\x7f é'
    assert tomllib.loads(f"v = {toml_value(text)}")["v"] == text
    assert tomllib.loads(f"v = {toml_value(Path('/x y'))}")["v"] == "/x y"
    with pytest.raises(ConfigError):
        toml_value(float("nan"))


def test_save_settings_validates_before_writing_and_writes_atomically(tmp_path):
    path = tmp_path / "c" / "config.toml"
    save_settings({"max_steps": 7, "allow": ("a", "b")}, path)
    before = path.read_text()
    assert load_settings(path, env={}).allow == ("a", "b")
    for bad in ({"max_steps": 0}, {"min_pixels": 10, "max_pixels": 5}, {"bogus": 1}):
        with pytest.raises(ConfigError):
            save_settings(bad, path)
    assert path.read_text() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["config.toml"]


def test_save_settings_refuses_a_file_that_is_not_toml(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("this is [not toml\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        save_settings({"max_steps": 3}, path)
    assert path.read_text() == "this is [not toml\n"


@pytest.mark.parametrize("text", ["<ctrl>+<alt>+<esc>", "<ctrl>+<shift>+q", "<cmd>+<f12>"])
def test_good_hotkeys(text):
    assert check_hotkey(text) == text


@pytest.mark.parametrize("text", ["", "q", "<ctrl>+<bogus>", "ctrl+alt", "<ctrl>++q"])
def test_bad_hotkeys(text):
    with pytest.raises(ConfigError, match="stop_hotkey"):
        check_hotkey(text)


# -- the dialog --------------------------------------------------------------------------------
def test_the_dialog_shows_the_files_values(dialog, config_dir):
    config_dir.mkdir()
    (config_dir / "config.toml").write_text(
        '[agent]\nmax_steps = 9\nsafety = "refuse"\nmodel = "/models/qwen"\nallow = ["send", "delete"]\n'
        "monitor = 2\nuse_memory = false\nmax_pixels = 802816\n")
    d = dialog()
    assert d.max_steps.value() == 9 and d.safety.currentText() == "refuse"
    assert d.engine.currentData() == "local" and d.model.text() == "/models/qwen"
    assert not d.base_url.isEnabled()
    assert d.allow.text() == "send, delete" and d.monitor.value() == 2
    assert not d.use_memory.isChecked() and not d.auto_skills.isEnabled()
    assert d.max_pixels.text() == "802816" and d.min_pixels.text() == ""
    assert not d.notice.isVisible()


def test_settings_round_trip_through_the_config_dir(dialog, config_dir):
    d = dialog()
    saved = []
    d.saved.connect(saved.append)
    d.engine.setCurrentIndex(d.engine.findData("server"))
    d.base_url.setText("http://localhost:8000/v1")
    d.model.setText("ui-tars")
    d.api_key_env.setText("MY_KEY")
    d.grounding_model.setText("/models/ground")
    d.min_pixels.setText("256x28x28")
    d.max_steps.setValue(17)
    d.max_seconds.setValue(90)
    d.safety.setCurrentText("refuse")
    d.allow.setText("send,  delete ,")
    d.stop_hotkey.setText("<ctrl>+<shift>+q")
    d.monitor.setValue(0)
    d.mine_skills.setChecked(False)
    d.memory_path.setText(str(config_dir / "m.sqlite3"))
    d.memory_keep_days.setValue(7)
    assert d.save() is True
    path = config_dir / "config.toml"
    assert saved == [path] and d.result() == d.DialogCode.Accepted
    s = load_settings(path, env={})
    assert (s.base_url, s.model, s.api_key_env, s.grounding_model) == (
        "http://localhost:8000/v1", "ui-tars", "MY_KEY", "/models/ground")
    assert s.min_pixels == 256 * 28 * 28 and s.max_pixels is None
    assert (s.max_steps, s.max_seconds, s.safety, s.allow) == (17, 90.0, "refuse", ("send", "delete"))
    assert (s.stop_hotkey, s.monitor, s.mine_skills) == ("<ctrl>+<shift>+q", 0, False)
    assert s.memory_path == config_dir / "m.sqlite3" and s.memory_keep_days == 7.0
    written = tomllib.loads(path.read_text())["agent"]
    assert "use_memory" not in written and "auto_skills" not in written  # defaults stay unwritten
    again = dialog()                       # and it reads back what it wrote
    assert again.engine.currentData() == "server" and again.max_steps.value() == 17
    assert again.allow.text() == "send, delete" and again.stop_hotkey.text() == "<ctrl>+<shift>+q"


def test_back_to_offline_removes_the_model_settings(dialog, config_dir):
    config_dir.mkdir()
    (config_dir / "config.toml").write_text('[agent]\nmodel = "m"\nbase_url = "http://h/v1"\n\n[x]\ny = 1\n')
    d = dialog()
    assert d.engine.currentData() == "server"
    d.engine.setCurrentIndex(d.engine.findData("offline"))
    assert d.save()
    assert tomllib.loads((config_dir / "config.toml").read_text()) == {"agent": {}, "x": {"y": 1}}


@pytest.mark.parametrize(("field", "setup", "words"), [
    ("max_pixels", lambda d: d.max_pixels.setText("lots"), "pixel count"),
    ("min_pixels", lambda d: (d.min_pixels.setText("9000"), d.max_pixels.setText("10")), "must not exceed"),
    ("stop_hotkey", lambda d: d.stop_hotkey.setText("<ctrl>+<nope>"), "unknown key"),
    ("model", lambda d: d.engine.setCurrentIndex(d.engine.findData("local")), "name the model"),
    ("base_url", lambda d: (d.engine.setCurrentIndex(d.engine.findData("server")),
                            d.model.setText("m"), d.base_url.setText("localhost")), "http://"),
])
def test_an_invalid_value_is_shown_next_to_its_field_and_not_saved(dialog, config_dir, field, setup, words):
    config_dir.mkdir()
    path = config_dir / "config.toml"
    path.write_text("[agent]\nmax_steps = 5\n")
    d = dialog()
    setup(d)
    d.max_steps.setValue(50)
    assert d.save() is False
    label = d.errors[field]
    assert label.isVisible() and words in label.text()
    assert [n for n, lab in d.errors.items() if lab.isVisible()] == [field]
    assert d.isVisible() and path.read_text() == "[agent]\nmax_steps = 5\n"
    d.load()                                # a fix clears the message
    assert d.save() and not label.isVisible()


def test_environment_overrides_are_named_and_not_saved(dialog, config_dir, monkeypatch):
    monkeypatch.setenv("GUI_AGENT_USE_MEMORY", "0")
    d = dialog()
    assert d.notice.isVisible() and "GUI_AGENT_USE_MEMORY" in d.notice.text()
    assert d.use_memory.isChecked()        # the file's (default) value, not the environment's
    assert d.save()
    assert "use_memory" not in (config_dir / "config.toml").read_text()


def test_a_broken_file_is_reported_and_saving_keeps_its_other_tables(dialog, config_dir):
    config_dir.mkdir()
    path = config_dir / "config.toml"
    path.write_text('[agent]\nsafety = "sometimes"\n\n[models]\nkeep = true\n')
    d = dialog()
    assert d.notice.isVisible() and "safety" in d.notice.text()
    assert d.save()
    assert tomllib.loads(path.read_text()) == {"agent": {}, "models": {"keep": True}}
