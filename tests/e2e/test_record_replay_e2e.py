"""Issue 6, done means: record a demonstration with real input under Xvfb, move and re-theme the
window, replay it, and check the app's state; the secret typed into the password field is in no
file of the demonstration, the skill (stored and exported), the replay's logs or its HTML report.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from gui_agent.bench.replay_cases import Demo, click, record_demo, type_
from tests.support.requirements import require_tool

pytestmark = [pytest.mark.e2e("xvfb", "input", "qt"), pytest.mark.timeout(240)]

SECRET = "Zq8-wombat-Kiln"
LOGIN_AND_ADD = Demo("login and add", (
    click("Username", "field"), type_("ann"), click("Password", "field"), type_(SECRET, True),
    click("Remember me", "checkbox"), click("Log in", "button"), click("Items", "tab"),
    click("New item", "field"), type_("Kiwis"), click("Add", "button")),
    lambda s: (s["login"]["logged_in_as"] == "ann" and s["login"]["remember_me"]
               and s["login"]["password_length"] == len(SECRET) and s["items"]["list"][-1] == "Kiwis"),
    "signed in as ann (remembered), Kiwis added")


def _files(*roots: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for root in roots for p in root.rglob("*") if p.is_file()}


def test_record_move_and_retheme_replay_and_the_secret_stays_secret(xvfb, tmp_path: Path, monkeypatch) -> None:
    require_tool("xdotool", apt="xdotool")
    from gui_agent import AgentHooks, Engine, ExperienceMemory
    from gui_agent.config import Settings
    from gui_agent.control.pyautogui_controller import PyAutoGuiController
    from gui_agent.desktop import LiveDesktop
    from gui_agent.memory.portable import export_skill
    from gui_agent.memory.store import MemoryStore
    from gui_agent.parsing.screen_parser import ScreenParser
    from gui_agent.playground import launch_playground
    from gui_agent.recording import compile_demo
    from gui_agent.report import ReportEntry, write_report

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "xdg"))
    parser = ScreenParser()
    demo_dir = tmp_path / "demo"
    with launch_playground(tmp_path / "rec" / "state.json") as app:   # light, at (0, 0)
        app.wait_ready(timeout=60)   # shown and painted
        demo, _ = record_demo(app, LOGIN_AND_ADD, demo_dir)
        recorded = app.wait_for(LOGIN_AND_ADD.check, timeout=15)
    assert recorded["window"]["x"] == 0 and recorded["theme"] == "light"
    assert [p.secret for p in demo.meta.parameters] == [False, True, False]

    skill = compile_demo(demo, name="login and add", parser=parser)
    assert {p.name: p.default for p in skill.parameters} == {"username": "ann", "secret_password": None,
                                                             "new_item": "Kiwis"}
    assert len(skill.steps) == 7 and all(s.crop and s.box for s in skill.steps)
    store = MemoryStore(tmp_path / "m.sqlite3")
    store.save_skill(skill)
    (tmp_path / "export").mkdir()
    export = export_skill(store, skill.name, tmp_path / "export" / "skill.zip")

    settings = Settings(safety="refuse", runs_dir=tmp_path / "runs")
    steps_seen: list[str] = []
    with launch_playground(tmp_path / "replay" / "state.json", pos=(170, 60), theme="dark") as app:
        app.wait_ready(timeout=60)
        engine = Engine(LiveDesktop(PyAutoGuiController(), settings.monitor), settings=settings,
                        parser=parser, memory=ExperienceMemory(store),
                        hooks=AgentHooks(on_step=lambda s: steps_seen.append(s.describe())))
        result = engine.replay(skill.name, {"secret_password": SECRET, "new_item": "Limes"})
        state = app.wait_for(lambda s: s["items"]["list"][-1:] == ["Limes"], timeout=15) if result.ok else app.state()
    described = "\n".join(s.describe() for s in result.steps)
    assert result.ok, f"{result.reason}\n{described}"
    assert state["window"]["x"] == 170 and state["theme"] == "dark"
    assert state["login"]["logged_in_as"] == "ann" and state["login"]["remember_me"]
    assert state["login"]["password_length"] == len(SECRET)         # the secret was typed ...
    assert state["items"]["list"][-1] == "Limes"
    for step in result.steps:                                        # ... every click inside the moved window
        if step.screen_point:
            x, y = step.screen_point
            assert 170 <= x < 170 + 1024 and 60 <= y < 60 + 700, step.describe()
    run = result.to_run_result(f"replay {skill.name}")
    report = write_report(Path(result.run_dir), f"replay of {skill.name}",
                          [ReportEntry(skill.name, run, result.ok, "the app's state", result.reason)])
    assert report.is_file() and "login and add" in report.read_text(encoding="utf-8")
    store.close()

    # every file: the demonstration, the store (database and crops), the export, the replay's
    # run folder and report, the playgrounds' state files and logs
    blobs = _files(tmp_path)
    with zipfile.ZipFile(export) as zf:
        blobs.update({f"zip:{n}": zf.read(n) for n in zf.namelist()})
    blobs["replay steps on the terminal"] = "\n".join(steps_seen).encode()
    blobs["replay result"] = f"{result.reason} {described}".encode()
    assert any(k.endswith("events.jsonl") for k in blobs) and any(k.endswith("index.html") for k in blobs)
    assert any(k.endswith("steps.jsonl") for k in blobs) and any(k.startswith("zip:") for k in blobs)
    leaked = [name for name, data in blobs.items() if SECRET.encode() in data]
    assert not leaked, f"the secret is written in {leaked}"
