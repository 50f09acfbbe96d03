"""`gui-agent run TASK`: plan and do a task, printing each step."""

from __future__ import annotations

import argparse
import contextlib
import sys

from ..actions import Action
from ..grounding.candidate import Candidate
from ..terminal_text import printable
from ..trajectory import RunResult, StepLog

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
    from ..display import wayland_limits

    limits = wayland_limits()
    if limits:
        print(f"gui-agent: note: {limits}", file=sys.stderr, flush=True)


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
        print(printable(f"new skill(s) from repeated runs: {', '.join(learned.created)} "
                        "(see `gui-agent skills list`; rename or remove them there)"))
    if save_as:
        if not result.ok or agent.last_episode_id is None:  # type: ignore[attr-defined]
            print(f"not saved as a skill: the run did not succeed ({result.outcome})")
            return
        skill = memory.save_as(agent.last_episode_id, save_as)  # type: ignore[attr-defined]
        params = ", ".join(p.name for p in skill.parameters) or "none"
        print(printable(f"saved as skill {skill.name!r} ({len(skill.steps)} steps; "
                        f"parameters: {params})"))


def run_command(args: argparse.Namespace) -> int:
    from ..agent import Agent, AgentHooks
    from ..config import load_settings
    from ..control.app_registry import AppRegistry
    from ..deadline import Deadline
    from ..desktop import LiveDesktop, StillDesktop
    from ..planner import offline_planner
    from ..safety import SafetyGate

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
    deadline = Deadline()     # armed when the run starts; every model call keeps within it
    if settings.model or settings.grounding_model:
        from ..planner.vlm_setup import model_parts

        model_planner, ladder, parser = model_parts(settings, deadline=deadline)
        planner = model_planner or planner
    apps = AppRegistry.for_platform(settings.allow_apps)

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
        memory = None if args.screenshot or args.dry_run else _open_memory(settings)
        if memory is not None:
            stack.callback(memory.close)
        if args.screenshot:
            desktop = StillDesktop.from_file(args.screenshot)
            agent = Agent(desktop, planner, settings=settings, hooks=hooks, live=False,
                          ladder=ladder, parser=parser, deadline=deadline)
        else:
            from ..control.dry_run import DryRunController
            from ..display import ensure_display

            if not args.headless:
                print_wayland_notice()
            stack.enter_context(ensure_display(True if args.headless else None))
            if args.dry_run:
                controller = DryRunController(apps=apps)
            else:
                from ..control.pyautogui_controller import PyAutoGuiController

                controller = PyAutoGuiController(apps=apps)
            agent = Agent(LiveDesktop(controller, settings.monitor), planner, settings=settings,
                          hooks=hooks, live=not args.dry_run, ladder=ladder, parser=parser, memory=memory,
                          deadline=deadline, safety=SafetyGate.from_settings(settings, apps))
        result = agent.run(args.task)
        print_result(result, dry_run=dry_run)
        if memory is not None:
            _report_memory(agent, memory, result, save_as)
    if result.outcome == "error":
        return EXIT_ERROR
    return EXIT_OK if result.ok else EXIT_FAILED
