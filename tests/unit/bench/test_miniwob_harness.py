"""The MiniWoB harness without a browser: instructions, seeds, suites, causes, report shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gui_agent.bench.miniwob import (
    BenchConfig,
    BenchReport,
    EpisodeResult,
    episode_seed,
    instruction_from_utterance,
    read_suite,
)
from gui_agent.bench.miniwob.browser import BrowserOptions, free_port, screen_size
from gui_agent.bench.miniwob.episode import EpisodeState, available_tasks, task_url
from gui_agent.bench.miniwob.instruction import utterance_text
from gui_agent.bench.miniwob.runner import classify, shards
from gui_agent.cli import build_parser
from gui_agent.errors import ConfigError, GuiAgentError
from tests.support.paths import REPO

DEV_SUITE = REPO / "datasets" / "miniwob" / "dev.txt"


def test_instruction_is_the_utterance_verbatim_up_to_whitespace() -> None:
    said = 'Enter "Ann" into the text field and press Submit.'
    assert instruction_from_utterance(said) == said
    assert instruction_from_utterance('  Click on the\n   "OK"\tbutton. ') == 'Click on the "OK" button.'
    assert instruction_from_utterance("Select Miguelita from the list and click Submit.") == \
        "Select Miguelita from the list and click Submit."


def test_a_natural_language_task_gives_its_utterance_not_its_answer_key() -> None:
    # The -nl tasks return {'utterance': ..., 'fields': {...}}: the fields are what the page
    # checks against, never shown to a user, so the agent gets the sentence alone.
    said = {"utterance": "Forward to Rena the email from Ingaborg.",
            "fields": {"by": "Ingaborg", "to": "Rena"}}
    assert utterance_text(said) == "Forward to Rena the email from Ingaborg."
    assert utterance_text("Click on the OK button.") == "Click on the OK button."
    assert utterance_text(None) == "" and utterance_text({"fields": {}}) == ""


@pytest.mark.parametrize("empty", ["", "   ", "\n\t"])
def test_empty_utterance_is_an_error(empty: str) -> None:
    with pytest.raises(GuiAgentError, match="no instruction"):
        instruction_from_utterance(empty)


def test_episode_seeds_are_deterministic_and_distinct() -> None:
    seeds = {(t, i): episode_seed(0, t, i) for t in ("click-test", "click-button") for i in range(50)}
    assert seeds == {(t, i): episode_seed(0, t, i) for t in ("click-test", "click-button") for i in range(50)}
    assert len(set(seeds.values())) == len(seeds)
    assert episode_seed(1, "click-test", 0) != episode_seed(0, "click-test", 0)
    assert all(0 <= s < 2**31 for s in seeds.values())


def test_shards_cover_every_task_once_whatever_the_worker_count() -> None:
    tasks = tuple(f"t{i}" for i in range(7))
    for workers in (1, 2, 3, 7, 20):
        parts = shards(tasks, workers)
        assert len(parts) == min(workers, len(tasks))
        assert sorted(t for p in parts for t in p) == sorted(tasks)


def test_dev_suite_names_installed_tasks() -> None:
    tasks = read_suite(DEV_SUITE)
    widened = read_suite(REPO / "datasets" / "miniwob" / "widened.txt")
    assert len(tasks) == 44 and tasks[0] == "click-test" and "use-spinner" in tasks
    assert tasks[16:] == widened and len(set(tasks)) == 44
    held_out = set(read_suite(REPO / "datasets" / "miniwob" / "held-out.txt"))
    validation = set(read_suite(REPO / "datasets" / "miniwob" / "validation.txt"))
    assert validation <= set(widened) and not held_out & set(tasks)
    installed = set(available_tasks())
    assert len(installed) >= 100
    assert set(tasks) <= installed
    assert task_url("click-test").startswith("file://") and task_url("click-test").endswith("click-test.html")


def test_suite_file_skips_comments_and_blanks(tmp_path: Path) -> None:
    suite = tmp_path / "s.txt"
    suite.write_text("# header\nclick-test\n\n  enter-text  # inline\n", encoding="utf-8")
    assert read_suite(suite) == ["click-test", "enter-text"]
    with pytest.raises(ConfigError, match="cannot read"):
        read_suite(tmp_path / "missing.txt")


def test_unknown_task_names_are_refused_with_a_hint() -> None:
    with pytest.raises(ConfigError, match="no MiniWoB task named 'click-buton'.*similar"):
        task_url("click-buton")


def test_config_validation() -> None:
    with pytest.raises(ConfigError):
        BenchConfig(tasks=())
    with pytest.raises(ConfigError):
        BenchConfig(tasks=("click-test",), episodes=0)
    with pytest.raises(ConfigError):
        BenchConfig(tasks=("click-test",), scale=0)


def test_browser_flags_and_geometry() -> None:
    flags = BrowserOptions(scale=2).flags(9333, Path("/tmp/p"), "file:///x.html")
    for needed in ("--no-sandbox", "--test-type", "--app=file:///x.html", "--hide-scrollbars",
                   "--remote-debugging-port=9333", "--force-device-scale-factor=2",
                   "--user-data-dir=/tmp/p", "--window-position=0,0", "--window-size=332,280"):
        assert needed in flags
    assert "--force-renderer-accessibility" not in flags          # pixels only by default
    a11y = BrowserOptions(scale=2, accessibility=True).flags(9333, Path("/tmp/p"), "file:///x.html")
    assert "--force-renderer-accessibility" in a11y and a11y[-1] == "--app=file:///x.html"
    assert screen_size(2) == (328, 560)
    port = free_port()
    assert 1024 < port < 65536


DONE_OK = EpisodeState(True, 1.0, 0.8, None)
DONE_WRONG = EpisodeState(True, -1.0, -1.0, None)
RUNNING = EpisodeState(False, 0.0, 0.0, None)


@pytest.mark.parametrize(("outcome", "reason", "errors", "state", "cause"), [
    ("stopped", "stopped by the user", [], DONE_OK, None),
    ("error", "I could not understand 'frobnicate'", [], RUNNING, "planner"),
    ("stopped", "", [], DONE_WRONG, "wrong-result"),
    ("failed", "", [], EpisodeState(True, -1.0, -1.0, "timed out"), "limit"),
    ("failed", "x", [("could not find 'the button'", False)], RUNNING, "grounding"),
    ("failed", "x", [("the same action on an unchanged screen keeps repeating", True)], RUNNING,
     "no-effect"),
    ("failed", "stopped after 12 steps (the step limit)", [], RUNNING, "limit"),
    ("done", "", [], RUNNING, "incomplete"),
])
def test_failure_causes(outcome: str, reason: str, errors: list[tuple[str, bool]],
                        state: EpisodeState, cause: str | None) -> None:
    got, why = classify(outcome, reason, errors, state)
    assert got == cause
    assert (why == "") == (cause is None)


def _episode(task: str, index: int, success: bool, steps: int = 2, seconds: float = 1.0) -> EpisodeResult:
    return EpisodeResult(
        task=task, index=index, seed=episode_seed(0, task, index), utterance="Click the button.",
        instruction="Click the button.", success=success, raw_reward=1.0 if success else -1.0,
        reward=0.9 if success else -1.0, done=True, steps=steps, seconds=seconds,
        agent_outcome="stopped", cause=None if success else "wrong-result",
        reason="" if success else "the page ended the episode: raw reward -1",
        screenshot=None if success else f"shots/{task}-{index:02d}.png")


def test_report_json_and_table_shape(tmp_path: Path) -> None:
    episodes = [_episode("b", 1, False, 3, 2.0), _episode("a", 0, True, 1, 0.5),
                _episode("b", 0, True, 2, 1.0), _episode("a", 1, True, 1, 0.7)]
    config = BenchConfig(tasks=("a", "b"), episodes=2, out_dir=tmp_path)
    report = BenchReport.build(config.to_json(), ["a", "b"], episodes)
    data = json.loads(report.write_json(tmp_path / "out" / "r.json").read_text(encoding="utf-8"))
    assert data["benchmark"] == "miniwob" and data["config"]["tasks"] == ["a", "b"]
    assert [t["task"] for t in data["tasks"]] == ["a", "b"]
    a, b = data["tasks"]
    assert a["success_rate"] == 1.0 and a["mean_reward"] == 1.0 and a["median_steps"] == 1
    assert b["success_rate"] == 0.5 and b["mean_reward"] == 0.0 and b["median_seconds"] == 1.5
    assert b["failures"] == [{"index": 1, "seed": episode_seed(0, "b", 1), "cause": "wrong-result",
                              "reason": "the page ended the episode: raw reward -1",
                              "utterance": "Click the button.", "screenshot": "shots/b-01.png",
                              "run_dir": None}]
    assert data["overall"] == {"episodes": 4, "successes": 3, "success_rate": 0.75,
                               "mean_task_success_rate": 0.75, "mean_reward": 0.5,
                               "failure_causes": {"wrong-result": 1}}
    assert [(e["task"], e["index"]) for e in data["episodes"]] == [("a", 0), ("a", 1), ("b", 0), ("b", 1)]
    assert "wrong-result" in data["causes"]

    from rich.console import Console

    console = Console(record=True, width=160)
    report.print(console)
    text = console.export_text()
    assert "2/2 (100%)" in text and "1/2 (50%)" in text and "3/4 (75%)" in text
    assert "wrong-result×1" in text


def test_cli_parses_the_miniwob_bench() -> None:
    args = build_parser().parse_args(["bench", "miniwob", "--tasks", "click-test,enter-text",
                                      "--episodes", "3", "--seed", "7", "--json", "x.json",
                                      "--workers", "2"])
    assert (args.bench, args.tasks, args.episodes, args.seed, args.workers, args.scale) == \
        ("miniwob", "click-test,enter-text", 3, 7, 2, 2)
    assert args.accessibility is False
    a11y = build_parser().parse_args(["bench", "miniwob", "--suite", "s.txt", "--accessibility"])
    assert a11y.accessibility is True
    assert BenchConfig(tasks=("click-test",), accessibility=True).to_json()["accessibility"] is True
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bench", "miniwob", "--episodes", "3"])  # no tasks


def test_accessibility_without_its_bus_is_a_clear_error(monkeypatch, tmp_path: Path) -> None:
    from gui_agent.bench.miniwob import runner

    monkeypatch.setattr(runner.shutil, "which", lambda name: None)
    config = BenchConfig(tasks=("click-test",), accessibility=True, out_dir=tmp_path)
    with pytest.raises(ConfigError, match="apt-get install dbus"):
        runner._accessible_session(config, 0)


class _FakeCdp:
    """A browser tab whose address a clicked link may change (fragment or another page)."""

    def __init__(self) -> None:
        self.href = ""
        self.navigations: list[str] = []

    def navigate(self, url: str) -> None:
        self.navigations.append(url)
        self.href = url

    def evaluate(self, expression: str):
        import json as _json

        url = _json.loads(expression.rsplit("location.href === ", 1)[1])
        return self.href == url


def test_the_page_is_opened_again_when_an_episode_left_it():
    from gui_agent.bench.miniwob.episode import MiniWobPage, task_url

    cdp = _FakeCdp()
    page = MiniWobPage(cdp)
    page.load("search-engine")
    page.load("search-engine")
    assert len(cdp.navigations) == 1          # same task, same page: not reloaded
    cdp.href = task_url("search-engine") + "#"   # the agent clicked a result link
    page.load("search-engine")
    assert len(cdp.navigations) == 2
