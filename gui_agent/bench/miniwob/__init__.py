"""`gui-agent bench miniwob`: MiniWoB++ measured honestly, from pixels with real OS input.

The agent sees only screenshots of a real chromium window on a virtual display and acts only
through pyautogui; it is given the task's instruction text verbatim. The harness alone talks
to the page over the DevTools protocol (to start seeded episodes and read the reward).
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from ...errors import ConfigError
from .episode import available_tasks, episode_seed
from .instruction import instruction_from_utterance
from .report import CAUSES, BenchReport, EpisodeResult, TaskSummary
from .runner import BenchConfig, run_benchmark

__all__ = [
    "CAUSES", "BenchConfig", "BenchReport", "EpisodeResult", "TaskSummary", "add_arguments",
    "available_tasks", "episode_seed", "instruction_from_utterance", "read_suite",
    "run_benchmark", "run_miniwob_bench",
]

log = logging.getLogger(__name__)


def read_suite(path: Path) -> list[str]:
    """Task names from a file: one per line; blank lines and '#' comments ignored."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read the suite file {path}: {exc}") from exc
    tasks = [line.split("#", 1)[0].strip() for line in lines]
    return [t for t in tasks if t]


def add_arguments(b: argparse.ArgumentParser) -> None:
    which = b.add_mutually_exclusive_group(required=True)
    which.add_argument("--tasks", help="comma-separated MiniWoB task names (e.g. click-test,click-button)")
    which.add_argument("--suite", type=Path, metavar="FILE",
                       help="a file of task names, one per line (e.g. datasets/miniwob/dev.txt)")
    b.add_argument("--episodes", type=int, default=5, help="episodes per task (default 5)")
    b.add_argument("--seed", type=int, default=0, help="base seed: same seed, same episodes")
    b.add_argument("--json", type=Path, default=Path("miniwob-results.json"),
                   help="write the results here (default miniwob-results.json); failure "
                        "screenshots and agent runs go to a folder next to it")
    b.add_argument("--workers", type=int, default=1,
                   help="parallel workers, each with its own Xvfb and chromium (default 1)")
    b.add_argument("--scale", type=int, default=2,
                   help="chromium device scale factor; 2 makes the tiny task area readable")
    b.add_argument("--max-steps", type=int, default=30, help="agent steps per episode (default 30, as for gui-agent run)")
    b.add_argument("--episode-seconds", type=float, default=60.0,
                   help="time limit per episode (default 60; MiniWoB's own default is 10)")
    b.add_argument("--display", type=int, help="first X display number to use (default: any free)")
    b.add_argument("--keep-runs", action="store_true",
                   help="keep the agent's run folders of successful episodes too")
    b.add_argument("--accessibility", action="store_true",
                   help="pixels + the accessibility tree: chromium with "
                        "--force-renderer-accessibility and an AT-SPI bus per worker "
                        "(default: pixels only)")


def run_miniwob_bench(args: argparse.Namespace) -> int:
    tasks = read_suite(args.suite) if args.suite else [t.strip() for t in args.tasks.split(",") if t.strip()]
    out_dir = args.json.with_name(args.json.stem + "-files")
    config = BenchConfig(tasks=tuple(tasks), episodes=args.episodes, seed=args.seed,
                         scale=args.scale, workers=args.workers, max_steps=args.max_steps,
                         episode_seconds=args.episode_seconds, out_dir=out_dir,
                         keep_runs=args.keep_runs, display=args.display,
                         accessibility=args.accessibility)
    episodes = run_benchmark(config)
    report = BenchReport.build(config.to_json(), list(config.tasks), episodes)
    report.print()
    path = report.write_json(args.json)
    print(f"wrote {path} (failure screenshots and agent runs in {out_dir})")
    return 0
