"""`gui-agent skills ...` and `gui-agent memory ...`: output, effects, and exit 2 on errors."""

from __future__ import annotations

import json
import time

import pytest

from gui_agent.cli import main
from gui_agent.memory import MemoryStore, Skill, SkillParameter, SkillStep
from gui_agent.trajectory import RunResult


@pytest.fixture()
def db(tmp_path):
    path = tmp_path / "mem" / "memory.sqlite3"
    with MemoryStore(path) as store:
        store.save_skill(Skill("login", description="log in to the app",
                               parameters=(SkillParameter("user", default="ann"),),
                               steps=(SkillStep('type("{user}", into="User")', target="User",
                                                landmarks=(("User", 80, 0),)),
                                      SkillStep('click("Log in")', post_text="Welcome")),
                               examples=("log in as bob",)))
        store.save_skill(Skill("broken", steps=(SkillStep('click("Gone")'),)))
        for _ in range(3):
            store.record_skill_run("broken", False, [False])
        now = time.time()
        for i in range(3):
            store.record_episode(RunResult(task=f"t{i}", outcome="done"), created_at=now - (5 - i) * 86400)
    return path


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_hides_flagged_skills_unless_all(db, capsys):
    code, out, _ = run(capsys, "skills", "list", "--memory", str(db))
    assert code == 0 and "login" in out and "broken" not in out
    code, out, _ = run(capsys, "skills", "list", "--all", "--json", "--memory", str(db))
    data = {s["name"]: s for s in json.loads(out)}
    assert data["broken"]["flagged"] and data["login"]["examples"] == ["log in as bob"]


def test_show_prints_parameters_steps_and_anchors(db, capsys):
    code, out, _ = run(capsys, "skills", "show", "login", "--memory", str(db))
    assert code == 0
    assert "param user: text = 'ann'" in out and "1. type(\"{user}\", into=\"User\")" in out
    assert "'User'+80+0" in out and "text 'Welcome' appears" in out


def test_rename_remove_export_import(db, tmp_path, capsys):
    assert run(capsys, "skills", "rename", "login", "sign in", "--memory", str(db))[0] == 0
    file = tmp_path / "s.zip"
    assert run(capsys, "skills", "export", "sign in", str(file), "--memory", str(db))[0] == 0
    assert run(capsys, "skills", "rm", "sign in", "--memory", str(db))[0] == 0
    code, out, _ = run(capsys, "skills", "import", str(file), "--memory", str(db))
    assert code == 0 and "imported 'sign in' (2 steps)" in out
    with MemoryStore(db) as store:
        assert store.skill("sign in").steps[0].target == "User" and store.skill("login") is None


@pytest.mark.parametrize("argv, message", [
    (["skills", "show", "ghost"], "no skill named 'ghost'"),
    (["skills", "rm", "ghost"], "no skill named 'ghost'"),
    (["skills", "rename", "login", "broken"], "already exists"),
    (["skills", "export", "ghost", "x.zip"], "no skill named 'ghost'"),
    (["memory", "prune"], "--keep-days N and/or --keep-last N"),
])
def test_errors_exit_2_with_a_message(db, capsys, argv, message):
    code, _, err = run(capsys, *argv, "--memory", str(db))
    assert code == 2 and message in err


def test_import_clash_and_malformed_file_exit_2(db, tmp_path, capsys):
    file = tmp_path / "s.zip"
    assert run(capsys, "skills", "export", "login", str(file), "--memory", str(db))[0] == 0
    code, _, err = run(capsys, "skills", "import", str(file), "--memory", str(db))
    assert code == 2 and "already exists" in err
    junk = tmp_path / "junk.zip"
    junk.write_text("hello")
    code, _, err = run(capsys, "skills", "import", str(junk), "--memory", str(db))
    assert code == 2 and "not a zip archive" in err and str(junk) in err


def test_memory_stats_prune_and_path(db, capsys, monkeypatch):
    code, out, _ = run(capsys, "memory", "stats", "--json", "--memory", str(db))
    stats = json.loads(out)
    assert code == 0 and stats["episodes"] == 3 and stats["skills"] == 2 and stats["flagged_skills"] == 1
    code, out, _ = run(capsys, "memory", "stats", "--memory", str(db))
    assert "episodes: 3 (done 3)" in out
    code, out, _ = run(capsys, "memory", "prune", "--keep-days", "4.5", "--memory", str(db))
    assert code == 0 and "deleted 1 episode(s)" in out
    assert run(capsys, "memory", "prune", "--keep-last", "1", "--memory", str(db))[1].startswith("deleted 1")
    monkeypatch.setenv("GUI_AGENT_MEMORY", str(db))
    assert run(capsys, "memory", "path")[1].strip() == str(db)
    assert json.loads(run(capsys, "memory", "stats", "--json")[1])["episodes"] == 1


def test_a_corrupt_database_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "memory.sqlite3"
    bad.write_bytes(b"definitely not sqlite" * 50)
    code, _, err = run(capsys, "skills", "list", "--memory", str(bad))
    assert code == 2 and str(bad) in err and "not a gui-agent memory database" in err


def test_memory_commands_use_the_memory_path_setting_runs_use(tmp_path, monkeypatch, capsys):
    """Regression: `skills`/`memory` ignored the memory_path setting and opened another database."""
    from gui_agent.cli import main

    chosen = tmp_path / "elsewhere" / "mem.sqlite3"
    monkeypatch.setenv("GUI_AGENT_MEMORY_PATH", str(chosen))
    assert main(["memory", "path"]) == 0
    assert capsys.readouterr().out.strip() == str(chosen)
    assert main(["skills", "list"]) == 0
    assert chosen.exists()
