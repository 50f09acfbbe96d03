"""The app as a whole: it starts to a shown window (time logged) without loading its panels,
the Tools menu opens the skill library, settings and batch panels (which hide while the
window is hidden for a run), and the Linux desktop entry installs."""

from __future__ import annotations

import configparser
import logging
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from tests.support.paths import REPO  # noqa: E402
from tests.support.requirements import require_module  # noqa: E402

require_module("PySide6")
require_module("pytestqt")

from gui_agent.config import Settings  # noqa: E402
from ui.main_window import MainWindow  # noqa: E402
from ui.task_history import TaskHistory  # noqa: E402

INSTALLER = REPO / "installer"
log = logging.getLogger(__name__)
LAZY = ("ui.skill_library", "ui.settings_dialog", "ui.batch_panel", "gui_agent.memory.store",
        "gui_agent.batch.suite", "yaml", "sqlite3", "cv2", "gui_agent.agent")


def test_the_app_shows_its_window_and_quits_with_startup_check(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", GUI_AGENT_CONFIG_DIR=str(tmp_path / "config"),
               GUI_AGENT_DATA_DIR=str(tmp_path / "data"),
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p))
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "ui", "--startup-check"], env=env,
                         capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    line = next(x for x in out.stdout.splitlines() if x.startswith("window shown:"))
    assert line.startswith("window shown: True;")
    log.warning("gui-agent-app startup: %s", line)          # the time, for whoever reads the log
    imported = set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", out.stderr, re.MULTILINE))
    assert "ui.main_window" in imported and "ui.panels" in imported
    assert sorted(m for m in LAZY if m in imported) == []


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("GUI_AGENT_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("GUI_AGENT_MAX_STEPS", raising=False)
    from gui_agent.config import load_settings

    def settings() -> Settings:
        return load_settings().with_overrides(memory_path=tmp_path / "m.sqlite3")

    w = MainWindow(lambda request: None, settings_loader=settings, history=TaskHistory(None))
    qtbot.addWidget(w)
    w.show()
    yield w
    for panel in (w.panels.skill_library, w.panels.settings_dialog, w.panels.batch_panel):
        if panel is not None:
            panel.close()


def test_the_tools_menu_opens_each_panel_once(window, qtbot):
    menu = window.menuBar().actions()[0].menu()
    assert [a.text() for a in menu.actions()] == ["&Skills…", "S&ettings…", "&Batch…"]
    window.panels.actions["skills"].trigger()
    library = window.panels.skill_library
    assert library.isVisible()
    qtbot.waitUntil(lambda: library.store is not None)
    assert library.store.path == window.settings_loader().memory_path
    window.panels.actions["batch"].trigger()
    window.panels.actions["batch"].trigger()
    assert window.panels.batch_panel.isVisible() and window.panels.open_batch() is window.panels.batch_panel
    window.panels.actions["settings"].trigger()
    editor = window.panels.settings_dialog
    assert editor.isVisible()
    window.panels.actions["settings"].trigger()      # the open editor keeps what was typed
    assert window.panels.settings_dialog is editor
    editor.close()
    assert window.panels.open_settings() is not editor


def test_saving_settings_updates_the_status_bar(window):
    assert "max 30 steps" in window.settings_label.text()
    dialog = window.panels.open_settings()
    dialog.max_steps.setValue(12)
    assert dialog.save()
    assert "max 12 steps" in window.settings_label.text() and not dialog.isVisible()


def test_run_requests_from_the_library_reach_the_window(window, qtbot):
    library = window.panels.open_skills()
    with qtbot.waitSignal(window.panels.run_skill_requested) as signal:
        library.run_skill_requested.emit("add item", {"item": "eggs"})
    assert signal.args == ["add item", {"item": "eggs"}]


def test_open_panels_hide_with_the_window_and_come_back(window):
    library = window.panels.open_skills()
    batch = window.panels.open_batch()
    window.hide()                  # as during a real run
    assert not library.isVisible() and not batch.isVisible()
    window.show()
    assert library.isVisible() and batch.isVisible()
    assert window.panels.settings_dialog is None


# -- the desktop entry ---------------------------------------------------------------------------
def test_the_desktop_entry_is_well_formed():
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(INSTALLER / "gui-agent.desktop", encoding="utf-8")
    e = entry["Desktop Entry"]
    assert e["Type"] == "Application" and e["Exec"] == "gui-agent-app" and e["Icon"] == "gui-agent"
    assert e["Categories"].endswith(";") and "Utility" in e["Categories"].split(";")
    assert e["Terminal"] == "false"
    root = ET.parse(INSTALLER / "gui-agent.svg").getroot()
    assert root.tag.endswith("svg") and root.get("viewBox") == "0 0 128 128"


def _install(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "share"))
    return subprocess.run(["bash", str(INSTALLER / "install-desktop-entry.sh"), *args], env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("mode", ["--no-xdg", "xdg"])
def test_the_install_script_installs_and_removes_the_entry_and_icon(tmp_path, mode):
    program = tmp_path / "bin" / "gui-agent-app"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    args = ("--exec", str(program)) + ((mode,) if mode.startswith("--") else ())
    out = _install(tmp_path, *args)
    assert out.returncode == 0, out.stderr
    desktop = tmp_path / "share" / "applications" / "gui-agent.desktop"
    icon = tmp_path / "share" / "icons" / "hicolor" / "scalable" / "apps" / "gui-agent.svg"
    assert f"Exec={program}\n" in desktop.read_text() and f"TryExec={program}\n" in desktop.read_text()
    assert icon.read_bytes() == (INSTALLER / "gui-agent.svg").read_bytes()
    out = _install(tmp_path, "--uninstall", *args[2:])
    assert out.returncode == 0, out.stderr
    assert not desktop.exists() and not icon.exists()


def test_the_install_script_refuses_a_missing_program(tmp_path):
    out = _install(tmp_path, "--exec", str(tmp_path / "nope"))
    assert out.returncode == 1 and "not an executable" in out.stderr
    assert not (tmp_path / "share" / "applications").exists()
    assert _install(tmp_path, "--bogus").returncode == 2


def test_a_dialog_closed_while_the_window_is_hidden_does_not_quit_the_app(qtbot, monkeypatch, tmp_path):
    """Regression: answering a confirmation during a run (main window hidden) quit the whole app."""
    from PySide6.QtWidgets import QApplication, QMessageBox

    import ui.main as app_main
    from gui_agent.config import Settings
    from ui.main_window import MainWindow

    quits = []
    monkeypatch.setattr(app_main, "_quit", lambda app: quits.append(app))
    app = QApplication.instance()
    window = MainWindow(settings_loader=lambda: Settings(runs_dir=tmp_path))
    app_main.keep_running_until_closed(app, window)
    try:
        window.show()
        window.hide()                       # as during a run
        box = QMessageBox()                 # a parentless dialog: the only window left
        box.show()
        box.close()
        qtbot.wait(50)
        assert not app.quitOnLastWindowClosed() and quits == []
        window.close()                      # closing the main window ends the app
        qtbot.waitUntil(lambda: quits == [app], timeout=3000)
    finally:
        app.setQuitOnLastWindowClosed(True)
