"""A task's password never reaches the disk: a run written through RunFolder, remembered, mined,
saved with --save-as and exported leaves 0 occurrences of it in any file of the data folder;
the skill takes it as a secret parameter (from the task, --param or GUI_AGENT_SECRET_<NAME>)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from PIL import Image

from gui_agent.cli import main
from gui_agent.memory import MemoryStore
from gui_agent.memory.experience import ExperienceMemory
from gui_agent.memory.parameter_filling import fill_parameters
from gui_agent.memory.portable import export_skill
from gui_agent.secrets import MASK
from gui_agent.trajectory import RunFolder, RunResult, StepLog

PASSWORDS = ("Hunter3Secret", "Other9Pass")


def forms(secret: str) -> set[bytes]:
    """The secret as bytes, as written in Python and JSON text, and as a lower-case slug."""
    texts = {secret, repr(secret)[1:-1], json.dumps(secret)[1:-1], secret.lower()}
    return {t.encode() for t in texts}


def login_run(runs: Path, user: str, password: str) -> RunResult:
    """A finished login run, with the password wherever a run's record has text."""
    task = f"log in as {user} with password {password}"
    folder = RunFolder(runs, task)
    img = Image.new("RGB", (64, 48), (240, 240, 240))
    acts = [(f'type("{user}", into="Username")', "Username"),
            (f'type("{password}", into="Password")', "Password"),
            ('click("Log in")', "Log in")]
    steps = []
    for i, (action, target) in enumerate(acts):
        step = StepLog(
            index=i, subtask=task, action=action, outcome="ok", target=target, point=(10, 20),
            source="ocr", score=0.9, why=f"the task says {task!r}", error="",
            before=folder.save_image(f"{i:03d}-before", img, ), after=folder.save_image(f"{i:03d}-after", img),
            crop=folder.save_crop(f"{i:03d}-crop", img), ocr_text=password if target == "Password" else target,
            landmarks=((target, 80, 0), (f"hint: {password}", 0, 30)), alternatives=(f"{password} box",),
            expect=f"Welcome {user}" if i == 2 else None)
        folder.append_step(step)
        steps.append(step)
    result = RunResult(task=task, outcome="done", reason=f"logged in with {password}",
                       answer=f"the password {password} worked", steps=tuple(steps), run_dir=folder.path,
                       seconds=2.0)
    folder.finish(result)
    return result


def scan(root: Path) -> dict[str, int]:
    """Occurrences of any password form in every file (zip members unpacked) and path under root."""
    hits: dict[str, int] = {}
    needles = {f for p in PASSWORDS for f in forms(p)}
    for path in [root, *root.rglob("*")]:
        blobs = [str(path.relative_to(root)).encode()]
        if path.is_file():
            data = path.read_bytes()
            blobs.append(data)
            if zipfile.is_zipfile(path):
                with zipfile.ZipFile(path) as zf:
                    blobs += [zf.read(n) for n in zf.namelist()]
        count = sum(blob.count(n) + blob.lower().count(n.lower()) for blob in blobs for n in needles)
        if count:
            hits[str(path)] = count
    return hits


@pytest.fixture()
def data(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    monkeypatch.setenv("GUI_AGENT_DATA_DIR", str(folder))
    return folder


def test_no_file_of_the_data_folder_holds_the_password(data, capsys):
    runs, db = data / "runs", data / "memory.sqlite3"
    memory = ExperienceMemory(MemoryStore(db))
    try:
        first = login_run(runs, "ann", PASSWORDS[0])
        episode = memory.remember(first, model="offline")
        saved = memory.save_as(episode, "log in")
        memory.remember(login_run(runs, "bob", PASSWORDS[1]), model="offline")
        learned = memory.learn()
        (data / "exports").mkdir()
        export_skill(memory.store, "log in", data / "exports" / "log-in.zip")
        assert scan(data) == {}     # while the database is open: its -wal file holds the writes
    finally:
        memory.close()
    assert main(["skills", "show", "log in", "--memory", str(db)]) == 0
    assert main(["skills", "list", "--json", "--memory", str(db)]) == 0
    assert main(["skills", "export", "log in", str(data / "exports" / "cli.zip"), "--memory", str(db)]) == 0
    shown = capsys.readouterr().out
    assert not any(p in shown for p in PASSWORDS) and "param password" in shown
    files = [p for p in data.rglob("*") if p.is_file()]
    assert scan(data) == {}
    assert len(files) >= 20 and {"run.json", "steps.jsonl", "memory.sqlite3", "log-in.zip"} <= {
        p.name for p in files}
    # The data is all there, masked: the run's record, the episode, the skills.
    run_json = json.loads((first.run_dir / "run.json").read_text())
    assert run_json["task"] == f"log in as ann with password {MASK}"
    assert not (first.run_dir).name.endswith(PASSWORDS[0].lower())
    assert learned.created or learned.updated
    password = next(p for p in saved.parameters if p.name == "password")
    assert password.secret and password.default is None
    username = next(p for p in saved.parameters if p.name == "username")
    assert username.default == "ann" and not username.secret


def test_a_saved_skill_takes_its_secret_from_the_task_a_param_or_the_environment(data, monkeypatch):
    with MemoryStore(data / "memory.sqlite3") as store:
        memory = ExperienceMemory(store)
        skill = memory.save_as(memory.remember(login_run(data / "runs", "ann", PASSWORDS[0])), "log in")
        assert "type(\"{password}\"" in skill.steps[1].action.replace("'", '"')
        assert skill.steps[1].ocr_text is None
        assert all(MASK not in t for t, _, _ in skill.steps[1].landmarks)
        with pytest.raises(Exception, match="needs a value for 'password'"):
            skill.render({})
        assert 'type("n3w-Pass"' in skill.render({"password": "n3w-Pass"})[1].replace("'", '"')
        assert fill_parameters(skill, "log in as kim with password x9y8z7")["password"] == "x9y8z7"
        monkeypatch.setenv("GUI_AGENT_SECRET_PASSWORD", "fromEnv1")
        assert fill_parameters(skill, "log in as kim")["password"] == "fromEnv1"


def test_a_secret_typed_without_a_field_is_named_after_the_tasks_word(data):
    task = "unlock the phone with pin 4321"
    folder = RunFolder(data / "runs", task)
    steps = (StepLog(0, task, 'type("4321")', "ok"), StepLog(1, task, 'click("Unlock")', "ok"))
    for s in steps:
        folder.append_step(s)
    result = RunResult(task, "done", steps=steps, run_dir=folder.path)
    folder.finish(result)
    with MemoryStore(data / "memory.sqlite3") as store:
        memory = ExperienceMemory(store)
        skill = memory.save_as(memory.remember(result), "unlock")
    (param,) = skill.parameters
    assert (param.name, param.secret, param.default) == ("pin", True, None)
    assert "GUI_AGENT_SECRET_PIN" in param.description and "4321" not in param.description
    assert scan_for(data, "4321") == 0


def scan_for(root: Path, secret: str) -> int:
    return sum(p.read_bytes().count(secret.encode()) + str(p).count(secret)
               for p in root.rglob("*") if p.is_file())


def test_the_store_masks_what_it_is_given_even_without_a_run_folder(tmp_path):
    """Defence in depth: record_episode masks the task's secrets and an extra masker's."""
    result = RunResult("log in with password Hunter3Secret", "failed",
                       reason="wrong password Hunter3Secret; the key was sk9-extra-val",
                       steps=(StepLog(0, "", 'type("Hunter3Secret")', "failed", error="sk9-extra-val"),))
    with MemoryStore(tmp_path / "m.sqlite3") as store:
        ep = store.episode(store.record_episode(result, masker=lambda t: t.replace("sk9-extra-val", MASK)))
    assert ep.task == f"log in with password {MASK}" and ep.steps[0].action == f'type("{MASK}")'
    assert ep.reason == f"wrong password {MASK}; the key was {MASK}" and ep.steps[0].error == MASK


def test_mining_turns_a_masked_password_into_a_secret_parameter(data):
    with MemoryStore(data / "memory.sqlite3") as store:
        memory = ExperienceMemory(store)
        for user, password in zip(("ann", "bob"), PASSWORDS, strict=True):
            memory.remember(login_run(data / "runs", user, password))
        assert memory.learn().created == ("log in",)
        skill = store.require_skill("log in")
    params = {p.name: p for p in skill.parameters}
    assert params["password"].secret and params["password"].default is None
    assert not params["username"].secret
    assert all(MASK not in (s.post_text or "") for s in skill.steps)
    assert scan(data) == {}
