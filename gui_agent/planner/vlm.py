"""A hierarchical planner backed by a vision-language model (Manager and Worker).

The Manager asks for a short numbered list of subtasks and, when a subtask fails, for the
rest of the plan from the current screenshot and what was done. The Worker asks for the next
action of the current subtask from the last few screenshots and a compact history. A reply
that cannot be read gets one retry with a format reminder, then a PlanningError that shows its
start. The same action proposed again on an unchanged screen (or a step the agent marked as
looping) gets one reflection — "your last action had no effect, choose another" — and, if the
model repeats itself anyway, the subtask fails with the reason.

End-to-end models (UI-TARS) answer with coordinates: their actions' targets are Points or
Boxes in observation-image pixels, which the agent uses directly. Our canonical "gui-agent"
format may name targets by description; the grounding ladder resolves those.
"""

from __future__ import annotations

import logging
import re
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from PIL import Image

from ..actions import Action, AskUser, Done, Fail, Type, Wait, format_action
from ..backends.base import Backend, GenerationSettings
from ..backends.registry import ModelFamily
from ..deadline import Deadline
from ..errors import PlanningError
from ..screen.observation import Observation, frame_digest
from . import prompting
from .asking import PlanReply, action_line, ask_with_retry, parse_plan, preview
from .base import Planner, SkillMenu, StepRecord, Subtask, Worker
from .prompting import PromptSettings, ScreenText

log = logging.getLogger(__name__)

LOOP_NOTE = "the same action on an unchanged screen keeps repeating"  # agent.py's wording
_ACTION_LINE = re.compile(r"Action\s*:\s*(.+)", re.S)


@dataclass
class RunContext:
    """What the manager and worker of one planner share: the task, the plan, the history."""

    task: str = ""
    plan: list[Subtask] = field(default_factory=list)
    history: Sequence[StepRecord] = ()


class VlmManager:
    """Task -> subtasks, and the rest of the plan after a subtask ends or fails (module doc).

    ``replans_after_success`` tells the agent loop to call ``replan(..., failed=None, ...)``
    after each finished subtask too (only failure re-plans count against ``max_replans``).
    """

    replans_after_success = True

    def __init__(self, backend: Backend, settings: PromptSettings | None = None, *,
                 generation: GenerationSettings | None = None, screen_text: ScreenText | None = None,
                 skills: Sequence[str] | SkillMenu = (), max_replans: int = 3,
                 context: RunContext | None = None, deadline: Deadline | None = None,
                 vision: bool = True, action_lines: bool = False) -> None:
        self.backend = backend
        self.deadline = deadline  # the run's time limit, shared with every model call
        self.vision = vision      # False: a text-only model, shown the screen's text only
        self.action_lines = action_lines  # a subtask written as action text is that action
        self.settings = settings or PromptSettings()
        self.generation = generation
        self.screen_text = screen_text
        self.menu = skills if isinstance(skills, SkillMenu) else SkillMenu(tuple(skills))
        self.max_replans = max_replans
        self.context = context or RunContext()
        self.replans = 0

    def _read(self, reply: str) -> PlanReply:
        return parse_plan(reply, self.settings.max_subtasks)

    def _subtask(self, line: str) -> Subtask:
        action = action_line(line) if self.action_lines else None
        return Subtask(line, actions=(action,)) if action is not None else Subtask(line)

    def plan(self, task: str, observation: Observation | None) -> list[Subtask]:
        messages = prompting.manager_messages(task, observation, self.settings,
                                              screen_text=self.screen_text, skills=self.menu.lines,
                                              image=self.vision)
        plan = ask_with_retry(self.backend, messages, self.generation, self._read,
                              prompting.plan_reminder, "planning", self.deadline)
        assert isinstance(plan, PlanReply)
        if plan.give_up is not None:
            raise PlanningError(f"the model cannot plan {task!r}: {plan.give_up}")
        subtasks = [self._subtask(s) for s in plan.subtasks] or [Subtask(task)]
        if plan.finished:  # already done on the screen: one subtask lets the worker confirm it
            subtasks = [Subtask(task)]
        self.context.task, self.context.plan, self.replans = task, list(subtasks), 0
        log.info("plan for %r: %s", task, [s.instruction for s in subtasks])
        return subtasks

    def replan(self, task: str, observation: Observation | None, done: list[Subtask],
               failed: Subtask | None, reason: str) -> list[Subtask]:
        """The subtasks still to do; [] when the model says it is finished or gives up, or
        after ``max_replans`` re-plans (then the run fails with ``reason``)."""
        if failed is not None:
            if self.replans >= self.max_replans:
                log.info("not re-planning again after %d re-plans: %s", self.replans, reason)
                return []
            self.replans += 1
        messages = prompting.replan_messages(
            task, observation, self.settings, done=done, failed=failed, reason=reason,
            history=self.context.history, screen_text=self.screen_text, skills=self.menu.lines,
            image=self.vision)
        plan = ask_with_retry(self.backend, messages, self.generation, self._read,
                              prompting.plan_reminder, "planning", self.deadline)
        assert isinstance(plan, PlanReply)
        if plan.give_up is not None or plan.finished:
            log.info("re-plan ends the run: %s", plan.give_up or "finished")
            return []
        subtasks = [self._subtask(s) for s in plan.subtasks]
        self.context.plan = [*done, *subtasks]
        log.info("re-plan after %r: %s", reason, [s.instruction for s in subtasks])
        return subtasks


class VlmWorker:
    """Subtask + screenshots + history -> the next action (see module doc).

    ``adapter`` reads the family's replies (``parse(text, frame) -> ModelReply``) and
    ``frame_for(observation)`` gives the ImageFrame its coordinates refer to.
    """

    def __init__(self, backend: Backend, adapter: object, frame_for: Callable[[Observation], object],
                 family_text: str, settings: PromptSettings | None = None, *,
                 generation: GenerationSettings | None = None, screen_text: ScreenText | None = None,
                 skills: Sequence[str] | SkillMenu = (), max_failed_steps: int = 2,
                 context: RunContext | None = None, deadline: Deadline | None = None,
                 vision: bool = True) -> None:
        self.backend = backend
        self.deadline = deadline
        self.vision = vision      # False: a text-only model (no screenshot, the screen's text)
        self.adapter = adapter
        self.frame_for = frame_for
        self.family_text = family_text
        self.settings = settings or PromptSettings()
        self.generation = generation
        self.screen_text = screen_text
        self.menu = skills if isinstance(skills, SkillMenu) else SkillMenu(tuple(skills))
        self.max_failed_steps = max_failed_steps
        self.context = context or RunContext()
        self._frames: deque[tuple[str, Image.Image]] = deque(maxlen=self.settings.screenshots)
        self._said: dict[str, str] = {}           # canonical action text -> the model's wording
        self._subtask: Subtask | None = None
        self._start = 0
        self._closed = True
        self._pending: list[Action] = []
        self._tried: set[tuple[str, str]] = set()  # (action, screen digest) within the attempt
        self._reflected = False

    # -- bookkeeping --------------------------------------------------------------------------
    def _begin(self, subtask: Subtask, history: Sequence[StepRecord]) -> None:
        if subtask is not self._subtask or self._closed:
            self._subtask, self._start, self._closed = subtask, len(history), False
            self._pending, self._tried, self._reflected = [], set(), False

    def _end(self, action: Action) -> Action:
        if isinstance(action, Done | Fail):
            self._closed = True
        return action

    def _remember(self, observation: Observation | None) -> str:
        if observation is None:
            return ""
        digest = frame_digest(observation.image)
        if self.vision and (not self._frames or self._frames[-1][0] != digest):
            self._frames.append((digest, observation.image))
        return digest

    def _shown(self, action: Action) -> str | None:
        return self._said.get(format_action(action))

    def _position(self, subtask: Subtask) -> str:
        plan = self.context.plan
        index = next((i for i, s in enumerate(plan) if s is subtask), None)
        return f"{index + 1} of {len(plan)}" if index is not None else "current"

    # -- the protocol -------------------------------------------------------------------------
    def next_action(self, subtask: Subtask, observation: Observation | None,
                    history: Sequence[StepRecord]) -> Action:
        self.context.history = history
        self._begin(subtask, history)
        digest = self._remember(observation)
        mine = list(history[self._start:])
        reflection: str | None = None
        if mine and not mine[-1].ok and not isinstance(mine[-1].action, AskUser):
            self._pending = []
            last = mine[-1]
            if LOOP_NOTE in last.note:
                if self._reflected:
                    return self._end(Fail(f"{last.note}: {format_action(last.action)} (a different "
                                          "action was asked for)"))
                reflection = self._reflect(last.action)
            elif failed_tail(mine) >= self.max_failed_steps:
                return self._end(Fail(last.note or f"{format_action(last.action)} failed"))
        if self._pending and reflection is None:
            return self._end(self._pending.pop(0))
        action = self._propose(subtask, observation, history, reflection)
        if _is_repeat(action, digest, self._tried):
            if self._reflected:
                return self._end(Fail(f"{LOOP_NOTE}: {format_action(action)} had no effect, and the "
                                      "model chose it again after being told"))
            action = self._propose(subtask, observation, history, self._reflect(action))
            if _is_repeat(action, digest, self._tried):
                return self._end(Fail(f"{LOOP_NOTE}: {format_action(action)} had no effect, and the "
                                      "model chose it again after being told"))
        if not isinstance(action, Done | Fail | AskUser | Wait):
            self._tried.add((format_action(action), digest))
        return self._end(action)

    def _reflect(self, action: Action) -> str:
        self._reflected = True
        log.info("reflection: %s had no effect", format_action(action))
        return prompting.reflection_text(action, self._shown(action))

    def _propose(self, subtask: Subtask, observation: Observation | None,
                 history: Sequence[StepRecord], reflection: str | None) -> Action:
        messages = prompting.worker_messages(
            self.context.task or subtask.instruction, subtask, self._position(subtask),
            self.context.plan, [img for _, img in self._frames], history, self.settings,
            family_text=self.family_text, observation=observation, screen_text=self.screen_text,
            skills=self.menu.lines, shown=self._shown, reflection=reflection)
        frame = self.frame_for(observation) if observation is not None else None

        def read(reply: str) -> object:
            parsed = self.adapter.parse(reply, frame)  # type: ignore[attr-defined]
            if not parsed.actions:
                raise PlanningError(f"no action in the reply {preview(reply, 80)}")
            return parsed

        reminder = getattr(self.adapter, "format_reminder", "")
        parsed = ask_with_retry(self.backend, messages, self.generation, read,
                                lambda err: prompting.action_reminder(err, reminder), "acting",
                                self.deadline)
        actions: tuple[Action, ...] = parsed.actions  # type: ignore[attr-defined]
        wording = _action_wording(parsed.raw)  # type: ignore[attr-defined]
        if wording and len(actions) == 1:
            self._said[format_action(actions[0])] = wording
        log.debug("worker: %s (thought: %s)", [format_action(a) for a in actions],
                  getattr(parsed, "thought", "")[:200])
        self._pending = list(actions[1:])
        return actions[0]


def failed_tail(records: Sequence[StepRecord]) -> int:
    count = 0
    for record in reversed(records):
        if record.ok or isinstance(record.action, AskUser):
            break
        count += 1
    return count


def _is_repeat(action: Action, digest: str, tried: set[tuple[str, str]]) -> bool:
    if isinstance(action, Done | Fail | AskUser | Wait | Type) or not digest:
        return False
    return (format_action(action), digest) in tried


def _action_wording(raw: str) -> str:
    """The model's own text of its action ('click(start_box=...)'), for the history."""
    match = _ACTION_LINE.search(raw)
    text = (match.group(1) if match else raw).strip()
    return text[:200] if "\n" not in text else ""


def vlm_planner(backend: Backend, family: ModelFamily, *, settings: PromptSettings | None = None,
                manager_backend: Backend | None = None, screen_text: ScreenText | None = None,
                skills: Sequence[str] = (), generation: GenerationSettings | None = None,
                max_replans: int = 3, deadline: Deadline | None = None) -> Planner:
    """A hierarchical planner for a model family (a registry ModelFamily: ``name``, ``prompt``,
    ``parser`` (the reply adapter), ``coordinates``, ``min_pixels``, ``max_pixels``).

    ``settings`` defaults to the family's image budget; ``manager_backend`` (default: the same
    model) plans the subtasks. ``deadline`` (the run's) bounds every model call.
    """
    from ..backends.adapters import get_adapter
    from ..backends.coordinates import ImageFrame
    from ..backends.images import ImageBudget

    if settings is None:
        settings = PromptSettings(budget=family.budget)
    convention = family.convention
    adapter = get_adapter(family.parser)
    budget: ImageBudget = settings.budget
    context = RunContext()
    menu = SkillMenu(tuple(skills))
    if generation is None:
        generation = family.generation

    def frame_for(observation: Observation) -> ImageFrame:
        return ImageFrame.for_observation(observation, convention, budget)

    manager = VlmManager(manager_backend or backend, settings, generation=generation,
                         screen_text=screen_text, skills=menu, max_replans=max_replans,
                         context=context, deadline=deadline, vision=family.vision,
                         action_lines=True)
    worker = VlmWorker(backend, adapter, frame_for, prompting.family_prompt(family), settings,
                       generation=generation, screen_text=screen_text, skills=menu, context=context,
                       deadline=deadline, vision=family.vision)
    return Planner(f"vlm:{family.name}", manager, PlannedActions(worker), menu)


class PlannedActions:
    """A worker that first does the actions a subtask was written as (a planner's action text,
    its targets found by the grounding ladder), then ``Done``; other subtasks go to ``worker``.
    A failed planned action fails the subtask with its reason (the planner re-plans)."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self._subtask: Subtask | None = None
        self._start = 0
        self._given = 0

    def next_action(self, subtask: Subtask, observation: Observation | None,
                    history: Sequence[StepRecord]) -> Action:
        if not subtask.actions:
            return self.worker.next_action(subtask, observation, history)
        if subtask is not self._subtask:
            self._subtask, self._start, self._given = subtask, len(history), 0
        mine = history[self._start:]
        if mine and not mine[-1].ok and not isinstance(mine[-1].action, AskUser):
            self._subtask = None
            return Fail(mine[-1].note or f"{format_action(mine[-1].action)} failed")
        if self._given < len(subtask.actions):
            self._given += 1
            return subtask.actions[self._given - 1]
        self._subtask = None
        return Done()
