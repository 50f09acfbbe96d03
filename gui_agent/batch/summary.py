"""`python -m gui_agent.batch.summary OUT [--set NAME=PREFIX,...]`: what a batch run shows.

From a batch's ``results.jsonl`` and the run folders it names: tasks passed, *false successes*
(the agent reported the task done but the application's own output says it is not: the one
outcome an agent must never have), per set of tasks (a set is the tasks whose id starts with
one of its prefixes: an application, the validation set), and the median time of a step (all
its stages, and without waiting for the screen to settle, as ``gui-agent bench latency``
counts a step).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .results import TaskRecord, latest_by_task, read_records

STEP_STAGES = ("capture", "parse", "plan", "ground", "act")   # a step without its settling


@dataclass
class Figures:
    tasks: int = 0
    passed: int = 0
    false_successes: list[str] = field(default_factory=list)
    step_seconds: list[float] = field(default_factory=list)       # every stage
    step_work_seconds: list[float] = field(default_factory=list)  # STEP_STAGES only

    def line(self, name: str) -> str:
        rate = 100.0 * self.passed / self.tasks if self.tasks else 0.0
        median = statistics.median(self.step_seconds) if self.step_seconds else 0.0
        work = statistics.median(self.step_work_seconds) if self.step_work_seconds else 0.0
        return (f"{name}: {self.passed}/{self.tasks} passed ({rate:.1f} %), "
                f"{len(self.false_successes)} false successes, median step {median:.3f} s "
                f"({work:.3f} s without settling, {len(self.step_seconds)} steps)")

    def to_json(self) -> dict[str, object]:
        return {"tasks": self.tasks, "passed": self.passed,
                "false_successes": self.false_successes,
                "median_step_s": statistics.median(self.step_seconds) if self.step_seconds else 0.0,
                "median_step_work_s": statistics.median(self.step_work_seconds)
                if self.step_work_seconds else 0.0, "steps": len(self.step_seconds)}


def false_success(record: TaskRecord) -> bool:
    """The agent said done, the check says the task is not done."""
    return record.agent_outcome == "done" and not record.passed


def _steps(record: TaskRecord) -> list[dict[str, float]]:
    if not record.run_dir:
        return []
    path = Path(record.run_dir) / "steps.jsonl"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    return [json.loads(line).get("timings", {}) for line in lines if line.strip()]


def summarize(out: Path, sets: dict[str, tuple[str, ...]]) -> dict[str, Figures]:
    """Figures for all tasks ("all") and for each named set of task-id prefixes."""
    latest = latest_by_task(read_records(out / "results.jsonl"))
    figures = {"all": Figures(), **{name: Figures() for name in sets}}
    for key, record in sorted(latest.items()):
        names = ["all", *(n for n, prefixes in sets.items() if key.startswith(prefixes))]
        steps = _steps(record)
        for name in names:
            f = figures[name]
            f.tasks += 1
            f.passed += record.passed
            if false_success(record):
                f.false_successes.append(key)
            f.step_seconds += [sum(t.values()) for t in steps]
            f.step_work_seconds += [sum(t.get(s, 0.0) for s in STEP_STAGES) for t in steps]
    return figures


def _sets(items: Sequence[str]) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for item in items:
        name, _, prefixes = item.partition("=")
        if not name or not prefixes:
            raise SystemExit(f"--set takes NAME=PREFIX[,PREFIX...], not {item!r}")
        out[name] = tuple(p.strip() for p in prefixes.split(",") if p.strip())
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gui_agent.batch.summary",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the batch's output folder (--out)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=PREFIX,...",
                        help="a named set of tasks by id prefix (repeatable)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    figures = summarize(args.out, _sets(args.set))
    for name, f in figures.items():
        print(f.line(name))
        for key in f.false_successes:
            print(f"  false success: {key}")
    if args.json:
        args.json.write_text(json.dumps({n: f.to_json() for n, f in figures.items()}, indent=2),
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
