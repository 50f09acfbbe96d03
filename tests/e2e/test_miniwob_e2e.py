"""The MiniWoB harness end to end: Xvfb, chromium, the real agent with real input.

Kept small (three simple tasks, two episodes each) so the suite stays fast. It asserts that
the harness runs and reports, and that the engine solves the task with a quoted button
label; success rates of the rest are the benchmark's to report, not this test's.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

# conftest checks what the groups need (Xvfb; chromium, miniwob and websocket-client) first
pytestmark = pytest.mark.e2e("xvfb", "chromium")


def test_same_seed_same_episode() -> None:
    from gui_agent.bench.miniwob.browser import BrowserOptions, Chromium, screen_size
    from gui_agent.bench.miniwob.episode import MiniWobPage, task_url
    from gui_agent.display import VirtualDisplay

    with VirtualDisplay(size=screen_size(2)) as vd, \
            Chromium(vd.name or "", task_url("enter-text"), BrowserOptions(scale=2)) as browser:
        page = MiniWobPage(browser.cdp)
        page.load("enter-text")
        seeds = [11, 12, 13, 14, 11]
        said = []
        for seed in seeds:
            said.append(page.start(seed, 30))
            assert not page.state().done
            assert page.stop().done is False
            assert page.state().done  # the harness ended it
        assert said[0] == said[4]
        assert len(set(said)) >= 2
        assert all(s.startswith("Enter ") for s in said)


@pytest.mark.e2e("input")
def test_harness_runs_and_reports(tmp_path: Path) -> None:
    from gui_agent.bench.miniwob import BenchConfig, BenchReport, run_benchmark
    from gui_agent.bench.miniwob.report import CAUSES

    tasks = ("click-test", "click-button", "enter-text")
    config = BenchConfig(tasks=tasks, episodes=2, seed=0, out_dir=tmp_path / "files",
                         max_steps=6, episode_seconds=30)
    chromium_temp = set(Path(tempfile.gettempdir()).glob("org.chromium.Chromium.*"))
    episodes = run_benchmark(config)
    assert set(Path(tempfile.gettempdir()).glob("org.chromium.Chromium.*")) <= chromium_temp  # none left
    assert sorted((e.task, e.index) for e in episodes) == sorted((t, i) for t in tasks for i in range(2))
    for e in episodes:
        assert e.utterance and e.instruction == e.utterance
        assert e.cause != "error", e.reason
        if e.success:
            assert e.raw_reward == 1.0 and e.cause is None and e.screenshot is None
        else:
            assert e.cause in CAUSES and e.reason
            assert e.screenshot and Path(e.screenshot).is_file()
            assert e.run_dir and Path(e.run_dir).is_dir()
    by_task = {t: [e for e in episodes if e.task == t] for t in tasks}
    # 'Click on the "Cancel" button.': a quoted label the engine must find.
    assert all(e.success for e in by_task["click-button"]), [e.reason for e in by_task["click-button"]]
    assert all(e.utterance == "Click the button." for e in by_task["click-test"])

    report = BenchReport.build(config.to_json(), list(tasks), episodes)
    data = json.loads(report.write_json(tmp_path / "r.json").read_text(encoding="utf-8"))
    assert [t["task"] for t in data["tasks"]] == list(tasks)
    assert data["overall"]["episodes"] == 6
    assert data["tasks"][1]["success_rate"] == 1.0


@pytest.mark.e2e("input", "a11y")
def test_with_accessibility_the_agent_grounds_on_chromiums_tree(tmp_path: Path) -> None:
    """``--accessibility``: chromium reports its page to the worker's own AT-SPI bus, and the
    agent finds the targets in the tree (the steps say so), still acting with real input."""
    from gui_agent.bench.miniwob import BenchConfig, run_benchmark

    config = BenchConfig(tasks=("click-button", "enter-text"), episodes=1, seed=0,
                         out_dir=tmp_path / "files", max_steps=6, episode_seconds=30,
                         keep_runs=True, accessibility=True)
    episodes = run_benchmark(config)
    assert [e.success for e in episodes] == [True, True], [(e.task, e.reason) for e in episodes]
    sources = {json.loads(line)["source"] for e in episodes
               for line in (Path(e.run_dir) / "steps.jsonl").read_text(encoding="utf-8").splitlines()}
    assert "a11y" in sources, sources
