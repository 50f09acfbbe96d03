"""MemoryStore: episodes with their screenshots, skills with anchors and statistics, pruning."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest
from PIL import Image

from gui_agent.errors import ConfigError, MemoryStoreError
from gui_agent.memory import (
    MemoryStore,
    Skill,
    SkillNameTaken,
    SkillNotFound,
    SkillParameter,
    SkillStep,
    default_memory_path,
)
from gui_agent.memory.schema import APPLICATION_ID, SCHEMA_VERSION
from gui_agent.trajectory import RunFolder, RunResult, StepLog


def make_run(tmp_path: Path, task: str = "type Ann into Name", outcome: str = "done") -> RunResult:
    folder = RunFolder(tmp_path / "runs", task)
    img = Image.new("RGB", (64, 48), (200, 10, 10))
    steps = []
    for i, action in enumerate(['type("Ann", into="Name")', 'click("Save")']):
        before = folder.save_image(f"{i:03d}-before", img)
        after = folder.save_image(f"{i:03d}-after", img)
        step = StepLog(index=i, subtask=task, action=action, outcome="ok", target="Name",
                       point=(10, 20), screen_point=(11, 21), box=(1, 2, 30, 40), source="ocr",
                       score=0.9, before=before, after=after, timings={"ground": 0.25})
        folder.append_step(step)
        steps.append(step)
    result = RunResult(task=task, outcome=outcome, reason="all done", steps=tuple(steps),
                       run_dir=folder.path, seconds=3.5)
    folder.finish(result)
    return result


def greet_skill(name: str = "greet", crop: str | None = None) -> Skill:
    return Skill(
        name=name, description="type a name and save",
        parameters=(SkillParameter("who", default="Ann"),
                    SkillParameter("times", kind="number", default=2),
                    SkillParameter("mode", kind="choice", choices=("fast", "slow"), default="fast")),
        steps=(SkillStep('type("{who}", into="Name")', target="the Name field", ocr_text="Name",
                         crop=crop, landmarks=(("Name", 120, 0),), post_text="{who}"),
               SkillStep('click("Save")', target="Save", post_region=(0, 0, 100, 50))),
        examples=("greet Bob", "say hello to Ann"), source="recorded",
    )


@pytest.fixture()
def store(tmp_path):
    with MemoryStore(tmp_path / "mem" / "memory.sqlite3") as s:
        yield s


def test_a_new_store_is_wal_with_foreign_keys_and_its_identity(store):
    conn = sqlite3.connect(store.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    meta = dict(conn.execute("SELECT key, value FROM meta"))
    assert meta == {"app": "gui-agent-memory", "schema_version": str(SCHEMA_VERSION)}
    assert store._db._conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    conn.close()


def test_an_episode_round_trips_and_its_screenshots_are_copied_beside_the_database(store, tmp_path):
    result = make_run(tmp_path)
    eid = store.record_episode(result, model="qwen")
    ep = store.episode(eid)
    assert (ep.task, ep.outcome, ep.reason, ep.model, ep.seconds) == (
        result.task, "done", "all done", "qwen", 3.5)
    assert ep.ok and len(ep.steps) == 2
    step = ep.steps[0]
    assert step.action == 'type("Ann", into="Name")' and step.source == "ocr"
    assert step.point == (10, 20) and step.screen_point == (11, 21) and step.box == (1, 2, 30, 40)
    assert dict(step.timings) == {"ground": 0.25}
    assert step.before.startswith("shots/") and not Path(step.before).is_absolute()
    copied = store.shot_path(step.before)
    assert copied.is_file() and copied.parent.parent == store.path.parent / "shots"
    # the store's copy survives the run folder's removal
    import shutil

    shutil.rmtree(result.run_dir)
    assert Image.open(copied).size == (64, 48)


def test_a_missing_screenshot_is_left_out_not_fatal(store, tmp_path):
    step = StepLog(index=0, subtask="", action='click("OK")', outcome="failed", before="shots/none.png")
    eid = store.record_episode(RunResult(task="t", outcome="failed", steps=(step,), run_dir=tmp_path))
    assert store.episode(eid).steps[0].before is None


def test_episodes_are_newest_first_and_limited(store, tmp_path):
    for i in range(4):
        store.record_episode(RunResult(task=f"task {i}", outcome="done"), created_at=1000.0 + i)
    assert [e.task for e in store.episodes(limit=3)] == ["task 3", "task 2", "task 1"]
    assert store.episode(9999) is None


def test_a_skill_round_trips_with_typed_parameters_anchors_and_examples(store, tmp_path):
    crop = tmp_path / "crop.png"
    Image.new("RGB", (20, 10), (0, 0, 255)).save(crop)
    sid = store.save_skill(greet_skill(crop=str(crop)))
    assert sid > 0
    got = store.skill("greet")
    want = greet_skill()
    assert got.parameters == want.parameters and got.examples == want.examples
    assert got.parameters[1].default == 2.0
    first = got.steps[0]
    assert first.landmarks == (("Name", 120, 0),) and first.ocr_text == "Name"
    assert first.crop.startswith("crops/") and store.shot_path(first.crop).read_bytes() == crop.read_bytes()
    assert got.steps[1].post_region == (0, 0, 100, 50)
    assert got.render({"who": 'Bo "B"'})[0] == 'type("Bo \\"B\\"", into="Name")'
    assert store.skill("GREET") is not None   # names are case-insensitive
    assert store.skill("nope") is None


def test_invalid_skills_are_refused_before_anything_is_written(store):
    with pytest.raises(ConfigError, match="undeclared"):
        Skill("x", steps=(SkillStep('click("{who}")'),))
    with pytest.raises(ConfigError, match="not a valid action"):
        store.save_skill(Skill("x", steps=(SkillStep("fly(to='moon')"),)))
    with pytest.raises(ConfigError, match="needs a number"):
        SkillParameter("n", kind="number", default="many")
    with pytest.raises(ConfigError, match="one of"):
        greet_skill().values({"mode": "medium"})
    with pytest.raises(ConfigError, match="invalid skill name"):
        Skill("../evil", steps=(SkillStep('click("OK")'),))
    assert store.list_skills(include_flagged=True) == []


def test_rename_delete_and_clashes(store, tmp_path):
    crop = tmp_path / "c.png"
    Image.new("RGB", (4, 4)).save(crop)
    store.save_skill(greet_skill(crop=str(crop)))
    store.save_skill(greet_skill("other"))
    with pytest.raises(SkillNameTaken):
        store.save_skill(greet_skill("other"))
    with pytest.raises(SkillNameTaken):
        store.rename_skill("greet", "Other")
    with pytest.raises(SkillNotFound, match="no skill named 'ghost'"):
        store.rename_skill("ghost", "x")
    store.rename_skill("greet", "hello")
    assert store.skill("greet") is None and store.skill("hello").steps[0].crop
    crop_file = store.shot_path(store.skill("hello").steps[0].crop)
    os.utime(crop_file, (0, 0))   # older than the grace period for unreferenced files
    store.delete_skill("hello")
    assert store.skill("hello") is None and not crop_file.exists()
    with pytest.raises(SkillNotFound):
        store.delete_skill("hello")
    assert store._db._conn.execute("SELECT count(*) FROM skill_steps").fetchone()[0] == 2  # only 'other'


def test_run_statistics_per_skill_and_step_and_flagging(store):
    store.save_skill(greet_skill())
    store.save_skill(greet_skill("steady"))
    store.record_skill_run("greet", True, [True, True])
    store.record_skill_run("greet", False, [True, False])
    assert not store.skill("greet").flagged                 # only 2 runs
    stats = store.record_skill_run("greet", False, [False, None])
    assert (stats.runs, stats.successes, stats.failures) == (3, 1, 2)
    assert stats.flagged
    steps = store.skill("greet").steps
    assert (steps[0].successes, steps[0].failures) == (2, 1)
    assert (steps[1].successes, steps[1].failures) == (1, 1)
    assert [s.name for s in store.list_skills()] == ["steady"]
    assert [s.name for s in store.list_skills(include_flagged=True)] == ["greet", "steady"]
    for _ in range(3):   # the recent window recovers
        store.record_skill_run("greet", True, [True, True])
    assert not store.skill("greet").flagged
    with pytest.raises(SkillNotFound):
        store.record_skill_run("ghost", True)


def test_replacing_a_skill_keeps_its_history(store):
    store.save_skill(greet_skill())
    store.record_skill_run("greet", True, [True, True])
    store.save_skill(Skill(name="greet", steps=(SkillStep('click("New")'),)), replace=True)
    got = store.skill("greet")
    assert got.render() == ('click("New")',) and got.stats.runs == 1


def test_prune_by_age_and_count_deletes_episodes_and_their_files(store, tmp_path):
    now = time.time()
    ids = [store.record_episode(make_run(tmp_path, f"task {i}"), created_at=now - (10 - i) * 86400)
           for i in range(4)]
    folders = [store.shot_path(store.episode(i).steps[0].before).parent for i in ids]
    assert all(f.is_dir() for f in folders)
    assert store.prune(keep_days=8.5)["episodes"] == 2        # 10 and 9 days old
    assert [store.episode(i) is None for i in ids] == [True, True, False, False]
    assert not folders[0].exists() and folders[2].exists()
    assert store.prune(keep_last=1)["episodes"] == 1
    assert store.episode(ids[3]) is not None and not folders[2].exists()
    assert store._db._conn.execute("SELECT count(*) FROM episode_steps").fetchone()[0] == 2


def test_prune_keeps_the_newest_even_when_old_and_sweeps_stray_folders(store, tmp_path):
    old = time.time() - 100 * 86400
    ids = [store.record_episode(RunResult(task=f"t{i}", outcome="done"), created_at=old + i) for i in range(3)]
    stray = store.path.parent / "shots" / "crashed-writer"
    stray.mkdir(parents=True)
    (stray / "a.png").write_bytes(b"x")
    fresh = store.path.parent / "shots" / "being-written"
    fresh.mkdir()
    os.utime(stray, (0, 0))
    result = store.prune(keep_days=30, keep_last=2)
    assert result == {"episodes": 1, "orphan_folders": 1}
    assert store.episode(ids[0]) is None and store.episode(ids[2]) is not None
    assert not stray.exists() and fresh.exists()


def test_stats_counts_everything(store, tmp_path):
    store.record_episode(make_run(tmp_path))
    store.record_episode(RunResult(task="x", outcome="failed"))
    store.save_skill(greet_skill())
    s = store.stats()
    assert (s["episodes"], s["steps"], s["skills"], s["flagged_skills"]) == (2, 2, 1, 0)
    assert s["outcomes"] == {"done": 1, "failed": 1}
    assert s["files_bytes"] > 0 and s["database_bytes"] > 0 and s["path"] == str(store.path)


def test_the_default_path_is_in_the_data_dir_and_overridable(tmp_path, monkeypatch):
    monkeypatch.delenv("GUI_AGENT_MEMORY", raising=False)
    monkeypatch.setenv("GUI_AGENT_DATA_DIR", str(tmp_path / "data"))
    assert default_memory_path() == tmp_path / "data" / "memory.sqlite3"
    monkeypatch.setenv("GUI_AGENT_MEMORY", str(tmp_path / "elsewhere.db"))
    with MemoryStore() as s:
        assert s.path == tmp_path / "elsewhere.db"
    assert (tmp_path / "elsewhere.db").is_file()


def test_a_refused_database_names_the_settings_that_exist(tmp_path):
    """Regression: the message named a `--memory PATH` flag that `gui-agent run` does not have."""
    bad = tmp_path / "memory.sqlite3"
    bad.write_bytes(b"definitely not sqlite" * 50)
    with pytest.raises(MemoryStoreError) as caught:
        MemoryStore(bad)
    text = str(caught.value)
    assert "memory_path setting" in text and "GUI_AGENT_MEMORY" in text and "left untouched" in text
    assert "(--memory PATH or" not in text and bad.read_bytes() == b"definitely not sqlite" * 50
