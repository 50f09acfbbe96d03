"""`gui-agent run TASK`: plan and do a task, printing each step."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TYPE_CHECKING

from .. import Action, Candidate, RunResult, StepLog, printable

if TYPE_CHECKING:
    from .. import Engine

EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


def _confirm_on_terminal(action: Action, cand: Candidate | None, reason: str) -> bool:
    """Ask the person at the terminal; with no terminal the answer is no."""
    if not sys.stdin or not sys.stdin.isatty():
        return False
    where = f" on {cand}" if cand else ""
    reply = input(printable(f"gui-agent wants to {action}{where}.\n  {reason}\n  Allow? [y/N] "))
    return reply.strip().lower() in ("y", "yes")


def _ask_on_terminal(question: str) -> str | None:
    if not sys.stdin or not sys.stdin.isatty():
        return None
    return input(printable(f"gui-agent asks: {question}\n> ")).strip() or None


def print_result(result: RunResult, dry_run: bool = False) -> None:
    """The run's last lines; task, reason and answer are data, printed without escapes. A dry
    run says what it would have done: it performed nothing, so it reports no success."""
    status = {"done": "done", "failed": "FAILED", "refused": "REFUSED", "stopped": "stopped",
              "error": "ERROR"}.get(result.outcome, result.outcome)
    if dry_run and result.outcome == "done":
        line = (f"dry run: {result.task!r} would take {len(result.steps)} steps "
                f"(planned and grounded in {result.seconds:.1f}s; nothing was performed or launched)")
    else:
        line = f"{status}: {result.task!r} in {len(result.steps)} steps, {result.seconds:.1f}s"
    if result.skill:
        line += f" (ran as skill {result.skill!r}, no planning)"
    if result.reason:
        line += f" — {result.reason}"
    if result.answer:
        line += f"\nanswer: {result.answer}"
    print(printable(line))
    if result.run_dir:
        print(printable(f"run folder: {result.run_dir}"))


def print_wayland_notice() -> None:
    """Before acting on the screen of a Wayland session: what gui-agent can reach there."""
    from .. import wayland_limits

    limits = wayland_limits()
    if limits:
        print(f"gui-agent: note: {limits}", file=sys.stderr, flush=True)


MODEL_FLAGS = ("model", "family", "backend", "base_url", "api_key_env", "grounding_model",
               "grounding_family", "grounding_zoom", "allow_download", "device", "dtype",
               "min_pixels", "max_pixels", "planner_model", "planner_family", "planner_backend",
               "planner_base_url", "max_new_tokens", "temperature", "top_p")


def model_overrides(args: argparse.Namespace) -> dict[str, object]:
    """The model flags given on the command line (None for those left out)."""
    return {name: getattr(args, name, None) for name in MODEL_FLAGS}


def _report_memory(engine: Engine, result: RunResult, save_as: str | None) -> None:
    """What the run taught the memory; --save-as turns a successful run into a named skill."""
    learned = engine.last_learned
    if learned.created:
        print(printable(f"new skill(s) from repeated runs: {', '.join(learned.created)} "
                        "(see `gui-agent skills list`; rename or remove them there)"))
    if save_as:
        if not result.ok or engine.last_episode_id is None:
            print(f"not saved as a skill: the run did not succeed ({result.outcome})")
            return
        skill = engine.save_as(save_as)
        params = ", ".join(p.name for p in skill.parameters) or "none"
        print(printable(f"saved as skill {skill.name!r} ({len(skill.steps)} steps; "
                        f"parameters: {params})"))


def run_command(args: argparse.Namespace) -> int:
    from .. import AgentHooks, Engine, load_settings

    settings = load_settings().with_overrides(
        max_steps=args.max_steps, max_seconds=args.max_seconds, monitor=args.monitor,
        safety=args.safety, runs_dir=args.runs_dir,
        allow=tuple(args.allow) if args.allow else None,
        use_memory=False if getattr(args, "no_memory", False) else None,
        auto_skills=False if getattr(args, "no_skills", False) else None,
        accessibility=False if getattr(args, "no_a11y", False) else None,
        **model_overrides(args),
    )
    save_as = getattr(args, "save_as", None)
    if save_as:
        from .. import check_skill_name

        check_skill_name(save_as)  # a bad name is an error before anything is done
        if not settings.use_memory:
            from .. import ConfigError

            raise ConfigError("--save-as needs the experience memory; drop --no-memory")

    def on_plan(subtasks: list) -> None:
        print(f"plan ({len(subtasks)} subtasks):")
        for i, sub in enumerate(subtasks, 1):
            acts = "; ".join(str(a) for a in sub.actions)
            print(printable(f"  {i}. {sub.instruction}" + (f"  ->  {acts}" if acts else "")))

    dry_run = bool(args.dry_run or args.screenshot)

    def on_step(step: StepLog) -> None:
        print(printable(step.describe(dry_run)))
        if step.why and step.outcome == "ok":
            print(printable(f"      why: {step.why}"))

    hooks = AgentHooks(on_plan=on_plan, on_step=on_step, confirm=_confirm_on_terminal,
                       ask_user=_ask_on_terminal)
    with contextlib.ExitStack() as stack:
        if not args.screenshot:
            from .. import ensure_display

            if not args.headless:
                print_wayland_notice()
            stack.enter_context(ensure_display(True if args.headless else None))
        engine = stack.enter_context(Engine.from_settings(
            settings, hooks=hooks, dry_run=args.dry_run, screenshot=args.screenshot))
        result = engine.run(args.task)
        print_result(result, dry_run=dry_run)
        if engine.memory is not None:
            _report_memory(engine, result, save_as)
    if result.outcome == "error":
        return EXIT_ERROR
    return EXIT_OK if result.ok else EXIT_FAILED
