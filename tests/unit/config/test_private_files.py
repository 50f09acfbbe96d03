"""Private folders and files: 0700/0600 whatever the umask, owned folders tightened, and a
read-only data folder, memory or config folder is one clear error instead of a traceback."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from gui_agent import private_files
from gui_agent.config_file import save_settings
from gui_agent.memory import MemoryStore, Skill, SkillStep
from gui_agent.memory.portable import export_skill
from gui_agent.trajectory import RunFolder, RunResult, StepLog
from tests.support.requirements import missing

posix = pytest.mark.skipif(os.name == "nt", reason="POSIX modes")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture()
def loose_umask():
    old = os.umask(0)   # the worst case: everything would be world-writable
    yield
    os.umask(old)


@pytest.fixture()
def data(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    monkeypatch.setenv("GUI_AGENT_DATA_DIR", str(folder))
    return folder


@posix
def test_private_dir_and_files_ignore_the_umask(tmp_path, loose_umask):
    folder = private_files.private_dir(tmp_path / "a" / "b", "fix it")
    assert mode(folder) == 0o700 and mode(folder.parent) == 0o777   # a parent keeps the usual mode
    private_files.write_text(folder / "t.txt", "x")
    with private_files.open_private(folder / "log.jsonl", "a", encoding="utf-8") as f:
        f.write("{}\n")
    private_files.save_image(Image.new("RGB", (4, 4)), folder / "i.png")
    private_files.copy_file(folder / "t.txt", folder / "copy.txt")
    assert {p.name: mode(p) for p in folder.iterdir()} == dict.fromkeys(
        ("t.txt", "log.jsonl", "i.png", "copy.txt"), 0o600)


@posix
def test_an_owned_folder_is_tightened_and_a_chosen_one_is_left_alone(tmp_path):
    owned, chosen = tmp_path / "owned", tmp_path / "chosen"
    for folder in (owned, chosen):
        folder.mkdir()
        folder.chmod(0o755)
    private_files.private_dir(owned, "fix it")
    private_files.private_dir(chosen, "fix it", owned=False)
    assert (mode(owned), mode(chosen)) == (0o700, 0o755)


@posix
def test_a_run_folder_is_private_and_the_data_and_runs_folders_are_tightened(data, loose_umask):
    (data / "runs").mkdir(parents=True)
    data.chmod(0o755)
    (data / "runs").chmod(0o755)
    folder = RunFolder(data / "runs", "type hello")
    img = Image.new("RGB", (8, 8))
    folder.save_crop("crop", img)
    before = folder.save_image("000-before", img)
    folder.append_step(StepLog(0, "type hello", "type('hello')", "ok", before=before))
    folder.finish(RunResult("type hello", "done", steps=()))
    assert mode(data) == mode(data / "runs") == mode(folder.path) == mode(folder.path / "shots") == 0o700
    files = [p for p in folder.path.rglob("*") if p.is_file()]
    assert {p.name for p in files} == {"run.json", "steps.jsonl", "crop.png", "000-before.png"}
    assert all(mode(p) == 0o600 for p in files)


@posix
def test_a_chosen_runs_dir_and_its_parent_keep_their_modes(tmp_path, data):
    parent = tmp_path / "mine"
    (parent / "runs").mkdir(parents=True)
    parent.chmod(0o755)
    (parent / "runs").chmod(0o755)
    folder = RunFolder(parent / "runs", "type hello")
    folder.finish(RunResult("type hello", "done"))
    assert (mode(parent), mode(parent / "runs"), mode(folder.path)) == (0o755, 0o755, 0o700)


@posix
def test_the_memory_database_its_wal_and_its_files_are_private(data, tmp_path, loose_umask):
    data.mkdir()
    data.chmod(0o755)
    crop = tmp_path / "crop.png"
    Image.new("RGB", (8, 8)).save(crop)
    folder = RunFolder(data / "runs", "type hello")
    shot = folder.save_image("000-before", Image.new("RGB", (8, 8)))
    result = RunResult("type hello", "done", steps=(StepLog(0, "", "type('hello')", "ok", before=shot),),
                       run_dir=folder.path)
    folder.finish(result)
    with MemoryStore(data / "memory.sqlite3") as store:
        store.record_episode(result)
        store.save_skill(Skill("hello", (SkillStep("type('hello')", crop=str(crop)),
                                         SkillStep("click('OK')"))))
        out = export_skill(store, "hello", data / "hello.zip")
        db_files = sorted(p.name for p in data.glob("memory.sqlite3*"))
        assert db_files == ["memory.sqlite3", "memory.sqlite3-shm", "memory.sqlite3-wal"]
        assert all(mode(data / name) == 0o600 for name in db_files)
    assert mode(data) == 0o700 and mode(out) == 0o600
    for sub in ("shots", "crops"):
        assert all(mode(p) == (0o700 if p.is_dir() else 0o600) for p in (data / sub).rglob("*"))
        assert mode(data / sub) == 0o700 and any((data / sub).rglob("*.png"))


@posix
def test_an_existing_database_with_loose_modes_is_tightened_when_opened(data):
    data.mkdir()
    with MemoryStore(data / "memory.sqlite3"):
        pass
    (data / "memory.sqlite3").chmod(0o644)
    data.chmod(0o755)
    with MemoryStore(data / "memory.sqlite3"):
        assert mode(data / "memory.sqlite3") == 0o600 and mode(data) == 0o700


@posix
def test_a_memory_file_in_a_folder_the_user_chose_leaves_that_folder_alone(tmp_path, data):
    chosen = tmp_path / "docs"
    chosen.mkdir()
    chosen.chmod(0o755)
    with MemoryStore(chosen / "mem.sqlite3"):
        pass
    assert mode(chosen) == 0o755 and mode(chosen / "mem.sqlite3") == 0o600


@posix
def test_the_config_file_is_private_and_a_loose_one_is_tightened(tmp_path, monkeypatch, loose_umask):
    config_dir = tmp_path / "config"
    monkeypatch.setenv("GUI_AGENT_CONFIG_DIR", str(config_dir))
    path = save_settings({"max_steps": 12})
    assert path.parent == config_dir and mode(config_dir) == 0o700 and mode(path) == 0o600
    path.chmod(0o644)
    config_dir.chmod(0o755)
    save_settings({"max_steps": 13})
    assert mode(path) == 0o600 and mode(config_dir) == 0o700 and "max_steps = 13" in path.read_text()


def test_a_file_where_the_data_folder_should_be_is_a_clear_error(data):
    blocker = data
    blocker.write_text("not a folder")
    with pytest.raises(private_files.NotWritable, match="it is a file, not a folder; set GUI_AGENT_DATA_DIR"):
        RunFolder(blocker / "runs", "type hello")
    with pytest.raises(private_files.NotWritable, match="not a folder"):
        MemoryStore(blocker / "memory.sqlite3")


# -- a read-only folder, for real: chmod, or (root writes anywhere) the immutable attribute -------
@pytest.fixture()
def read_only():
    """Makes a path read-only for this process; undone after the test."""
    done: list[tuple[Path, int | None]] = []

    def make(path: Path) -> Path:
        if os.geteuid() != 0:
            done.append((path, mode(path)))
            path.chmod(0o555 if path.is_dir() else 0o444)
        elif shutil.which("chattr") and subprocess.run(["chattr", "+i", str(path)],
                                                        capture_output=True).returncode == 0:
            done.append((path, None))
        else:
            missing("a read-only folder for root: `chattr +i` (e2fsprogs) on a file system "
                    "with the immutable attribute, or a run as a user other than root")
        return path

    yield make
    for path, old in reversed(done):
        if old is None:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        else:
            path.chmod(old)


def _check_clear(exc: BaseException, folder: Path) -> str:
    text = str(exc)
    assert isinstance(exc, private_files.NotWritable) and exc.path == folder
    assert "unreadable" not in text and f"cannot write to {folder}: it is read-only" in text
    assert "--memory PATH or" not in text
    return text


@posix
@pytest.mark.parametrize("existing", [False, True], ids=["new", "existing"])
def test_a_read_only_memory_folder_is_a_clear_error_not_an_unreadable_database(data, read_only, existing):
    """Regression: it was 'unreadable as a memory database (unable to open database file)'."""
    data.mkdir()
    if existing:
        MemoryStore(data / "memory.sqlite3").close()
    read_only(data)
    with pytest.raises(private_files.NotWritable) as caught:
        MemoryStore(data / "memory.sqlite3")
    text = _check_clear(caught.value, data)
    assert "memory_path" in text and "GUI_AGENT_MEMORY" in text and "--no-memory" in text


@posix
def test_a_read_only_memory_file_is_a_clear_error(data, read_only):
    data.mkdir()
    MemoryStore(data / "memory.sqlite3").close()
    read_only(data / "memory.sqlite3")
    with pytest.raises(private_files.NotWritable) as caught:
        MemoryStore(data / "memory.sqlite3")
    assert "the file is read-only" in str(caught.value) and "unreadable" not in str(caught.value)


@posix
def test_a_read_only_data_folder_is_one_clear_message_from_the_commands(data, read_only, capsys):
    from gui_agent.cli import main

    data.mkdir()
    read_only(data)
    assert main(["skills", "list", "--memory", str(data / "memory.sqlite3")]) == 2
    err = capsys.readouterr().err
    assert f"cannot write to {data}: it is read-only" in err and "Traceback" not in err


@posix
def test_a_read_only_runs_folder_is_a_clear_error(data, read_only):
    """Regression: RunFolder crashed with a PermissionError traceback."""
    data.mkdir()
    read_only(data)
    with pytest.raises(private_files.NotWritable) as caught:
        RunFolder(data / "runs", "log in with password Hunter3Secret")
    text = _check_clear(caught.value, data)
    assert "GUI_AGENT_DATA_DIR" in text and "Hunter3Secret" not in text


@posix
def test_a_read_only_config_folder_is_a_clear_error(tmp_path, read_only):
    folder = tmp_path / "config"
    folder.mkdir()
    read_only(folder)
    with pytest.raises(private_files.NotWritable) as caught:
        save_settings({"max_steps": 3}, folder / "config.toml")
    assert "read-only" in str(caught.value) and "GUI_AGENT_CONFIG_DIR" in str(caught.value)
