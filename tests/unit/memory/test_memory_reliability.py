"""The memory survives kill -9, refuses corrupt, foreign and newer files without touching them,
migrates older ones, and takes several writing processes at once."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from itertools import pairwise
from pathlib import Path

import pytest

from gui_agent.errors import MemoryStoreError
from gui_agent.memory import MemoryStore, Skill, SkillStep, schema
from gui_agent.trajectory import RunResult, StepLog
from tests.support.paths import REPO

WRITER = textwrap.dedent("""
    import sys
    import time
    from pathlib import Path
    from gui_agent.memory import MemoryStore, Skill, SkillStep
    from gui_agent.trajectory import RunResult, StepLog

    path, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with MemoryStore(path) as store:
        try:
            store.save_skill(Skill("shared", steps=(SkillStep('click("OK")'),)))
        except Exception:   # another writer saved it first
            pass
        if len(sys.argv) > 4:   # a start barrier, so that the writers really overlap
            barrier = Path(sys.argv[4])
            (barrier / f"ready-{tag}").touch()
            deadline = time.monotonic() + 30
            while not (barrier / "go").exists() and time.monotonic() < deadline:
                time.sleep(0.005)
        i = 0
        while count < 0 or i < count:
            steps = tuple(StepLog(index=k, subtask="s", action=f'click("{tag}-{i}-{k}")', outcome="ok")
                          for k in range(3))
            eid = store.record_episode(RunResult(task=f"{tag}-{i}", outcome="done", steps=steps))
            store.record_skill_run("shared", i % 2 == 0, [i % 2 == 0])
            print(eid, f"{tag}-{i}", flush=True)
            i += 1
""")


def _writer(path: Path, tag: str, count: int, barrier: Path | None = None) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    extra = [str(barrier)] if barrier else []
    return subprocess.Popen([sys.executable, "-c", WRITER, str(path), tag, str(count), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def test_kill_9_during_writes_loses_no_committed_episode(tmp_path):
    path = tmp_path / "memory.sqlite3"
    proc = _writer(path, "k", -1)
    committed: list[tuple[int, str]] = []
    deadline = time.monotonic() + 20
    while len(committed) < 40 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        eid, task = line.split()
        committed.append((int(eid), task))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    proc.stderr.close()
    assert len(committed) >= 40, "the writer did not get going"
    assert _integrity(path) == "ok"
    with MemoryStore(path) as store:
        for eid, task in committed:
            ep = store.episode(eid)
            assert ep is not None and ep.task == task and len(ep.steps) == 3
            assert ep.steps[2].action == f'click("{task}-2")'
        assert store.skill("shared").stats.runs >= len(committed)


@pytest.mark.parametrize("content", [
    os.urandom(4096),
    b"SQLite format 3\x00" + os.urandom(4080),
])
def test_a_corrupt_file_is_refused_by_name_and_never_overwritten(tmp_path, content):
    path = tmp_path / "memory.sqlite3"
    path.write_bytes(content)
    with pytest.raises(MemoryStoreError) as err:
        MemoryStore(path)
    assert str(path) in str(err.value) and "untouched" in str(err.value)
    assert path.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["memory.sqlite3"]


def _foreign(path: Path, app_id: int | None) -> bytes:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
    conn.execute("INSERT INTO contacts VALUES ('Ann', '123')")
    if app_id is not None:
        conn.execute(f"PRAGMA application_id = {app_id}")
    conn.commit()
    conn.close()
    return path.read_bytes()


@pytest.mark.parametrize("app_id, message", [
    (None, "another application (no gui-agent schema)"),
    (0x12345678, "another application (application_id 0x12345678)"),
])
def test_a_foreign_sqlite_database_is_refused_and_left_untouched(tmp_path, app_id, message):
    path = tmp_path / "contacts.db"
    before = _foreign(path, app_id)
    with pytest.raises(MemoryStoreError, match=re.escape(message)) as err:
        MemoryStore(path)
    assert str(path) in str(err.value)
    assert path.read_bytes() == before
    assert not Path(str(path) + "-wal").exists()


def test_a_database_from_a_newer_gui_agent_is_refused(tmp_path):
    path = tmp_path / "memory.sqlite3"
    MemoryStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(schema.SCHEMA_VERSION + 1),))
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(MemoryStoreError, match=r"newer gui-agent .*Upgrade gui-agent"):
        MemoryStore(path)
    assert path.read_bytes() == before


def test_an_older_database_is_migrated_keeping_its_data(tmp_path):
    path = tmp_path / "memory.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    schema.migrate(conn, 0, target=1)
    conn.execute("INSERT INTO episodes (task, outcome, created_at) VALUES ('old task', 'done', 1.0)")
    conn.execute("INSERT INTO episode_steps (episode_id, idx, action, outcome) VALUES (1, 0, 'wait(1)', 'ok')")
    conn.execute("COMMIT")
    conn.close()
    with MemoryStore(path) as store:
        ep = store.episode(1)
        assert ep.task == "old task" and ep.model is None and ep.steps[0].action == "wait(1)"
        store.save_skill(Skill("new", steps=(SkillStep("wait(1)"),), examples=("pause",)))
        assert store.skill("new").examples == ("pause",)
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == str(
        schema.SCHEMA_VERSION)
    conn.close()


def test_concurrent_writers_do_not_corrupt_the_store(tmp_path):
    path = tmp_path / "memory.sqlite3"
    n = 150
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    procs = [_writer(path, tag, n, barrier) for tag in ("a", "b", "c")]
    deadline = time.monotonic() + 30
    while len(list(barrier.glob("ready-*"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    (barrier / "go").touch()
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert len(out.splitlines()) == n
    assert _integrity(path) == "ok"
    with MemoryStore(path) as store:
        episodes = sorted(store.episodes(limit=None), key=lambda e: e.id)
        assert sorted(e.task for e in episodes) == sorted(f"{t}-{i}" for t in "abc" for i in range(n))
        assert all(len(e.steps) == 3 for e in episodes)
        assert store.skill("shared").stats.runs == 3 * n
    writers_in_id_order = [e.task[0] for e in episodes]
    switches = sum(a != b for a, b in pairwise(writers_in_id_order))
    assert switches > 2, "the writers never overlapped; the test proved nothing"


def test_a_store_being_created_by_another_process_is_not_taken_for_a_foreign_one(tmp_path,
                                                                                  monkeypatch):
    """The load-run race: a second gui-agent reads the new file's header (no application id
    yet), then the first one commits its schema, then the second reads the tables. Its check
    must see one snapshot, not a header from before the commit and tables from after it."""
    path = tmp_path / "memory.sqlite3"
    first = sqlite3.connect(path, isolation_level=None)
    first.execute("PRAGMA journal_mode = WAL")   # what the first creator does before migrating
    real_read_version = schema.read_version
    raced = []

    def read_version_after_the_other_commits(conn):
        if not raced:
            raced.append(True)
            first.execute("BEGIN IMMEDIATE")
            schema.migrate(first, 0)
            first.execute("COMMIT")
        return real_read_version(conn)

    monkeypatch.setattr(schema, "read_version", read_version_after_the_other_commits)
    with MemoryStore(path) as store:
        assert store.stats()["episodes"] == 0
    first.close()
    assert raced
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == schema.APPLICATION_ID
    conn.close()


def test_one_store_object_can_be_shared_by_threads(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    with MemoryStore(tmp_path / "memory.sqlite3") as store:
        def write(i: int) -> int:
            step = StepLog(index=0, subtask="", action="wait(1)", outcome="ok")
            return store.record_episode(RunResult(task=f"t{i}", outcome="done", steps=(step,)))

        with ThreadPoolExecutor(4) as pool:
            ids = list(pool.map(write, range(40)))
        assert len(set(ids)) == 40 and store.stats()["steps"] == 40
