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
    if result.skill:
        line += f" (ran as skill {result.skill!r}, no planning)"
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


def _open_memory(settings: object) -> object | None:
    from ..memory.experience import ExperienceMemory

    return ExperienceMemory.from_settings(settings)


def _report_memory(agent: object, memory: object, result: RunResult, save_as: str | None) -> None:
    """What the run taught the memory; --save-as turns a successful run into a named skill."""
    learned = agent.last_learned  # type: ignore[attr-defined]
    if learned.created:
        print(f"new skill(s) from repeated runs: {', '.join(learned.created)} "
              "(see `gui-agent skills list`; rename or remove them there)")
    if save_as:
        if not result.ok or agent.last_episode_id is None:  # type: ignore[attr-defined]
            print(f"not saved as a skill: the run did not succeed ({result.outcome})")
            return
        skill = memory.save_as(agent.last_episode_id, save_as)  # type: ignore[attr-defined]
        params = ", ".join(p.name for p in skill.parameters) or "none"
        print(f"saved as skill {skill.name!r} ({len(skill.steps)} steps; parameters: {params})")


def run_command(args: argparse.Namespace) -> int:
    from ..agent import Agent, AgentHooks
    from ..config import load_settings
    from ..desktop import LiveDesktop, StillDesktop
    from ..planner import offline_planner

    settings = load_settings().with_overrides(
        max_steps=args.max_steps, max_seconds=args.max_seconds, monitor=args.monitor,
        safety=args.safety, runs_dir=args.runs_dir,
        allow=tuple(args.allow) if args.allow else None,
        use_memory=False if getattr(args, "no_memory", False) else None,
        auto_skills=False if getattr(args, "no_skills", False) else None,
        **model_overrides(args),
    )
    save_as = getattr(args, "save_as", None)
    if save_as:
        from ..memory.models import check_skill_name

        check_skill_name(save_as)  # a bad name is an error before anything is done
        if not settings.use_memory:
            from ..errors import ConfigError

            raise ConfigError("--save-as needs the experience memory; drop --no-memory")
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
        memory = None if args.screenshot or args.dry_run else _open_memory(settings)
        if memory is not None:
            stack.callback(memory.close)
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
                          hooks=hooks, live=not args.dry_run, ladder=ladder, parser=parser, memory=memory)
        result = agent.run(args.task)
        print_result(result)
        if memory is not None:
            _report_memory(agent, memory, result, save_as)
    if result.outcome == "error":
        return EXIT_ERROR
    return EXIT_OK if result.ok else EXIT_FAILED
