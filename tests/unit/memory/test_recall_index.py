"""The kept skill index: exact ranking through the inverted index, updates instead of rebuilds,
recall that scores few skills of a large library, and the store's change counter behind it."""

from __future__ import annotations

import sqlite3
import statistics
from pathlib import Path

import pytest

from gui_agent.bench.retrieval import load_dataset
from gui_agent.bench.skill_library import recall_queries, synthetic_skills
from gui_agent.memory import schema
from gui_agent.memory.experience import ExperienceMemory
from gui_agent.memory.recall import SkillIndex
from gui_agent.memory.store import MemoryStore
from gui_agent.memory.task_words import tokenize


def _signature(index: SkillIndex, task: str, limit: int) -> list[tuple]:
    return [(r.skill.name, r.score, r.values, r.confident, r.why) for r in index.rank(task, limit)]


def _exhaustive(index: SkillIndex, task: str, limit: int) -> list[tuple]:
    """What scoring every skill ranks (the index without its pruning)."""
    judged = index._judged(tokenize(task), max(limit, 2), prune=False)
    return [(index._index().entries[k].skill.name, score) for score, _, _, k in judged[:limit]]


@pytest.fixture(scope="module")
def mixed() -> tuple[list, list[str]]:
    skills, cases = load_dataset()
    made = synthetic_skills(150, seed=4)
    library = made + skills
    tasks = [c.task for c in cases] + [q.task for q in recall_queries(made, 20)]
    return library, tasks


def test_the_inverted_index_ranks_exactly_as_scoring_every_skill(mixed) -> None:
    library, tasks = mixed
    index = SkillIndex(library)
    for task in tasks:
        ranked = [(r.skill.name, r.score) for r in index.rank(task, 3)]
        assert ranked == [(n, round(s, 4)) for n, s in _exhaustive(index, task, 3)], task


def test_an_updated_index_ranks_as_one_built_afresh(mixed) -> None:
    library, tasks = mixed
    kept = SkillIndex(library[:150])
    kept.rank(tasks[0], 1)                       # its numbers made once, then changed
    kept.update(library[150:])
    dropped = {s.name for s in library[::7]}
    kept.remove(dropped)
    fresh = SkillIndex([s for s in library if s.name not in dropped])
    assert kept.names == fresh.names
    for task in tasks:
        assert _signature(kept, task, 3) == _signature(fresh, task, 3), task


def test_recall_in_a_library_of_10000_skills_scores_only_a_few(monkeypatch) -> None:
    library = synthetic_skills(10_000)
    index = SkillIndex(library)
    scored: list[int] = []
    judge = SkillIndex._judge

    def counting(self, k, toks, post):
        scored[-1] += 1
        return judge(self, k, toks, post)

    monkeypatch.setattr(SkillIndex, "_judge", counting)
    queries = recall_queries(library, 40)
    right = 0
    for q in queries:
        scored.append(0)
        best = index.best(q.task)
        right += (best.skill.name if best else None) == q.skill
    assert right == len(queries)
    # sub-linear: a task is scored against a handful of the 10,000 skills, not all of them
    assert statistics.median(scored) <= 10 and max(scored) <= 100, scored


def test_the_memory_keeps_its_index_and_follows_the_store(tmp_path: Path) -> None:
    skills, _ = load_dataset()
    store = MemoryStore(tmp_path / "m.sqlite3")
    memory = ExperienceMemory(store)
    for s in skills[:5]:
        store.save_skill(s)
    index = memory._index()
    assert len(index) == 5
    entries = dict(index._entries)
    assert memory._index() is index and index._entries == entries      # nothing changed: kept
    store.save_skill(skills[5])
    assert len(memory._index()) == 6 and all(index._entries[n] is e for n, e in entries.items())
    store.record_skill_run(skills[0].name, True)                          # statistics only
    assert memory._index()._entries[skills[0].name] is entries[skills[0].name]
    assert memory._index()._entries[skills[0].name].skill.stats.runs == 1
    store.rename_skill(skills[1].name, "renamed")
    store.delete_skill(skills[2].name)
    assert memory._index().names == {s.name for s in store.list_skills(include_flagged=True)}
    other = MemoryStore(tmp_path / "m.sqlite3")                          # another process's write
    other.save_skill(skills[6])
    assert skills[6].name in memory._index().names
    other.close()
    store.close()


def test_a_version_3_database_gains_the_change_counter(tmp_path: Path) -> None:
    skills, _ = load_dataset()
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    schema.migrate(conn, 0, 3)
    conn.execute("INSERT INTO skills (name, description, created_at, updated_at) VALUES ('old', 'an old "
                 "skill', 1, 1)")
    conn.execute("INSERT INTO skill_steps (skill_id, position, action) VALUES (1, 0, 'click(''OK'')')")
    conn.execute("COMMIT")
    conn.close()
    store = MemoryStore(path)
    assert [s.name for s in store.list_skills()] == ["old"]
    first = store.skill_changes(None)
    assert first.names == {"old"} and [s.name for s in first.changed] == ["old"]
    assert store.skill_changes(first.revision) is None
    store.save_skill(skills[0])
    later = store.skill_changes(first.revision)
    assert [s.name for s in later.changed] == [skills[0].name] and later.names == {"old", skills[0].name}
    store.close()


def test_one_query_loads_what_five_per_skill_did(tmp_path: Path) -> None:
    skills, _ = load_dataset()
    store = MemoryStore(tmp_path / "m.sqlite3")
    for s in skills:
        store.save_skill(s)
    store.record_skill_run(skills[0].name, True, [True, None])
    for _ in range(4):
        store.record_skill_run(skills[1].name, False)
    one = store.list_skills(include_flagged=True)
    each = store._db.read(lambda c: [store._skill(c, r) for r in c.execute("SELECT * FROM skills ORDER BY name")])
    assert one == each and sum(s.flagged for s in one) == 1
    store.close()
