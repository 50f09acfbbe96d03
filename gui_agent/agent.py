"""The planner loop: a recalled skill first, else the planner's next action, grounded down the
ladder and done by the step pipeline, until the plan is done.

Built by the composition root (:class:`gui_agent.engine.Engine`), which gives it its parts;
``Agent.run(task)`` returns a :class:`RunResult` and writes the run folder.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path

from .actions import (
    Action,
    AskUser,
    Done,
    Fail,
    RunSkill,
    Target,
    Wait,
    format_action,
    target_fields,
)
from .config import Settings
from .deadline import Deadline
from .errors import (
    AmbiguousTarget,
    GroundingError,
    GuiAgentError,
    PlanningError,
    SafetyRefusal,
    StepLimitReached,
)
from .grounding.candidate import Candidate
from .grounding.ladder import Ladder
from .grounding.queries import ScreenQueries
from .parsing.elements import ScreenParsing
from .planner.base import Planner, StepRecord, Subtask
from .screen.observation import Observation
from .secrets import mask_record, mask_result, mask_step
from .skill_use import SkillUse
from .step import RunControl, StepPipeline, StepRun, main_field
from .trajectory import RunFolder, RunResult, StepLog

log = logging.getLogger(__name__)


@dataclass
class _Clock:
    timings: dict[str, float] = field(default_factory=dict)

    def add(self, stage: str, start: float) -> None:
        self.timings[stage] = self.timings.get(stage, 0.0) + time.perf_counter() - start


def _tree_read(clock: _Clock, obs: Observation) -> None:
    """Reading the observation's accessibility tree (during grounding) is the "parse" stage."""
    seconds = obs.accessibility.seconds if obs.accessibility is not None else 0.0
    if seconds:
        clock.timings["parse"] = clock.timings.get("parse", 0.0) + seconds
        clock.timings["ground"] = max(0.0, clock.timings.get("ground", 0.0) - seconds)


@dataclass
class _Plan:
    """The loop's state over one run: the plan left, what is done, the history the planner sees."""

    queue: deque[Subtask]
    done: list[Subtask] = field(default_factory=list)
    history: list[StepRecord] = field(default_factory=list)


class Agent:
    """Runs tasks with ``planner``; every step goes through ``pipeline``."""

    def __init__(self, planner: Planner, pipeline: StepPipeline, ladder: Ladder, *,
                 settings: Settings, parser: ScreenParsing | None = None,
                 skills: SkillUse | None = None, deadline: Deadline | None = None,
                 runs_dir: Path | None = None, control: RunControl | None = None) -> None:
        self.planner = planner
        self.pipeline = pipeline
        self.ladder = ladder
        self.settings = settings
        self.parser = parser
        self.skills = skills
        self.deadline = deadline or Deadline()   # armed per run; model calls share it
        self.runs_dir = Path(runs_dir or settings.runs_dir)
        self.control = control or RunControl()
        self.queries = ScreenQueries(ladder, parser)

    # -- screen -----------------------------------------------------------------------------
    def observe(self) -> Observation:
        return self.pipeline.observe()

    def _first_screen(self) -> Observation:
        return self.pipeline.settle(None) if self.pipeline.live else self.observe()

    def ground(self, target: Target, obs: Observation) -> Candidate:
        """A candidate for a description, a point or a box (a point gets the element under it)."""
        return self.ladder.resolve(target, obs)

    # -- runs -------------------------------------------------------------------------------
    def run(self, task: str) -> RunResult:
        started = time.monotonic()
        self.deadline.arm(self.settings.max_seconds)
        self.ladder.instruction = task      # the task's own words on the screen are no target
        folder = RunFolder(self.runs_dir, task, self.settings.save_screenshots)
        steps: list[StepLog] = []
        run = StepRun(task, folder, started)
        outcome, reason, answer, skill = "failed", "", None, None
        try:
            outcome, reason, answer, skill = self._run(run, steps)
        except SafetyRefusal as exc:
            outcome, reason = "refused", str(exc)
        except StepLimitReached as exc:
            outcome, reason = "failed", str(exc)
        except PlanningError as exc:
            outcome, reason = "error", str(exc)
        except GuiAgentError as exc:
            outcome, reason = "failed", str(exc)
        result = RunResult(task, outcome, reason, answer, tuple(steps), folder.path,
                           round(time.monotonic() - started, 3), skill=skill)
        folder.finish(result)
        result = mask_result(result, folder.mask)   # the task's secrets are never shown or stored
        if self.skills is not None:
            self.skills.remember(result, self.planner.name, folder.mask)
        return result

    def run_skill(self, name: str, params: dict | None = None, task: str | None = None) -> RunResult:
        """Replay one skill from memory as a run of its own (the app's skill library uses it)."""
        from .errors import ConfigError

        if self.skills is None:
            raise ConfigError("the experience memory is off: there are no skills to run")
        task = task or f"replay the skill {name!r}"
        started = time.monotonic()
        folder = RunFolder(self.runs_dir, task, self.settings.save_screenshots)
        ran = self.skills.run(name, dict(params or {}), task, folder, self._first_screen(), 1)
        steps: list[StepLog] = []
        self._add_steps(ran.steps, steps, folder)
        outcome = "done" if ran.ok else ("stopped" if self.control.stop_event.is_set() else "failed")
        result = RunResult(task, outcome, ran.reason, None, tuple(steps), folder.path,
                           round(time.monotonic() - started, 3), skill=name if ran.ok else None)
        folder.finish(result)
        return mask_result(result, folder.mask)

    def _run(self, run: StepRun, steps: list[StepLog]) -> tuple[str, str, str | None, str | None]:
        obs = self._first_screen()
        if self.skills is not None:
            recalled = self.skills.recalled(run.task, run.folder, obs)
            if recalled is not None:
                self._add_steps(recalled.steps, steps, run.folder)
                if recalled.ok:
                    return "done", "", None, recalled.name
                if self.control.stop_event.is_set():
                    return "stopped", "stopped by the user", None, None
                log.info("skill %r stopped (%s); planning the task instead", recalled.name, recalled.reason)
                obs = recalled.observation or self.observe()
            self.skills.offer(self.planner, run.task)
        outcome, reason, answer = self._loop(run, steps, obs)
        return outcome, reason, answer, None

    # -- the loop ---------------------------------------------------------------------------
    def _check_limits(self, steps: list[StepLog], started: float) -> None:
        s = self.settings
        if len(steps) >= s.max_steps:
            raise StepLimitReached(f"stopped after {s.max_steps} steps (the step limit; raise it with --max-steps)")
        if time.monotonic() - started > s.max_seconds:
            raise StepLimitReached(f"stopped after {s.max_seconds:.0f} s (the time limit; raise it with --max-seconds)")

    def _loop(self, run: StepRun, steps: list[StepLog], obs: Observation) -> tuple[str, str, str | None]:
        manager, worker = self.planner.manager, self.planner.worker
        plan = _Plan(deque(manager.plan(run.task, obs)))
        if self.pipeline.hooks.on_plan:
            self.pipeline.hooks.on_plan([mask_record(sub, run.folder.mask) for sub in plan.queue])
        while plan.queue:
            if self.control.stop_event.is_set():
                return "stopped", "stopped by the user", None
            self.control.wait_while_paused()
            self._check_limits(steps, run.started)
            sub = plan.queue[0]
            clock = _Clock({"capture": self.pipeline.observe.last_seconds})
            t = time.perf_counter()
            action = worker.next_action(sub, obs, plan.history)
            clock.add("plan", t)
            if isinstance(action, Done):
                if sub.expect and not self._await_text(sub.expect, obs, plan.history):
                    raise GuiAgentError(f'expected "{sub.expect}" to appear, but it did not')
                if sub.expect:
                    run.unseen = ""      # what the subtask was for is on the screen
                plan.done.append(plan.queue.popleft())
                if plan.queue and manager.replans_after_success:
                    # A model-backed manager looks at the screen again after each subtask;
                    # an empty plan means the task is finished.
                    plan.queue = deque(manager.replan(run.task, obs, plan.done, None, ""))
                if not plan.queue and action.answer is not None:
                    return run.ending(action.answer)
                continue
            if isinstance(action, Fail):
                replanned = manager.replan(run.task, obs, plan.done, sub, action.reason)
                if not replanned:
                    return "failed", f"{sub.instruction}: {action.reason}", None
                plan.queue = deque(replanned)
                continue
            if isinstance(action, AskUser):
                ask = self.pipeline.hooks.ask_user
                reply = ask(action.question) if ask else None
                if reply is None:
                    return "failed", f"the agent needs an answer: {action.question}", None
                plan.history.append(StepRecord(action, len(plan.done), True, f"user answered: {reply}"))
                continue
            if isinstance(action, RunSkill):
                obs = self._run_skill_step(action, run, steps, plan, obs)
                continue
            step, obs = self._step(len(steps) + 1, sub, action, obs, clock, run)
            self._add_steps((step,), steps, run.folder)
            plan.history.append(StepRecord(action, len(plan.done), step.outcome == "ok", step.error))
        return run.ending()

    def _run_skill_step(self, action: RunSkill, run: StepRun, steps: list[StepLog], plan: _Plan,
                        obs: Observation) -> Observation:
        if self.skills is None:
            plan.history.append(StepRecord(action, len(plan.done), False,
                                           "the experience memory is off (no skills)"))
            return obs
        ran = self.skills.run(action.skill, dict(action.params), run.task, run.folder, obs, len(steps) + 1)
        self._add_steps(ran.steps, steps, run.folder)
        plan.history.append(StepRecord(action, len(plan.done), ran.ok, ran.reason))
        if ran.ok:
            run.unseen = ""      # a skill checks its own steps
        return ran.observation or self.observe()

    def _add_steps(self, new: tuple[StepLog, ...], steps: list[StepLog], folder: RunFolder) -> None:
        """Steps join the run's log (the skill's already have their shots in the folder)."""
        for step in new:
            step = mask_step(step, folder.mask)
            steps.append(step)
            folder.append_step(step)
            if self.pipeline.hooks.on_step:
                self.pipeline.hooks.on_step(step)

    def _await_text(self, text: str, obs: Observation, history: list[StepRecord]) -> bool:
        waited = [r.action.seconds for r in history if isinstance(r.action, Wait)]
        deadline = time.monotonic() + max(waited[-1] if waited else 0.0, self.settings.settle_timeout)
        while True:
            if self.queries.text_visible(text, obs):
                return True
            if not self.pipeline.live or time.monotonic() > deadline or self.control.stop_event.is_set():
                return False
            self.control.stop_event.wait(0.2)
            obs = self.observe()

    def _step(self, index: int, sub: Subtask, action: Action, obs: Observation, clock: _Clock,
              run: StepRun) -> tuple[StepLog, Observation]:
        text = format_action(action)
        targets = target_fields(action)
        cands: dict[str, Candidate] = {}
        if self.parser is not None and targets and obs.accessibility is None:
            # Parse here (cached by the parser) so that the stage is timed on its own. With an
            # accessibility tree, grounding reads the tree first and the pixels only when the
            # tree does not name the target (the tree's read is then the "parse" stage).
            t = time.perf_counter()
            self.parser.parse(obs.image)
            clock.add("parse", t)
        t = time.perf_counter()
        try:
            for name, target in targets.items():
                cands[name] = self.ground(target, obs)
        except GroundingError as exc:
            clock.add("ground", t)
            _tree_read(clock, obs)
            before = run.folder.save_image(f"{index:03d}-before", obs.image)
            # what comes next looks at the screen as it is now, settled, not at this frame: a
            # dialog that was slow to open on a busy machine is there for the retry
            return StepLog(index, sub.instruction, text, "failed", target=str(targets.get(next(iter(targets)))),
                           alternatives=tuple(str(c) for c in exc.candidates[:5]) if isinstance(exc, AmbiguousTarget) else (),
                           error=str(exc), before=before, timings=clock.timings), self.pipeline.settle(None)
        clock.add("ground", t)
        _tree_read(clock, obs)
        shown = {**cands, **{f"alternative {i}": c for i, c in enumerate(self.ladder.last_alternatives, 1)}}
        done = self.pipeline.perform(run, index, sub.instruction, action, cands, obs,
                                     target=str(targets[next(iter(targets))]) if targets else None,
                                     shown=shown, timings=clock.timings)
        run.note(text, done.effect)
        entry = replace(done.log, expect=sub.expect)
        name = main_field(cands)
        if self.skills is not None and name:   # what mining needs to make a skill of the step
            anchor = self.skills.anchor(index, obs, cands[name], run.folder)
            if anchor is not None:
                entry = replace(entry, crop=anchor.crop, ocr_text=anchor.ocr_text,
                                landmarks=anchor.landmarks)
        return mask_step(entry, run.folder.mask), done.after
