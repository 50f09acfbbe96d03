"""A password given in a task never reaches the disk: the real command on the real playground.

`gui-agent run 'log in as ann with password …' --save-as login` under Xvfb with the memory on,
then `skills show` and `skills export`; every file under the data folder (the run folder, its
name, the SQLite database and its WAL, the export) is scanned for the password in every form
it could take. Before the fix it was in run.json, steps.jsonl, the database and the folder name.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e("xvfb", "input", "qt")

PASSWORD = "Hunter3Secret"


def _gui_agent(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gui_agent.cli", *args], env=env, capture_output=True,
                          text=True, timeout=240)


def _occurrences(root: Path, secret: str) -> list[str]:
    forms = {secret, secret.lower(), repr(secret)[1:-1]}
    found = []
    for path in root.rglob("*"):
        if any(form in path.name for form in forms):
            found.append(f"name: {path}")
        if path.is_file():
            data = path.read_bytes()
            found += [f"{path}: {form!r}" for form in forms if form.encode() in data]
    return found


def test_a_task_password_is_in_no_file_of_the_data_folder(xvfb: str, tmp_path: Path) -> None:
    from gui_agent.playground import launch_playground

    data = tmp_path / "data"
    env = {**os.environ, "GUI_AGENT_DATA_DIR": str(data), "GUI_AGENT_USE_MEMORY": "1", "DISPLAY": xvfb}
    env.pop("GUI_AGENT_MEMORY", None)
    with launch_playground(tmp_path / "state.json", save_dir=tmp_path / "files") as app:
        app.wait_ready()
        run = _gui_agent(["run", f"log in as ann with password {PASSWORD}", "--safety", "refuse",
                          "--save-as", "login"], env)
        assert run.returncode == 0, run.stdout + run.stderr
        state = app.wait_for(lambda s: s.get("login", {}).get("logged_in_as") == "ann", timeout=5)
    assert state["login"]["password_length"] == len(PASSWORD)     # the real password was typed
    shown = _gui_agent(["skills", "show", "login"], env)
    exported = _gui_agent(["skills", "export", "login", str(data / "login.zip")], env)
    assert shown.returncode == 0 and exported.returncode == 0, shown.stderr + exported.stderr
    for output in (run.stdout, run.stderr, shown.stdout):
        assert PASSWORD not in output
    assert "secret" in shown.stdout.lower()          # the password is a secret parameter now
    assert _occurrences(data, PASSWORD) == []
    for path in [data, *data.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), f"{path} is {oct(mode)}"
