"""One step, the same for every planner and for replay, once its targets are grounded.

safety (judging what will be touched) ─► confirm (hooks) ─► show the target (hooks) ─► perform
through the controller, settle, see the effect (:class:`~gui_agent.acting.Actor`) ─► the step
record (:class:`~gui_agent.trajectory.StepLog`, secrets masked) with its before/after shots.

The planner loop (:mod:`gui_agent.agent`) grounds a planned action down the ladder and replay
(:mod:`gui_agent.replay`) finds a skill step's target by its recorded anchors; both hand the
grounded action to :meth:`StepPipeline.perform`, so every fix to how a step is judged, done or
logged is made once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from PIL import Image

from .acting import Acted, Actor
from .actions import Action, Type, Wait, format_action
from .config import Settings
from .desktop import Desktop
from .errors import NO_EFFECT, SafetyRefusal
from .grounding.candidate import Candidate, visible_text
from .safety import SafetyContext, SafetyGate, TypedSoFar
from .safety.secrets import SECRET_FIELD
from .screen.observation import Observation
from .secrets import TextMasker, mask_record
from .trajectory import RunFolder, StepLog
from .verify import LoopDetector, frame_digest
from .verify.effect import Effect, TextReader

MAIN_FIELDS = ("target", "into", "source", "at")   # the field a step is judged and drawn by


@dataclass
class AgentHooks:
    """Callbacks into whoever drives a run (the CLI, the app); all optional."""

    on_plan: Callable[[list], None] | None = None
    on_target: Callable[[Observation, Action, dict[str, Candidate]], None] | None = None
    on_step: Callable[[StepLog], None] | None = None
    confirm: Callable[[Action, Candidate | None, str], bool] | None = None
    ask_user: Callable[[str], str | None] | None = None


class Observer:
    """The desktop's screen, timed: ``last_seconds`` is how long the latest capture took (the
    step's "capture" stage)."""

    def __init__(self, desktop: Desktop) -> None:
        self.desktop = desktop
        self.last_seconds = 0.0

    def __call__(self) -> Observation:
        start = time.perf_counter()
        obs = self.desktop.observe()
        self.last_seconds = time.perf_counter() - start
        return obs


@dataclass
class RunControl:
    """Stop and pause, shared by everything that acts in a run (the loop, replay, the actor):
    the app's Stop button and the stop hotkey set ``stop_event``; Pause sets ``pause_event``."""

    stop_event: threading.Event = field(default_factory=threading.Event)
    pause_event: threading.Event = field(default_factory=threading.Event)

    def wait_while_paused(self) -> float:
        """Block while paused (until resumed or stopped); the seconds spent paused."""
        start = time.monotonic()
        while self.pause_event.is_set() and not self.stop_event.is_set():
            self.stop_event.wait(0.05)
        return time.monotonic() - start


@dataclass
class StepRun:
    """What the steps of one run (or one replay) share: the task the safety policy judges by,
    the run folder, the start, a masker for the secrets, the text typed by the consecutive
    ``type`` steps (judged as a whole), the loop detector, and the latest effect not seen."""

    task: str
    folder: RunFolder
    started: float = field(default_factory=time.monotonic)
    mask: TextMasker | None = None
    prefix: str = ""                 # shot-name prefix (a skill's steps in an agent's folder)
    steps_taken: int = 0
    typed: TypedSoFar = field(default_factory=TypedSoFar)
    loops: LoopDetector = field(default_factory=LoopDetector)
    unseen: str = ""                 # the latest step whose expected change was not seen

    def masked(self, text: str) -> str:
        return (self.mask or self.folder.mask)(text)

    def note(self, what: str, effect: Effect, *, checked_otherwise: bool = False) -> None:
        """Remember whether the run may end here: not after a change that was not seen, unless
        something else (a learned postcondition, an expected text) checked the step."""
        if checked_otherwise or (effect.seen and effect.judged):
            self.unseen = ""
        elif not effect.seen:
            self.unseen = f"{what} ({effect.describe()})"

    def ending(self, answer: str | None = None) -> tuple[str, str, str | None]:
        """(outcome, reason, answer) for a run that got to its end: done, unless its last effect
        was not seen — the agent never reports a success it did not see."""
        if self.unseen:
            return "failed", (f"the last step changed nothing on the screen, so the task may not "
                              f"be done: {self.unseen}"), None
        return "done", "", answer


@dataclass(frozen=True)
class Performed:
    """A performed step: its record, the screen after it, and the verdict on its effect."""

    log: StepLog
    after: Observation
    effect: Effect
    attempts: int


def main_field(cands: dict[str, Candidate]) -> str | None:
    return next((name for name in MAIN_FIELDS if name in cands), None)


class StepPipeline:
    """Performs grounded steps for a run: see the module docstring.

    ``observe`` captures the screen; ``settle`` waits after an action; ``reader`` (the screen
    parser) reads typed text back; ``live`` False: nothing changes (a dry run or a screenshot).
    """

    def __init__(self, desktop: Desktop, *, settings: Settings, safety: SafetyGate,
                 hooks: AgentHooks, observe: Observer,
                 settle: Callable[[Observation | None], Observation],
                 reader: TextReader | None = None, live: bool = True,
                 control: RunControl | None = None) -> None:
        self.desktop = desktop
        self.settings = settings
        self.safety = safety
        self.hooks = hooks
        self.observe = observe
        self.settle = settle
        self.reader = reader
        self.live = live
        self.control = control or RunControl()
        self._actor: Actor | None = None

    def actor(self) -> Actor:
        """The one Actor of this pipeline (it knows when the last input was sent: a wait counts
        from it)."""
        if self._actor is None:
            self._actor = Actor(self.desktop.controller, self.observe, self.settle, reader=self.reader,
                                live=self.live, stop=self.control.stop_event,
                                settle_interval=self.settings.settle_interval)
        return self._actor

    # -- safety ------------------------------------------------------------------------------
    def check_safety(self, run: StepRun, action: Action, main: Candidate | None, obs: Observation,
                     target_text: str | None = None) -> None:
        """Raise SafetyRefusal unless the policy (or the person asked) allows the action;
        ``target_text``: what the target is known to read when its element is not (a skill's
        recorded text)."""
        text = run.masked(format_action(action))
        verdict = self.safety.check(action, SafetyContext(
            task=run.task, target_text=visible_text(main) or target_text, window_title=obs.window_title,
            steps_taken=run.steps_taken, elapsed=time.monotonic() - run.started,
            typed_before=run.typed.before(action)))
        if verdict.decision == "refuse":
            raise SafetyRefusal(f"refused {text}: {run.masked(verdict.reason)}")
        if verdict.decision == "ask":
            confirm = self.hooks.confirm
            mask = run.mask or run.folder.mask
            allowed = confirm(mask_record(action, mask), main, run.masked(verdict.reason)) if confirm else False
            if not allowed:
                raise SafetyRefusal(f"not allowed to {text}: {run.masked(verdict.reason)}")
            self.safety.approved(action, verdict)

    # -- the step ----------------------------------------------------------------------------
    def perform(self, run: StepRun, index: int, subtask: str, action: Action,
                cands: dict[str, Candidate], obs: Observation, *, target: str | None = None,
                target_text: str | None = None, shown: dict[str, Candidate] | None = None,
                timings: dict[str, float] | None = None) -> Performed:
        """Judge, perform and log one grounded action (raises SafetyRefusal when refused)."""
        name = main_field(cands)
        main = cands[name] if name else None
        self.check_safety(run, action, main, obs, target_text)
        if self.hooks.on_target:   # the app draws the target (and the runners-up it beat)
            self.hooks.on_target(obs, mask_record(action, run.mask or run.folder.mask), shown or cands)
        points = {k: obs.to_screen(c.point) for k, c in cands.items()}
        before = run.folder.save_image(f"{run.prefix}{index:03d}-before", obs.image,
                                       main.point if main else None, main.box if main else None)
        acted = self.actor().act(action, cands, obs, secret=self._secret(action, main, run))
        after = run.folder.save_image(f"{run.prefix}{index:03d}-after", acted.after.image)
        log = self._record(run, index, subtask, action, cands, name, points, acted, target,
                           before, after, dict(timings or {}), obs.image)
        run.typed.after(action)
        run.steps_taken += 1
        return Performed(log, acted.after, acted.effect, acted.attempts)

    def _record(self, run: StepRun, index: int, subtask: str, action: Action,
                cands: dict[str, Candidate], name: str | None, points: dict, acted: Acted,
                target: str | None, before: str | None, after: str | None,
                timings: dict[str, float], before_image: Image.Image) -> StepLog:
        text = format_action(action)
        main = cands[name] if name else None
        effect = acted.effect
        outcome, error = "ok", ""
        if not effect.seen and effect.required:
            outcome, error = "failed", f"{NO_EFFECT} {acted.attempts} tries: {effect.describe()}"
        elif self.live and not isinstance(action, Wait | Type) and \
                run.loops.observe(text, frame_digest(before_image)):
            outcome, error = "failed", "the same action on an unchanged screen keeps repeating"
        for stage, seconds in acted.timings.items():
            timings[stage] = timings.get(stage, 0.0) + seconds
        screen = points.get(name) if name else None
        log = StepLog(
            index, subtask, text, outcome, target=target,
            point=(main.point.x, main.point.y) if main else None,
            screen_point=(screen.x, screen.y) if screen else None,
            box=main.box.corners if main else None, source=main.source if main else None,
            score=round(main.score, 3) if main else None,
            why="; ".join(w for w in (main.why if main else "", f"effect {effect.describe()}") if w),
            error=error, before=before, after=after, timings=timings)
        return mask_record(log, run.mask or run.folder.mask)

    @staticmethod
    def _secret(action: Action, field_: Candidate | None, run: StepRun) -> bool:
        """Typed text never read back or shown: a secret the run knows, or text typed into a
        password field."""
        if not isinstance(action, Type):
            return False
        where = " ".join(t for t in (action.into if isinstance(action.into, str) else "",
                                     visible_text(field_) or "") if t)
        return run.masked(action.text) != action.text or bool(SECRET_FIELD.search(where))
