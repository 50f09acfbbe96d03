"""The planner interface the agent loop uses: a Manager (task -> subtasks) and a Worker
(subtask -> next action). The offline planner and any model-backed planner implement it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..actions import Action
from ..screen.observation import Observation


@dataclass(frozen=True)
class Subtask:
    """One step of a plan, as the user wrote it.

    ``actions`` are pre-planned (the offline planner knows them up front; a model-backed
    Worker leaves them empty and decides on the screen). ``expect`` is a text that should be
    on the screen once the subtask is done; the agent loop checks it.
    """

    instruction: str
    actions: tuple[Action, ...] = ()
    expect: str | None = None
    reveal: str | None = None    # a kind of element to open one by one ("tab", "section") when
                                 # the quoted target is not on the screen; None: collapsed nodes


@dataclass(frozen=True)
class StepRecord:
    """One item of the agent loop's history: an action taken for ``subtask_index`` and
    whether it worked (``note`` says why not, or what the person answered)."""

    action: Action
    subtask_index: int
    ok: bool
    note: str = ""


@runtime_checkable
class Manager(Protocol):
    # True: look at the screen again after each finished subtask (``replan(..., failed=None)``),
    # an empty plan then meaning the task is finished.
    replans_after_success: bool

    def plan(self, task: str, observation: Observation | None) -> list[Subtask]:
        """The subtasks for a task; raises PlanningError when the task cannot be planned."""
        ...

    def replan(self, task: str, observation: Observation | None, done: list[Subtask],
               failed: Subtask | None, reason: str) -> list[Subtask]:
        """The subtasks still to do after ``done``; ``failed`` is the one that just failed
        (None after a success). An empty list means: give up (the run fails with ``reason``)."""
        ...


@runtime_checkable
class Worker(Protocol):
    def next_action(self, subtask: Subtask, observation: Observation | None,
                    history: Sequence[StepRecord]) -> Action:
        """The next action for ``subtask``: ``Done()`` when it is finished, ``Fail(reason)``
        when it cannot be done. ``history`` holds the whole run's steps, oldest first."""
        ...


@dataclass
class SkillMenu:
    """The skills a model planner may call with ``run_skill`` (one line each), shared by its
    manager and worker; the run fills it with the few best for its task."""

    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class Planner:
    """A manager and a worker that belong together, under a name ("offline", a model's).
    ``skills``: the menu of skills it can call, for a planner that can (None: it cannot)."""

    name: str
    manager: Manager
    worker: Worker
    skills: SkillMenu | None = None
