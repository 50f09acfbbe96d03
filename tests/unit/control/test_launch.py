"""open_app goes through the controller: a dry run launches nothing; the real one launches only
what the application registry resolves, without a shell."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from gui_agent.actions import OpenApp
from gui_agent.control import DryRunController, PyAutoGuiController
from gui_agent.control.app_registry import AppRefused, AppRegistry, XdgApplications
from gui_agent.control.dry_run import DryRunEntry
from gui_agent.control.launcher import launch_app
from gui_agent.executor import perform


def _no_popen(*args: object, **kwargs: object) -> None:
    raise AssertionError(f"a program was started: {args}")


@pytest.fixture
def evil_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An executable 'evil-app' on PATH that leaves a marker when run."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marker = tmp_path / "ran"
    script = bin_dir / "evil-app"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "none"))
    monkeypatch.setenv("XDG_DATA_DIRS", str(tmp_path / "none"))
    return marker


@pytest.mark.parametrize("app", ["evil-app", "/tmp/evil.sh", "gedit"])
def test_a_dry_run_launches_nothing_and_records_the_launch(
        app: str, evil_on_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subprocess, "Popen", _no_popen)
    dry = DryRunController()
    if "/" in app:
        with pytest.raises(AppRefused, match="by its path"):
            perform(OpenApp(app), {}, dry)
        assert dry.log == []
    else:
        perform(OpenApp(app), {}, dry)
        assert dry.log == [DryRunEntry("launch", {"app": app})]
    assert not evil_on_path.exists()


def test_a_dry_run_with_the_registry_records_what_would_run(tmp_path: Path) -> None:
    apps_dir = tmp_path / "applications"
    apps_dir.mkdir()
    (apps_dir / "pad.desktop").write_text(
        "[Desktop Entry]\nType=Application\nName=Pad\nExec=pad-bin --new %F\n")
    dry = DryRunController(apps=AppRegistry(XdgApplications([apps_dir])))
    perform(OpenApp("Pad"), {}, dry)
    assert dry.log[0].params == {"app": "Pad", "argv": ("pad-bin", "--new"),
                                 "source": str(apps_dir / "pad.desktop")}
    with pytest.raises(AppRefused, match="no application of that name"):
        dry.launch("evil-app")


def test_a_program_on_path_is_not_launched_by_name_alone(evil_on_path: Path) -> None:
    controller = PyAutoGuiController()
    with pytest.raises(AppRefused, match="not in allow_apps"):
        perform(OpenApp("evil-app"), {}, controller)
    time.sleep(0.2)
    assert not evil_on_path.exists()


def test_allow_apps_launches_the_program_on_path(evil_on_path: Path) -> None:
    controller = PyAutoGuiController(apps=AppRegistry(XdgApplications(), ("evil-app",)))
    perform(OpenApp("evil-app"), {}, controller)
    deadline = time.monotonic() + 10
    while not evil_on_path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert evil_on_path.exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG desktop entries")
def test_the_exec_line_runs_without_a_shell_and_without_field_codes(tmp_path: Path) -> None:
    out = tmp_path / "argv.txt"
    script = tmp_path / "show-args"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {out}\n')
    script.chmod(0o755)
    apps_dir = tmp_path / "applications"
    apps_dir.mkdir()
    (apps_dir / "show.desktop").write_text(
        "[Desktop Entry]\nType=Application\nName=Show Args\n"
        f'Exec={script} --flag "$(touch {tmp_path}/pwned)" %U\n')
    entry = launch_app("Show Args", AppRegistry(XdgApplications([apps_dir])))
    assert entry.argv[0] == str(script)
    deadline = time.monotonic() + 10
    while not (out.exists() and out.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert out.read_text().splitlines() == ["--flag", f"$(touch {tmp_path}/pwned)"]
    assert not (tmp_path / "pwned").exists()


def test_the_real_controller_starts_argv_detached(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    calls: list[tuple[object, dict[str, object]]] = []
    monkeypatch.setattr(subprocess, "Popen", lambda argv, **kw: calls.append((argv, kw)))
    apps_dir = tmp_path / "applications"
    apps_dir.mkdir()
    (apps_dir / "pad.desktop").write_text(
        f"[Desktop Entry]\nType=Application\nName=Pad\nExec=pad-bin %f\nPath={tmp_path}\n")
    PyAutoGuiController(apps=AppRegistry(XdgApplications([apps_dir]))).launch("pad")
    [(argv, kw)] = calls
    assert argv == ["pad-bin"]
    assert kw.get("shell", False) is False and kw["start_new_session"] is True
    assert kw["stdin"] is subprocess.DEVNULL and kw["cwd"] == str(tmp_path)


def test_a_failed_start_is_a_control_error(tmp_path: Path) -> None:
    from gui_agent.errors import ControlError

    apps_dir = tmp_path / "applications"
    apps_dir.mkdir()
    (apps_dir / "gone.desktop").write_text(
        "[Desktop Entry]\nType=Application\nName=Gone\nExec=/nonexistent/gone-bin\n")
    with pytest.raises(ControlError, match=r"cannot open 'Gone' \(/nonexistent/gone-bin"):
        launch_app("Gone", AppRegistry(XdgApplications([apps_dir])))


def test_the_executor_no_longer_starts_programs_itself() -> None:
    import gui_agent.executor as executor

    assert not hasattr(executor, "launch_app") and not hasattr(executor, "subprocess")


def test_a_screenshot_run_of_a_model_reply_that_opens_a_script_launches_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The hole: `gui-agent run --screenshot FILE` started a script a model reply named."""
    import subprocess

    from PIL import Image

    from gui_agent.cli import main

    started: list[object] = []
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: started.append(a) or pytest.fail("launched"))
    shot = tmp_path / "shot.png"
    Image.new("RGB", (320, 200), "white").save(shot)
    code = main(["run", "--screenshot", str(shot), "--runs-dir", str(tmp_path / "runs"), "--safety", "allow",
                 "open mousepad"])
    out = capsys.readouterr().out
    assert code == 0 and started == []
    assert "would" in out and "nothing was performed or launched" in out


def _still_agent(tmp_path: Path, safety: str, confirm, apps: AppRegistry):
    from PIL import Image

    from gui_agent import AgentHooks, Engine
    from gui_agent.config import Settings
    from gui_agent.desktop import StillDesktop
    from gui_agent.planner import offline_planner
    from gui_agent.safety import SafetyGate
    from gui_agent.screen.observation import Observation

    settings = Settings(runs_dir=tmp_path / "runs", safety=safety)
    desktop = StillDesktop(Observation.from_image(Image.new("RGB", (320, 200), "white")))
    desktop.controller = PyAutoGuiController(apps=apps)
    return Engine(desktop, offline_planner(), settings=settings, hooks=AgentHooks(confirm=confirm),
                 safety=SafetyGate.from_settings(settings, apps), live=False)


def test_an_unknown_program_is_refused_in_refuse_mode(evil_on_path: Path, tmp_path: Path) -> None:
    apps = AppRegistry.for_platform()
    result = _still_agent(tmp_path, "refuse", None, apps).run("open evil-app")
    assert result.outcome == "refused" and "not an application this desktop lists" in result.reason
    assert not evil_on_path.exists()


def test_an_unknown_program_is_asked_about_and_started_only_when_allowed(
        evil_on_path: Path, tmp_path: Path) -> None:
    asked: list[str] = []
    no = _still_agent(tmp_path, "ask", lambda a, c, why: asked.append(why) or False, AppRegistry.for_platform())
    assert no.run("open evil-app").outcome == "refused" and asked
    assert not evil_on_path.exists()
    yes = _still_agent(tmp_path, "ask", lambda a, c, why: True, AppRegistry.for_platform())
    assert yes.run("open evil-app").outcome == "done"
    deadline = time.monotonic() + 10
    while not evil_on_path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert evil_on_path.exists()
