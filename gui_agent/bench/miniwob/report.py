"""Results of a MiniWoB run: per-episode records, per-task summaries, a table and JSON."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# Why an episode failed, as far as the harness can tell without looking at the screen.
CAUSES = {
    "planner": "the planner could not read the instruction",
    "grounding": "a target was not found on the screen",
    "no-effect": "an action did not change the screen and kept repeating",
    "wrong-result": "the agent acted, the page ended the episode with no reward",
    "incomplete": "the agent finished, but the page did not end the episode",
    "limit": "the step or time limit ran out",
    "error": "the harness or the agent failed unexpectedly",
}


@dataclass(frozen=True)
class EpisodeResult:
    task: str
    index: int
    seed: int
    utterance: str
    instruction: str
    success: bool
    raw_reward: float
    reward: float
    done: bool
    steps: int
    seconds: float
    agent_outcome: str
    cause: str | None = None          # a key of CAUSES for failures, None for successes
    reason: str = ""                  # the details: the agent's or the page's words
    actions: tuple[str, ...] = ()     # what the agent did, in order (for reading failures)
    screenshot: str | None = None     # the screen at the end of a failed episode
    run_dir: str | None = None        # the agent's run folder (kept for failures)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TaskSummary:
    task: str
    episodes: int
    successes: int
    mean_reward: float
    median_steps: float
    median_seconds: float
    failures: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    @property
    def success_rate(self) -> float:
        return self.successes / self.episodes if self.episodes else 0.0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["success_rate"] = round(self.success_rate, 4)
        data["failures"] = list(self.failures)
        return data


def summarize_task(task: str, episodes: list[EpisodeResult]) -> TaskSummary:
    mine = sorted((e for e in episodes if e.task == task), key=lambda e: e.index)
    if not mine:
        return TaskSummary(task, 0, 0, 0.0, 0.0, 0.0)
    failures = tuple(
        {"index": e.index, "seed": e.seed, "cause": e.cause, "reason": e.reason,
         "utterance": e.utterance, "screenshot": e.screenshot, "run_dir": e.run_dir}
        for e in mine if not e.success)
    return TaskSummary(
        task=task, episodes=len(mine), successes=sum(e.success for e in mine),
        mean_reward=round(statistics.fmean(e.raw_reward for e in mine), 4),
        median_steps=statistics.median(e.steps for e in mine),
        median_seconds=round(statistics.median(e.seconds for e in mine), 3),
        failures=failures)


@dataclass(frozen=True)
class BenchReport:
    config: dict[str, Any]
    tasks: tuple[TaskSummary, ...]
    episodes: tuple[EpisodeResult, ...]

    @classmethod
    def build(cls, config: dict[str, Any], task_names: list[str],
              episodes: list[EpisodeResult]) -> BenchReport:
        ordered = sorted(episodes, key=lambda e: (task_names.index(e.task), e.index))
        return cls(dict(config), tuple(summarize_task(t, ordered) for t in task_names),
                   tuple(ordered))

    def overall(self) -> dict[str, Any]:
        n = len(self.episodes)
        causes = Counter(e.cause for e in self.episodes if not e.success)
        rates = [t.success_rate for t in self.tasks if t.episodes]
        return {
            "episodes": n,
            "successes": sum(e.success for e in self.episodes),
            "success_rate": round(sum(e.success for e in self.episodes) / n, 4) if n else 0.0,
            "mean_task_success_rate": round(statistics.fmean(rates), 4) if rates else 0.0,
            "mean_reward": round(statistics.fmean(e.raw_reward for e in self.episodes), 4) if n else 0.0,
            "failure_causes": dict(sorted(causes.items(), key=lambda kv: (-kv[1], str(kv[0])))),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "benchmark": "miniwob",
            "config": self.config,
            "overall": self.overall(),
            "causes": CAUSES,
            "tasks": [t.to_json() for t in self.tasks],
            "episodes": [e.to_json() for e in self.episodes],
        }

    def write_json(self, path: Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n",
                        encoding="utf-8")
        return path

    def table(self) -> Any:
        """A rich Table: one row per task and an overall row."""
        from rich.table import Table

        cfg = self.config
        table = Table(title=(f"MiniWoB++ — {cfg.get('episodes')} episodes/task, seed "
                             f"{cfg.get('seed')}, scale {cfg.get('scale')}, offline planner, "
                             "pixels + OS input only"))
        table.add_column("task", no_wrap=True)
        for col in ("success", "reward", "steps", "secs"):
            table.add_column(col, justify="right")
        table.add_column("failures")
        for t in self.tasks:
            causes = Counter(str(f["cause"]) for f in t.failures)
            table.add_row(t.task, f"{t.successes}/{t.episodes} ({t.success_rate:.0%})",
                          f"{t.mean_reward:+.2f}", f"{t.median_steps:g}",
                          f"{t.median_seconds:.1f}",
                          ", ".join(f"{c}×{n}" for c, n in causes.most_common()))
        o = self.overall()
        table.add_section()
        table.add_row("all", f"{o['successes']}/{o['episodes']} ({o['success_rate']:.0%})",
                      f"{o['mean_reward']:+.2f}", "", "",
                      f"mean of task rates {o['mean_task_success_rate']:.0%}")
        return table

    def print(self, console: Any | None = None) -> None:
        from rich.console import Console

        (console or Console()).print(self.table())
