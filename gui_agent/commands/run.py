"""`gui-agent run TASK`: plan and do a task, printing each step."""

from __future__ import annotations

import argparse
import contextlib
import sys

from ..actions import Action
from ..grounding.candidate import Candidate
from ..trajectory import RunResult, StepLog

EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


def _confirm_on_terminal(action: Action, cand: Candidate | None, reason: str) -> bool:
    """Ask the person at the terminal; with no terminal the answer is no."""
    if not sys.stdin or not sys.stdin.isatty():
        return False
    where = f" on {cand}" if cand else ""
    reply = input(f"gui-agent wants to {action}{where}.\n  {reason}\n  Allow? [y/N] ")
    return reply.strip().lower() in ("y", "yes")


def _ask_on_terminal(question: str) -> str | None:
    if not sys.stdin or not sys.stdin.isatty():
        return None
    return input(f"gui-agent asks: {question}\n> ").strip() or None


def print_result(result: RunResult) -> None:
    status = {"done": "done", "failed": "FAILED", "refused": "REFUSED", "stopped": "stopped",
              "error": "ERROR"}.get(result.outcome, result.outcome)
    line = f"{status}: {result.task!r} in {len(result.steps)} steps, {result.seconds:.1f}s"
    if result.reason:
        line += f" — {result.reason}"
    if result.answer:
        line += f"\nanswer: {result.answer}"
    print(line)
    if result.run_dir:
        print(f"run folder: {result.run_dir}")


MODEL_FLAGS = ("model", "family", "backend", "base_url", "api_key_env", "grounding_model",
               "grounding_family", "grounding_zoom", "allow_download", "device", "dtype",
               "min_pixels", "max_pixels")


def model_overrides(args: argparse.Namespace) -> dict[str, object]:
    """The model flags given on the command line (None for those left out)."""
    return {name: getattr(args, name, None) for name in MODEL_FLAGS}


def run_command(args: argparse.Namespace) -> int:
    from ..agent import Agent, AgentHooks
    from ..config import load_settings
    from ..desktop import LiveDesktop, StillDesktop
    from ..planner import offline_planner

    settings = load_settings().with_overrides(
        max_steps=args.max_steps, max_seconds=args.max_seconds, monitor=args.monitor,
        safety=args.safety, runs_dir=args.runs_dir,
        allow=tuple(args.allow) if args.allow else None,
        **model_overrides(args),
    )
    planner, ladder, parser = offline_planner(), None, None
    if settings.model or settings.grounding_model:
        from ..planner.vlm_setup import model_parts

        model_planner, ladder, parser = model_parts(settings)
        planner = model_planner or planner

    def on_plan(subtasks: list) -> None:
        print(f"plan ({len(subtasks)} subtasks):")
        for i, sub in enumerate(subtasks, 1):
            acts = "; ".join(str(a) for a in sub.actions)
            print(f"  {i}. {sub.instruction}" + (f"  ->  {acts}" if acts else ""))

    def on_step(step: StepLog) -> None:
        print(step.describe())
        if step.why and step.outcome == "ok":
            print(f"      why: {step.why}")

    hooks = AgentHooks(on_plan=on_plan, on_step=on_step, confirm=_confirm_on_terminal,
                       ask_user=_ask_on_terminal)
    with contextlib.ExitStack() as stack:
        if args.screenshot:
            desktop = StillDesktop.from_file(args.screenshot)
            agent = Agent(desktop, planner, settings=settings, hooks=hooks, live=False,
                          ladder=ladder, parser=parser)
        else:
            from ..control.dry_run import DryRunController
            from ..display import ensure_display

            stack.enter_context(ensure_display(True if args.headless else None))
            if args.dry_run:
                controller = DryRunController()
            else:
                from ..control.pyautogui_controller import PyAutoGuiController

                controller = PyAutoGuiController()
            agent = Agent(LiveDesktop(controller, settings.monitor), planner, settings=settings,
                          hooks=hooks, live=not args.dry_run, ladder=ladder, parser=parser)
        result = agent.run(args.task)
    print_result(result)
    if result.outcome == "error":
        return EXIT_ERROR
    return EXIT_OK if result.ok else EXIT_FAILED
