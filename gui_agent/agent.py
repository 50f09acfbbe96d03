"""The agent loop: observe -> plan -> ground -> check safety -> act -> verify, step by step.

``Agent(desktop, planner).run(task)`` returns a :class:`RunResult` and writes the run folder.
Hooks let the CLI print steps and ask the person, and let the app draw what is about to happen.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import skill_use
from .acting import Actor
from .actions import Action, AskUser, Done, Fail, RunSkill, Type, Wait, format_action, target_fields
from .config import Settings
from .deadline import Deadline
from .desktop import Desktop
from .errors import (
    AmbiguousTarget,
    GroundingError,
    GuiAgentError,
    PlanningError,
    SafetyRefusal,
    StepLimitReached,
)
from .grounding.candidate import Candidate, visible_text
from .memory.experience import ExperienceMemory, Learned
from .planner.base import Planner, StepRecord, Subtask
from .safety import SafetyContext, SafetyGate, TypedSoFar
from .safety.secrets import SECRET_FIELD
from .screen.observation import Observation
from .secrets import TextMasker, mask_record, mask_result, mask_step
from .trajectory import RunFolder, RunResult, StepLog
from .verify import LoopDetector, frame_digest, settle_after

log = logging.getLogger(__name__)



@dataclass
class AgentHooks:
    """Callbacks into whoever drives the agent; all optional."""

    on_plan: Callable[[list[Subtask]], None] | None = None
    on_target: Callable[[Observation, Action, dict[str, Candidate]], None] | None = None
    on_step: Callable[[StepLog], None] | None = None
    confirm: Callable[[Action, Candidate | None, str], bool] | None = None
    ask_user: Callable[[str], str | None] | None = None


@dataclass
class _RunState:
    """What the steps of one run share: the task, its folder and start, the loop detector, the
    text typed by the latest consecutive ``type`` steps (judged as a whole), and the latest
    effect not seen."""

    task: str
    folder: RunFolder
    started: float
    loops: LoopDetector = field(default_factory=LoopDetector)
    typed: TypedSoFar = field(default_factory=TypedSoFar)
    unseen: str = ""      # the latest step whose expected change was not seen (none seen since)

    def ending(self, answer: str | None = None) -> tuple[str, str, str | None]:
        """The run's end: done, unless its last effect was not seen (no success it did not see)."""
        if self.unseen:
            return "failed", (f"the last step changed nothing on the screen, so the task may not "
                              f"be done: {self.unseen}"), None
        return "done", "", answer


@dataclass
class _Clock:
    timings: dict[str, float] = field(default_factory=dict)

    def add(self, stage: str, start: float) -> None:
        self.timings[stage] = self.timings.get(stage, 0.0) + time.perf_counter() - start


class Agent:
    def __init__(
        self,
        desktop: Desktop,
        planner: Planner,
        *,
        settings: Settings | None = None,
        ladder: object | None = None,
        parser: object | None = None,
        safety: SafetyGate | None = None,
        hooks: AgentHooks | None = None,
        runs_dir: Path | None = None,
        live: bool = True,
        memory: ExperienceMemory | None = None,
        deadline: Deadline | None = None,
    ) -> None:
        from .grounding.default import default_ladder

        self.desktop = desktop
        self.planner = planner
        self.settings = settings or Settings()
        if ladder is None:
            ladder, parser = default_ladder(parser)
        self.ladder = ladder
        self.parser = parser
        self.safety = safety or SafetyGate.from_settings(self.settings)
        self.hooks = hooks or AgentHooks()
        self.runs_dir = Path(runs_dir or self.settings.runs_dir)
        self.live = live  # False when the screen cannot change (a screenshot file)
        self.memory = memory  # None: nothing remembered, no skills
        self.deadline = deadline or Deadline()   # armed per run; model calls share it
        self.last_episode_id: int | None = None
        self.last_learned = Learned()
        self.stop_event = threading.Event()
        self.pause_event = threading.Event()  # set = paused
        self.last_capture_seconds = 0.0
        worker = getattr(planner, "worker", None)
        if worker is not None and getattr(worker, "state_reader", "absent") is None:
            worker.state_reader = self.checked_state
        if worker is not None and getattr(worker, "value_reader", "absent") is None:
            worker.value_reader = self.shown_text

    # -- screen -----------------------------------------------------------------------------
    def _observe(self) -> Observation:
        start = time.perf_counter()
        obs = self.desktop.observe()
        self.last_capture_seconds = time.perf_counter() - start
        return obs

    def _settle(self, before: Observation | None) -> Observation:
        if not self.live:
            return self._observe()
        return settle_after(self._observe, before, self.settings, self.stop_event)

    # -- grounding --------------------------------------------------------------------------
    def ground(self, target: object, obs: Observation) -> Candidate:
        """A candidate for a description, a point or a box (a point gets the element under it)."""
        return self.ladder.resolve(target, obs)  # type: ignore[attr-defined]

    def actor(self) -> Actor:
        """Performs a grounded action through the controller and judges its effect."""
        return Actor(self.desktop.controller, self._observe, self._settle, reader=self.parser,
                     live=self.live, stop=self.stop_event, settle_interval=self.settings.settle_interval)

    @staticmethod
    def _is_secret(action: Action, field: Candidate | None, mask: TextMasker) -> bool:
        """Typed text that must never be read back or shown: a secret the task names, or any
        text typed into a password field."""
        if not isinstance(action, Type):
            return False
        where = " ".join(t for t in (action.into if isinstance(action.into, str) else "",
                                     visible_text(field) or "") if t)
        return mask(action.text) != action.text or bool(SECRET_FIELD.search(where))

    def text_visible(self, text: str, obs: Observation) -> bool:
        try:
            self.ground(f'"{text}"', obs)
        except AmbiguousTarget:
            return True
        except GroundingError:
            return False
        return True

    def checked_state(self, description: str, obs: Observation) -> bool | None:
        """Whether the checkbox/radio a description names is checked (None: cannot tell)."""
        try:
            cand = self.ground(description, obs)
        except GroundingError:
            return None
        return cand.element.checked if cand.element is not None else None

    def shown_text(self, description: str, obs: Observation) -> str | None:
        """The text an element shows (a field's value), or None when it cannot be found."""
        try:
            cand = self.ground(description, obs)
        except GroundingError:
            return None
        # A field's value is read again on its own: the screen parse reads a short value next
        # to the caret poorly ("0|" as "P"); the direct read paints the caret out first.
        reader = getattr(self.parser, "read_text", None)
        direct = reader(obs.image, cand.box) if reader is not None else None
        if direct:
            return direct
        return cand.element.text if cand.element is not None and cand.element.text else None

    # -- the loop ---------------------------------------------------------------------------
    def run(self, task: str) -> RunResult:
        started = time.monotonic()
        self.deadline.arm(self.settings.max_seconds)
        folder = RunFolder(self.runs_dir, task, self.settings.save_screenshots)
        steps: list[StepLog] = []
        outcome, reason, answer = "failed", "", None
        self._skill_done: str | None = None
        try:
            outcome, reason, answer = self._loop(task, folder, steps, started)
        except SafetyRefusal as exc:
            outcome, reason = "refused", str(exc)
        except StepLimitReached as exc:
            outcome, reason = "failed", str(exc)
        except PlanningError as exc:
            outcome, reason = "error", str(exc)
        except GuiAgentError as exc:
            outcome, reason = "failed", str(exc)
        result = RunResult(task, outcome, reason, answer, tuple(steps), folder.path,
                           round(time.monotonic() - started, 3), skill=self._skill_done)
        folder.finish(result)
        result = mask_result(result, folder.mask)   # the task's secrets are never shown or stored
        skill_use.remember_run(self, result, folder.mask)
        return result

    def run_skill(self, name: str, params: dict | None = None, task: str | None = None) -> RunResult:
        """Replay one skill from memory as a run of its own (the app's skill library uses it)."""
        task = task or f"replay the skill {name!r}"
        started = time.monotonic()
        folder = RunFolder(self.runs_dir, task, self.settings.save_screenshots)
        obs = self._settle(None) if self.live else self._observe()
        ran = skill_use.run_skill(self, name, dict(params or {}), task, folder, obs, 1)
        steps: list[StepLog] = []
        self._add_steps(ran.steps, steps, folder)
        outcome = "done" if ran.ok else ("stopped" if self.stop_event.is_set() else "failed")
        result = RunResult(task, outcome, ran.reason, None, tuple(steps), folder.path,
                           round(time.monotonic() - started, 3), skill=name if ran.ok else None)
        folder.finish(result)
        return mask_result(result, folder.mask)

    def _check_limits(self, steps: list[StepLog], started: float) -> None:
        s = self.settings
        if len(steps) >= s.max_steps:
            raise StepLimitReached(f"stopped after {s.max_steps} steps (the step limit; raise it with --max-steps)")
        if time.monotonic() - started > s.max_seconds:
            raise StepLimitReached(f"stopped after {s.max_seconds:.0f} s (the time limit; raise it with --max-seconds)")

    def _wait_if_paused(self) -> None:
        while self.pause_event.is_set() and not self.stop_event.is_set():
            self.stop_event.wait(0.05)

    def _loop(self, task: str, folder: RunFolder, steps: list[StepLog],
              started: float) -> tuple[str, str, str | None]:
        obs = self._settle(None) if self.live else self._observe()
        recalled = skill_use.try_recalled_skill(self, task, folder, obs)
        if recalled is not None:
            self._add_steps(recalled.steps, steps, folder)
            if recalled.ok:
                self._skill_done = recalled.name
                return "done", "", None
            if self.stop_event.is_set():
                return "stopped", "stopped by the user", None
            log.info("skill %r stopped (%s); planning the task instead", recalled.name, recalled.reason)
            obs = recalled.observation or self._observe()
        skill_use.offer_skills(self, task)
        manager, worker = self.planner.manager, self.planner.worker
        queue: deque[Subtask] = deque(manager.plan(task, obs))
        if self.hooks.on_plan:
            self.hooks.on_plan([mask_record(sub, folder.mask) for sub in queue])
        done: list[Subtask] = []
        history: list[StepRecord] = []
        state = _RunState(task, folder, started)
        index = len(steps)
        while queue:
            if self.stop_event.is_set():
                return "stopped", "stopped by the user", None
            self._wait_if_paused()
            self._check_limits(steps, started)
            sub = queue[0]
            clock = _Clock({"capture": self.last_capture_seconds})
            t = time.perf_counter()
            action = worker.next_action(sub, obs, history)
            clock.add("plan", t)
            if isinstance(action, Done):
                if sub.expect and not self._await_text(sub.expect, obs, history):
                    raise GuiAgentError(f'expected "{sub.expect}" to appear, but it did not')
                if sub.expect:
                    state.unseen = ""      # what the subtask was for is on the screen
                done.append(queue.popleft())
                if queue and getattr(manager, "replans_after_success", False):
                    # A model-backed manager looks at the screen again after each subtask;
                    # an empty plan means the task is finished.
                    queue = deque(manager.replan(task, obs, done, None, ""))
                if not queue and action.answer is not None:
                    return state.ending(action.answer)
                continue
            if isinstance(action, Fail):
                replanned = manager.replan(task, obs, done, sub, action.reason)
                if not replanned:
                    return "failed", f"{sub.instruction}: {action.reason}", None
                queue = deque(replanned)
                continue
            if isinstance(action, AskUser):
                reply = self.hooks.ask_user(action.question) if self.hooks.ask_user else None
                if reply is None:
                    return "failed", f"the agent needs an answer: {action.question}", None
                history.append(StepRecord(action, len(done), True, f"user answered: {reply}"))
                continue
            if isinstance(action, RunSkill):
                name, params = skill_use.skill_call(action)
                ran = skill_use.run_skill(self, name, params, task, folder, obs, index + 1)
                self._add_steps(ran.steps, steps, folder)
                index = len(steps)
                obs = ran.observation or self._observe()
                history.append(StepRecord(action, len(done), ran.ok, ran.reason))
                if ran.ok:
                    state.unseen = ""      # a skill checks its own steps
                continue
            index += 1
            step, obs = self._step(index, sub, action, obs, clock, state, len(steps))
            state.typed.after(action)
            step = mask_step(step, folder.mask)
            steps.append(step)
            folder.append_step(step)
            if self.hooks.on_step:
                self.hooks.on_step(step)
            history.append(StepRecord(action, len(done), step.outcome == "ok", step.error))
        return state.ending()

    def _add_steps(self, new: tuple[StepLog, ...], steps: list[StepLog], folder: RunFolder) -> None:
        """Steps a skill ran (already in the run folder's shots) join the run's log."""
        for step in new:
            step = mask_step(step, folder.mask)
            steps.append(step)
            folder.append_step(step)
            if self.hooks.on_step:
                self.hooks.on_step(step)

    def _await_text(self, text: str, obs: Observation, history: list[StepRecord]) -> bool:
        waited = [r.action.seconds for r in history if isinstance(r.action, Wait)]
        deadline = time.monotonic() + max(waited[-1] if waited else 0.0, self.settings.settle_timeout)
        while True:
            if self.text_visible(text, obs):
                return True
            if not self.live or time.monotonic() > deadline or self.stop_event.is_set():
                return False
            self.stop_event.wait(0.2)
            obs = self._observe()

    def _step(self, index: int, sub: Subtask, action: Action, obs: Observation, clock: _Clock,
              state: _RunState, n_steps: int) -> tuple[StepLog, Observation]:
        folder = state.folder
        text = format_action(action)
        targets = target_fields(action)
        cands: dict[str, Candidate] = {}
        if self.parser is not None and targets:
            # Parse here (cached by the parser) so that the stage is timed on its own.
            t = time.perf_counter()
            self.parser.parse(obs.image)  # type: ignore[attr-defined]
            clock.add("parse", t)
        t = time.perf_counter()
        try:
            for name, target in targets.items():
                cands[name] = self.ground(target, obs)
        except GroundingError as exc:
            clock.add("ground", t)
            before = folder.save_image(f"{index:03d}-before", obs.image)
            return StepLog(index, sub.instruction, text, "failed", target=str(targets.get(next(iter(targets)))),
                           alternatives=tuple(str(c) for c in getattr(exc, "candidates", [])[:5]),
                           error=str(exc), before=before, timings=clock.timings), obs
        clock.add("ground", t)
        main = cands.get("target") or cands.get("into") or cands.get("source") or cands.get("at")
        verdict = self.safety.check(action, SafetyContext(
            task=state.task, target_text=visible_text(main), window_title=obs.window_title,
            steps_taken=n_steps, elapsed=time.monotonic() - state.started,
            typed_before=state.typed.before(action)))
        if verdict.decision == "refuse":
            raise SafetyRefusal(f"refused {text}: {verdict.reason}")
        if verdict.decision == "ask":
            allowed = self.hooks.confirm(mask_record(action, folder.mask), main, folder.mask(verdict.reason)) \
                if self.hooks.confirm else False
            if not allowed:
                raise SafetyRefusal(f"not allowed to {text}: {verdict.reason}")
            self.safety.approved(action, verdict)
        if self.hooks.on_target:   # the app draws the target and the runners-up it beat
            runners_up = getattr(self.ladder, "last_alternatives", [])
            shown = {**cands, **{f"alternative {i}": c for i, c in enumerate(runners_up, 1)}}
            self.hooks.on_target(obs, action, shown)
        points = {name: obs.to_screen(c.point) for name, c in cands.items()}
        before = folder.save_image(f"{index:03d}-before", obs.image, main.point if main else None,
                                   main.box if main else None)
        acted = self.actor().act(action, cands, obs, secret=self._is_secret(action, main, folder.mask))
        after_obs = acted.after
        for stage, seconds in acted.timings.items():
            clock.timings[stage] = clock.timings.get(stage, 0.0) + seconds
        after = folder.save_image(f"{index:03d}-after", after_obs.image)
        anchor = skill_use.anchor_for(self, index, obs, main, folder)
        outcome, error = "ok", ""
        effect = acted.effect
        if not effect.seen and effect.required:
            outcome, error = "failed", f"no effect after {acted.attempts} tries: {effect.describe()}"
        elif not effect.seen:
            state.unseen = f"{text} ({effect.describe()})"
        elif effect.judged:
            state.unseen = ""
        if outcome == "ok" and self.live and not isinstance(action, Wait | Type) \
                and state.loops.observe(text, frame_digest(obs.image)):
            outcome, error = "failed", "the same action on an unchanged screen keeps repeating"
        why = "; ".join(w for w in (main.why if main else "", f"effect {effect.describe()}") if w)
        main_point = main.point if main else None
        return StepLog(
            index, sub.instruction, text, outcome,
            target=str(targets[next(iter(targets))]) if targets else None,
            point=(main_point.x, main_point.y) if main_point else None,
            screen_point=(points[next(iter(points))].x, points[next(iter(points))].y) if points else None,
            box=main.box.corners if main else None,
            source=main.source if main else None,
            score=round(main.score, 3) if main else None,
            why=why, error=error, before=before, after=after, timings=clock.timings,
            crop=anchor.crop if anchor else None, ocr_text=anchor.ocr_text if anchor else None,
            landmarks=anchor.landmarks if anchor else (), expect=sub.expect,
        ), after_obs
