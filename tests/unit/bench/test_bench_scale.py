"""`gui-agent bench scale`: generated frames with their words, word counting, the recall part at
small sizes, the tables and the plot."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest

from gui_agent.bench import scale
from gui_agent.bench.scale_frames import KINDS, Word, correct_words, frame
from gui_agent.bench.skill_library import recall_queries, synthetic_skills
from gui_agent.errors import ConfigError
from gui_agent.geometry import Box
from tests.support.requirements import require_module


@pytest.mark.parametrize("kind", KINDS)
def test_frames_are_generated_the_same_each_time_with_their_words(kind: str) -> None:
    a, b = frame(kind, 800, 500), frame(kind, 800, 500)
    assert a.image.size == (800, 500) and np.array_equal(np.asarray(a.image), np.asarray(b.image))
    assert len(a.words) > 40 and a.words == b.words
    assert all(w.box.left >= 0 and w.box.right <= 800 and w.box.bottom <= 500 for w in a.words)
    bigger = frame(kind, 1600, 1000)
    assert len(bigger.words) > len(a.words)


def test_a_word_counts_once_and_only_where_it_was_drawn() -> None:
    words = [Word("Save", Box(10, 10, 40, 12)), Word("Save", Box(200, 10, 40, 12)),
             Word("Cancel", Box(60, 10, 50, 12))]
    assert correct_words(words, [("Save Cancel", Box(8, 8, 110, 16))]) == 2
    assert correct_words(words, [("Save", Box(8, 8, 50, 16)), ("Save", Box(8, 8, 50, 16))]) == 1
    assert correct_words(words, [("Save.", Box(195, 8, 50, 16)), ("Open", Box(60, 8, 50, 16))]) == 1


def test_synthetic_libraries_are_distinct_and_their_tasks_name_their_skill() -> None:
    skills = synthetic_skills(500)
    assert len({s.name for s in skills}) == 500
    queries = recall_queries(skills, 20)
    assert sum(q.skill is None for q in queries) == 4
    by_name = {s.name: s for s in skills}
    for q in queries:
        if q.skill is not None:
            verb, _, obj, _, app = by_name[q.skill].description.split()
            assert all(word in q.task for word in (verb, obj, app))


def test_the_recall_part_and_the_report(tmp_path: Path) -> None:
    rows = scale.measure_recall([10, 200], queries=10, say=lambda _: None)
    assert [r.skills for r in rows] == [10, 200]
    assert all(r.right == r.tasks == 10 and r.database_bytes > 0 for r in rows)
    assert rows[1].recall_median < rows[1].rebuilt_median
    report = {"machine": scale.machine(), "recall": [r.__dict__ for r in rows],
              "parse": [scale.ParseRow("dense", "3840x2160", 2857, 1.0, 1.1, 2.0, 2.2, 0.5, 2800, 2700).__dict__],
              "skills": {"tasks": 12, "scratch_seconds": 30.0, "memory_seconds": 9.0, "ratio": 3.33,
                         "scratch_ok": 12, "memory_ok": 12, "status": 0}}
    tables = scale.format_tables(report)
    assert "| dense | 3840x2160 | 2857 | 1.00 / 1.10 | 2.00 / 2.20 | 0.50 | 2800 | 2700 |" in tables
    assert "| 200 |" in tables and "3.3x" in tables and "cores" in tables
    require_module("matplotlib", pip="pip install matplotlib (the bench extra)")
    assert scale.plot(report, tmp_path / "scale.png").stat().st_size > 10_000


def test_bad_arguments_are_config_errors(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    scale.add_arguments(parser)
    for bad in (["--parts", "parse,speed"], ["--kinds", "photo"], ["--skills", "ten"],
                ["--parts", "parse", "--sizes", "1280"]):
        with pytest.raises(ConfigError):
            scale.run_scale_bench(parser.parse_args([*bad, "--out", str(tmp_path)]))
