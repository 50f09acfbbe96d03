"""End-to-end under Xvfb: record a login on the playground driven by real input (xdotool), with
gui-agent's own injected input in the middle; compile it; the secret is in no file. And Ctrl+C
ends `gui-agent record` cleanly, its own keys not recorded."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from gui_agent.playground import launch_playground
from gui_agent.playground.state import find_target, target_center
from tests.support.paths import REPO
from tests.support.requirements import require_tool
from tests.support.signals import interruptible
from tests.support.waiting import wait_until

pytestmark = [pytest.mark.e2e("xvfb", "input", "qt"), pytest.mark.timeout(180)]

SECRET = "hunter2"


def xdotool(*args: str) -> None:
    subprocess.run(["xdotool", *args], check=True, timeout=20)


def click_at(state: dict, text: str, kind: str) -> None:
    x, y = target_center(find_target(state["targets"], text, kind))
    xdotool("mousemove", str(x), str(y), "click", "1")  # X keeps the order of what follows


@pytest.fixture()
def app(xvfb: str, tmp_path: Path):
    require_tool("xdotool", apt="xdotool")
    playground = launch_playground(tmp_path / "state.json", display=xvfb)
    try:
        playground.wait_ready(timeout=60)   # shown and painted
        yield playground
    finally:
        playground.close()


def test_record_login_with_real_input_and_compile(app, tmp_path: Path, monkeypatch) -> None:
    from gui_agent.control import PyAutoGuiController
    from gui_agent.control.injection import injecting, is_injecting
    from gui_agent.geometry import Point
    from gui_agent.memory import MemoryStore
    from gui_agent.memory.portable import export_skill
    from gui_agent.parsing.screen_parser import ScreenParser
    from gui_agent.recording import Recorder, compile_demo

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    parser = ScreenParser()
    state = app.state()
    folder = tmp_path / "demo"
    recorder = Recorder(folder, "playground login")
    recorder.start()
    click_at(state, "Username", "field")
    xdotool("type", "--delay", "40", "ann")
    app.wait_for(lambda s: s["login"]["username"] == "ann")
    with injecting():                       # gui-agent's own input: never recorded
        x, y = target_center(find_target(state["targets"], "Remember me", "checkbox"))
        PyAutoGuiController().click(Point(x, y))
    app.wait_for(lambda s: s["login"]["remember_me"] is True)
    # input heard within the grace period after an injection counts as gui-agent's own
    wait_until(lambda: not is_injecting(), "the injection's grace period to end", timeout=10)
    click_at(state, "Password", "field")
    xdotool("type", "--delay", "40", SECRET)
    app.wait_for(lambda s: s["login"]["password_length"] == len(SECRET))
    click_at(state, "Log in", "button")
    app.wait_for(lambda s: s["login"]["status"] == "Welcome, ann!")
    xdotool("key", "ctrl+alt+Escape")        # the default stop hotkey
    assert recorder.wait(10), "the stop hotkey did not stop the recorder"
    demo = recorder.finish()

    assert demo.meta.stop_reason == "stop hotkey"
    assert [(e.kind, e.text) for e in demo.events] == [
        ("click", None), ("type", "ann"), ("click", None), ("type", "{secret:password}"), ("click", None)]
    assert demo.events[0].window == "gui-agent playground" and demo.events[3].secret == "password"
    assert [(p.name, p.secret) for p in demo.meta.parameters] == [("username", False), ("password", True)]
    assert all((folder / "frames" / e.before).is_file() and (folder / "frames" / e.after).is_file()
               for e in demo.events)

    skill = compile_demo(demo, parser=parser)
    assert [s.action for s in skill.steps] == [
        "type('{username}', into='the Username field')",
        "type('{secret_password}', into='the Password field')",
        "click('\"Log in\"')",
    ]
    assert all(s.crop and Path(s.crop).is_file() and s.box for s in skill.steps)
    assert {p.name: p.default for p in skill.parameters} == {"username": "ann", "secret_password": None}

    with MemoryStore(tmp_path / "m.sqlite3") as store:
        store.save_skill(skill)
        export = export_skill(store, skill.name, tmp_path / "skill.zip")
    blobs = {str(p): p.read_bytes() for root in (folder, tmp_path) for p in root.rglob("*") if p.is_file()
             and p.name not in ("state.json", "state.json.log")}
    with zipfile.ZipFile(export) as zf:
        blobs.update({f"zip:{n}": zf.read(n) for n in zf.namelist()})
    leaked = [name for name, data in blobs.items() if SECRET.encode() in data]
    assert len(blobs) > 10 and not leaked, f"the secret is written in {leaked}"


def test_ctrl_c_ends_record_command_cleanly(app, tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    script = ("import argparse, sys; from pathlib import Path; "
              "from gui_agent.commands.record import record_command; "
              "sys.exit(record_command(argparse.Namespace(name='hello', out=Path(sys.argv[1]), "
              "stop_hotkey=None, secret_field=[], secret_hotkey=None, monitor=None, max_seconds=60, "
              "no_compile=True, replace=False, memory=Path(sys.argv[2]))))")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", script, str(folder), str(tmp_path / "m.sqlite3")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            preexec_fn=interruptible)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("Recording 'hello'"), line
        click_at(app.state(), "Username", "field")
        xdotool("type", "--delay", "40", "hi")
        app.wait_for(lambda s: s["login"]["username"] == "hi")
        xdotool("key", "ctrl+c")             # what reaches the app when Ctrl+C is typed in a terminal
        # The recorder writes an event when the next one is made: the click and "hi" are in
        # events.jsonl once it has made the Ctrl+C keys an event. Only then comes the signal
        # (before, the keys could straddle the stop, and half of them be recorded).
        events = folder / "events.jsonl"
        wait_until(lambda: events.is_file() and len(events.read_text().splitlines()) >= 2,
                   "the recorder to hear Ctrl+C", timeout=30)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out
    assert "stopped: interrupted (Ctrl+C)" in out and "gui-agent compile" in out
    from gui_agent.recording import load_demo

    demo = load_demo(folder)
    assert [(e.kind, e.text) for e in demo.events] == [("click", None), ("type", "hi")]
