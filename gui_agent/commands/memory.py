"""`gui-agent memory stats|prune|path`: look after the experience memory database."""

from __future__ import annotations

import argparse
import json

from .. import say
from .skills import add_memory_flag, memory_path


def add_memory_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("memory", help="the experience memory: statistics, pruning, location",
                       description="Episodes and skills live in one SQLite database; screenshots "
                       "in a shots/ folder beside it.")
    msub = p.add_subparsers(dest="memory_command", metavar="ACTION")
    msub.required = True
    s = msub.add_parser("stats", help="how many episodes, steps, skills, and how much disk")
    s.add_argument("--json", action="store_true", help="print JSON")
    add_memory_flag(s)
    s = msub.add_parser("prune", help="delete old episodes and their screenshots (skills stay)")
    s.add_argument("--keep-days", type=float, metavar="N", help="delete episodes older than N days")
    s.add_argument("--keep-last", type=int, metavar="N", help="always keep the newest N episodes")
    add_memory_flag(s)
    s = msub.add_parser("path", help="print the database's path")
    add_memory_flag(s)


def memory_command(args: argparse.Namespace) -> int:
    from .. import ConfigError, MemoryStore

    path = memory_path(args)
    if args.memory_command == "path":
        say(path)
        return 0
    if args.memory_command == "prune":
        if args.keep_days is None and args.keep_last is None:
            raise ConfigError("say what to keep: --keep-days N and/or --keep-last N")
        if (args.keep_days is not None and args.keep_days < 0) or (
                args.keep_last is not None and args.keep_last < 0):
            raise ConfigError("--keep-days and --keep-last must not be negative")
    with MemoryStore(path) as store:
        if args.memory_command == "prune":
            done = store.prune(keep_days=args.keep_days, keep_last=args.keep_last)
            say(f"deleted {done['episodes']} episode(s) and {done['orphan_folders']} stray "
                f"screenshot folder(s) from {store.path}")
            return 0
        stats = store.stats()
        if args.json:
            say(json.dumps(stats, indent=2))
            return 0
        outcomes = ", ".join(f"{k} {v}" for k, v in stats["outcomes"].items()) or "none"
        say(f"memory:   {stats['path']} (schema {stats['schema_version']})")
        say(f"episodes: {stats['episodes']} ({outcomes}); {stats['steps']} steps")
        say(f"skills:   {stats['skills']} ({stats['flagged_skills']} flagged); "
            f"{stats['skill_runs']} runs")
        say(f"disk:     database {stats['database_bytes'] / 1e6:.1f} MB, "
            f"screenshots and crops {stats['files_bytes'] / 1e6:.1f} MB")
    return 0
