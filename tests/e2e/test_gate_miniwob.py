"""Gate for the README's MiniWoB++ figure (pixels only, real chromium, real OS input).

The README quotes the 20-episode run of the development set (``gui-agent bench miniwob --suite
datasets/miniwob/dev.txt --episodes 20 --seed 0 --workers 2``: 318/320). This gate is its cheap
version: every task of the same suite, 2 episodes each (seed 0, one worker), at least 95 %
overall and no task at 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import REPO

# conftest checks what the groups need (Xvfb; chromium, miniwob and websocket-client) first
pytestmark = [pytest.mark.e2e("xvfb", "input", "chromium"), pytest.mark.slow,
              pytest.mark.timeout(480)]

SUITE = REPO / "datasets" / "miniwob" / "dev.txt"
EPISODES = 2
MIN_OVERALL = 0.95


def test_every_dev_task_mostly_succeeds(tmp_path: Path) -> None:
    from gui_agent.bench.miniwob import BenchConfig, BenchReport, read_suite, run_benchmark

    tasks = tuple(read_suite(SUITE))
    assert len(tasks) == 16                   # the README's table has 16 tasks
    config = BenchConfig(tasks=tasks, episodes=EPISODES, seed=0, out_dir=tmp_path / "files")
    episodes = run_benchmark(config)
    report = BenchReport.build(config.to_json(), list(tasks), episodes)
    failed = [f"{e.task} #{e.index}: {e.cause}: {e.reason}" for e in report.episodes
              if not e.success]
    assert [t.episodes for t in report.tasks] == [EPISODES] * len(tasks)
    assert all(e.cause != "error" for e in report.episodes), failed
    overall = report.overall()
    assert overall["success_rate"] >= MIN_OVERALL, (overall, failed)
    assert [t.task for t in report.tasks if t.successes == 0] == [], failed
