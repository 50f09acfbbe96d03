"""Gate for the README's MiniWoB++ figure (pixels only, real chromium, real OS input).

The README quotes the 10-episode run of the development set (``gui-agent bench miniwob --suite
datasets/miniwob/dev.txt --episodes 10 --seed 0 --workers 2``: the 16 first tasks and the 28
that widened them). This gate is its cheap version: every task of the same suite, one episode
each (seed 0, one worker), at least 90 % overall.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import REPO

# conftest checks what the groups need (Xvfb; chromium, miniwob and websocket-client) first
pytestmark = [pytest.mark.e2e("xvfb", "input", "chromium"), pytest.mark.slow,
              pytest.mark.timeout(600)]

SUITE = REPO / "datasets" / "miniwob" / "dev.txt"
EPISODES = 1
MIN_OVERALL = 0.90


def test_every_dev_task_mostly_succeeds(tmp_path: Path) -> None:
    from gui_agent.bench.miniwob import BenchConfig, BenchReport, read_suite, run_benchmark

    tasks = tuple(read_suite(SUITE))
    assert len(tasks) == 44                   # the README's table has 44 tasks
    config = BenchConfig(tasks=tasks, episodes=EPISODES, seed=0, out_dir=tmp_path / "files")
    episodes = run_benchmark(config)
    report = BenchReport.build(config.to_json(), list(tasks), episodes)
    failed = [f"{e.task} #{e.index}: {e.cause}: {e.reason}" for e in report.episodes
              if not e.success]
    assert [t.episodes for t in report.tasks] == [EPISODES] * len(tasks)
    overall = report.overall()
    assert overall["success_rate"] >= MIN_OVERALL, (overall, failed)
