"""`gui-agent batch SUITE.yaml`: run a task suite unattended and write results and a report."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_batch_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("batch", help="run a task suite (YAML) unattended on virtual displays",
                       description=(
        "Run every task of a suite file with the offline planner, each checked against the "
        "application's real outcome. Results are appended to OUT/results.jsonl as each task "
        "ends; the report is OUT/index.html. Exit status: 0 all passed, 1 some failed, "
        "2 the suite could not run."))
    p.add_argument("suite", type=Path, help="the suite file (YAML)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="tasks run in parallel, each worker on its own virtual display (default 1)")
    p.add_argument("--headless", action="store_true",
                   help="always use virtual displays (automatic with --workers > 1 or no display)")
    p.add_argument("--resume", action="store_true",
                   help="keep OUT/results.jsonl and skip the tasks that already passed")
    p.add_argument("--quiet", action="store_true", help="plain lines instead of a progress bar")
    p.add_argument("--out", type=Path, help="output folder (default: batch-out/<suite name>)")
    p.add_argument("--only", action="append", default=[], metavar="PATTERN",
                   help="run only tasks whose id matches this glob (repeatable)")
    p.add_argument("--ray", metavar="ADDRESS",
                   help="run the workers as Ray actors, each with its own virtual display: "
                        "'local' (a throwaway cluster on this machine), 'auto' (the cluster "
                        "`ray start` runs here) or a cluster address; needs "
                        "pip install 'gui-agent[cluster]'")
    p.add_argument("--no-a11y", action="store_true",
                   help="the agent sees pixels alone, without the accessibility tree (the "
                        "applications are the same)")


def batch_command(args: argparse.Namespace) -> int:
    from .. import BatchOptions, ConfigError, run_batch

    if args.workers < 1:
        raise ConfigError("--workers must be at least 1")
    if args.ray is not None and not args.ray.strip():
        raise ConfigError("--ray needs an address: local, auto or HOST:PORT")
    out = args.out or Path("batch-out") / args.suite.stem
    return run_batch(BatchOptions(args.suite, out, args.workers, args.headless, args.resume,
                                  args.quiet, tuple(args.only), ray=args.ray,
                                  accessibility=not args.no_a11y))
