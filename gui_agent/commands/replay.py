"""`gui-agent replay NAME [--param k=v ...]`: run a stored skill on the screen, with its own report.

Secret parameters not given with --param come from ``GUI_AGENT_SECRET_<NAME>``; they never
reach the terminal, the run folder or the report.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from pathlib import Path
from typing import Any

from .. import say

EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


def add_replay_parser(sub: argparse._SubParsersAction) -> None:
    from .skills import add_memory_flag

    p = sub.add_parser("replay", help="replay a skill (recorded or learned) on the screen",
                       description="Replay a skill from the memory: each step's target is found again "
                       "(image template, then OCR text, then nearby labels), never clicked at the "
                       "recorded coordinate; a step whose target is gone or ambiguous stops the replay "
                       "with a report.")
    p.add_argument("name", help="the skill's name (see `gui-agent skills list`)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="a parameter value; repeatable (secrets may come from GUI_AGENT_SECRET_<NAME>)")
    p.add_argument("--headless", action="store_true", help="run on a new virtual display")
    p.add_argument("--safety", choices=["ask", "refuse", "allow"], help="risky actions: ask (default), refuse, allow")
    p.add_argument("--allow", action="append", default=[], metavar="WORD", help="pre-approve risky actions")
    p.add_argument("--runs-dir", type=Path, help="where the replay's run folder goes")
    add_memory_flag(p)


def parse_params(pairs: list[str]) -> dict[str, str]:
    from .. import ConfigError

    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"--param takes NAME=VALUE, not {pair!r}")
        out[name.strip()] = value
    return out


def secrets_from_env(skill: Any, given: dict[str, Any], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Fill secret parameters the command line left out from their environment variables."""
    from .. import secret_env_var

    env = os.environ if env is None else env
    out = dict(given)
    for p in skill.parameters:
        if p.name not in out and p.secret and env.get(secret_env_var(p.name)) is not None:
            out[p.name] = env[secret_env_var(p.name)]
    return out


def replay_command(args: argparse.Namespace) -> int:
    from .. import AgentHooks, Engine, ReportEntry, ensure_display, load_settings, write_report
    from .run import _confirm_on_terminal, print_wayland_notice
    from .skills import memory_path

    settings = load_settings().with_overrides(safety=args.safety, runs_dir=args.runs_dir,
                                              allow=tuple(args.allow) if args.allow else None)
    settings = settings.with_overrides(memory_path=memory_path(args, settings), use_memory=True)
    with contextlib.ExitStack() as stack:
        if not args.headless:
            print_wayland_notice()
        stack.enter_context(ensure_display(True if args.headless else None))
        hooks = AgentHooks(on_step=lambda step: say(step.describe()), confirm=_confirm_on_terminal)
        engine = stack.enter_context(Engine.from_settings(settings, hooks=hooks))
        assert engine.memory is not None
        skill = engine.memory.skill(args.name)
        params = secrets_from_env(skill, parse_params(args.param))
        skill.values(params)   # a missing or ill-typed value is an error before anything moves
        result = engine.replay(skill, params)
    run = result.to_run_result(f"replay {skill.name}")
    report = None
    if result.run_dir is not None:
        report = write_report(Path(result.run_dir), f"replay of {skill.name}",
                              [ReportEntry(skill.name, run, result.ok, "every step found and done", result.reason)])
    status = "done" if result.ok else result.outcome.upper() or "FAILED"
    line = f"{status}: replay of {skill.name!r}, {len(result.steps)}/{len(skill.steps)} steps, {result.seconds:.1f}s"
    if result.reason:
        line += f" — {result.reason}"
    say(line)
    rungs = ", ".join(f"{k} {v}" for k, v in result.counts.items() if v and k not in ("steps",))
    if rungs:
        say(f"found by: {rungs}")
    if result.healed:
        say(f"healed steps (template refreshed): {', '.join(map(str, result.healed))}")
    if result.failure_image:
        say(f"what was on screen when it stopped: {result.failure_image}")
    if report:
        say(f"report: {report}")
    return EXIT_OK if result.ok else EXIT_FAILED
