"""Runs ``Agent.run(task)`` off the UI thread and turns its hooks into Qt signals.

The worker thread is a plain ``threading.Thread``; signals emitted from it reach slots in
the UI thread through queued connections (the worker object lives in the UI thread).
``confirm`` and ``ask_user`` block the worker until the UI answers a :class:`Prompt`, or
until the run is stopped (then the answer is "no" / none). Stop and Pause are the agent's
own ``stop_event`` and ``pause_event``, owned here so that they work before the agent exists.
A confirmation carries the screen the action was grounded on (the latest observation) with the
chosen box and point; "Always for this task" approvals live in ``approvals`` for one run.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from gui_agent import Box

from .confirm_dialog import ALWAYS, ONCE, ConfirmRequest, StandingApprovals, risk_of, risk_word

if TYPE_CHECKING:
    from gui_agent import AgentHooks, Desktop, Engine, RunControl, Settings

log = logging.getLogger(__name__)

TARGET_ORDER = ("target", "into", "source", "at", "destination")


@dataclass(frozen=True)
class RunRequest:
    """What the app asks the engine to do; ``keep_out`` are screen rectangles of the app's
    own windows that the agent must neither see nor touch."""

    task: str
    settings: Settings
    dry_run: bool = False
    keep_out: tuple[Box, ...] = ()
    start_delay: float = 0.0        # seconds to wait first (the app's window is going away)
    skill: str | None = None        # replay this skill from the library instead of planning the task
    params: tuple[tuple[str, Any], ...] = ()   # the skill's parameter values


# Builds the run's engine from the request, the worker's hooks, its Stop/Pause control and the
# keep-out wrapper for the desktop.
AgentFactory = Callable[[RunRequest, "AgentHooks", "RunControl", Callable[["Desktop"], "Desktop"]], "Engine"]
HotkeyFactory = Callable[[str, Callable[[], None]], Any]


@dataclass(frozen=True)
class TargetInfo:
    """The next target, as AgentHooks.on_target reported it (image pixels)."""

    image: Any                                  # PIL image the agent grounded on
    action: str
    box: tuple[int, int, int, int] | None       # the chosen element (l, t, r, b)
    point: tuple[int, int] | None
    others: tuple[tuple[int, int, int, int], ...] = ()
    source: str | None = None


@dataclass(frozen=True)
class StepEvent:
    """A finished step and the screen it started from."""

    step: Any                                   # gui_agent.trajectory.StepLog
    image: Any | None                           # PIL image before the step


@dataclass
class Prompt:
    """A question from the worker thread that the UI answers with :meth:`answer`."""

    kind: str                                   # "confirm" | "ask"
    text: str                                   # the question, or the action to allow
    reason: str = ""
    target: str = ""
    details: Any = None                         # confirm: a ConfirmRequest (screenshot, box, word)
    reply: Any = None
    _answered: threading.Event = field(default_factory=threading.Event, repr=False)

    def answer(self, value: Any) -> None:
        self.reply = value
        self._answered.set()

    @property
    def answered(self) -> bool:
        return self._answered.is_set()


def error_result(task: str, reason: str) -> Any:
    from gui_agent import RunResult

    return RunResult(task, "error", reason)


class EngineWorker(QObject):
    planned = Signal(object)            # list[Subtask]
    observed = Signal()                 # a new frame: take it with take_frame()
    targeted = Signal(object)           # TargetInfo
    stepped = Signal(object)            # StepEvent
    prompted = Signal(object)           # Prompt (confirm / ask)
    finished = Signal(object)           # RunResult
    hotkey_stopped = Signal()

    def __init__(self, agent_factory: AgentFactory,
                 hotkey_factory: HotkeyFactory | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.agent_factory = agent_factory
        self.hotkey_factory = hotkey_factory or default_hotkey_factory
        self.stop_event = threading.Event()
        self.pause_event = threading.Event()
        self.agent: Engine | None = None
        self.hotkey: Any = None
        self._thread: threading.Thread | None = None
        self._frame_lock = threading.Lock()
        self._frame: Any = None
        self._frame_pending = False
        self._last_frame: Any = None
        self._last_observation: Any = None
        self._target_image: Any = None
        self._task = ""
        self.approvals = StandingApprovals()        # "Always for this task" answers of the current run

    # -- control from the UI thread ----------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, request: RunRequest) -> None:
        if self.running:
            raise RuntimeError("a run is already in progress")
        self.stop_event = threading.Event()
        self.pause_event = threading.Event()
        self.agent = None
        self._last_frame = self._target_image = self._last_observation = None
        self.approvals, self._task = StandingApprovals(), request.task
        self._thread = threading.Thread(target=self._run, args=(request,), daemon=True,
                                        name="gui-agent-run")
        self._thread.start()

    def stop(self) -> None:
        self.stop_event.set()

    def set_paused(self, paused: bool) -> None:
        if paused:
            self.pause_event.set()
        else:
            self.pause_event.clear()

    @property
    def paused(self) -> bool:
        return self.pause_event.is_set()

    def wait(self, timeout: float) -> bool:
        """Join the worker thread; True when it has ended."""
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def take_frame(self) -> Any:
        """The newest observation image (or None); the next one will signal again."""
        with self._frame_lock:
            frame, self._frame, self._frame_pending = self._frame, None, False
        return frame

    # -- the worker thread -------------------------------------------------------------------
    def _run(self, request: RunRequest) -> None:
        result: Any = None
        self.hotkey = None
        try:
            from gui_agent import AgentHooks, RunControl

            from .keep_out import KeepOutDesktop

            self.hotkey = self._start_hotkey(request)
            if request.start_delay > 0 and self.stop_event.wait(request.start_delay):
                from gui_agent import RunResult

                result = RunResult(request.task, "stopped", "stopped by the user")
                return
            hooks = AgentHooks(on_plan=self.planned.emit, on_target=self._on_target,
                               on_step=self._on_step, confirm=self._confirm, ask_user=self._ask_user)
            control = RunControl(self.stop_event, self.pause_event)
            agent = self.agent_factory(
                request, hooks, control,
                lambda desktop: KeepOutDesktop(desktop, request.keep_out, self._on_observe))
            self.agent = agent
            if request.skill:
                result = agent.run_skill(request.skill, dict(request.params), task=request.task)
            else:
                result = agent.run(request.task)
        except Exception as exc:  # a crash must end the run visibly, never hang the UI
            log.exception("the run crashed")
            result = error_result(request.task, f"{type(exc).__name__}: {exc}")
        finally:
            if self.agent is not None:
                self.agent.close()
            if self.hotkey is not None:
                try:
                    self.hotkey.stop()
                except Exception:
                    log.exception("stopping the stop hotkey failed")
            self.finished.emit(result)

    def _start_hotkey(self, request: RunRequest) -> Any:
        try:
            hotkey = self.hotkey_factory(request.settings.stop_hotkey, self._hotkey_fired)
            hotkey.start()
            return hotkey
        except Exception as exc:  # an invalid combination must not stop the run from starting
            log.warning("the stop hotkey is not available: %s", exc)
            return None

    def _hotkey_fired(self) -> None:
        self.stop_event.set()
        self.hotkey_stopped.emit()

    def _on_observe(self, observation: Any) -> None:
        self._last_frame, self._last_observation = observation.image, observation
        with self._frame_lock:
            self._frame = observation.image
            signal = not self._frame_pending
            self._frame_pending = True
        if signal:
            self.observed.emit()

    def _on_target(self, observation: Any, action: Any, candidates: dict[str, Any]) -> None:
        from gui_agent import format_action

        main = next((candidates[k] for k in TARGET_ORDER if k in candidates), None)
        others = tuple(c.box.corners for k, c in candidates.items() if c is not main)
        self._target_image = observation.image
        self.targeted.emit(TargetInfo(
            observation.image, format_action(action),
            main.box.corners if main is not None else None,
            (main.point.x, main.point.y) if main is not None else None,
            others, main.source if main is not None else None))

    def _on_step(self, step: Any) -> None:
        image = self._target_image if self._target_image is not None else self._last_frame
        self._target_image = None
        self.stepped.emit(StepEvent(step, image))

    def _wait_for(self, prompt: Prompt) -> Any:
        self.prompted.emit(prompt)
        while not prompt._answered.wait(0.05):
            if self.stop_event.is_set():
                return None
        return prompt.reply

    def _confirm(self, action: Any, candidate: Any, reason: str) -> bool:
        from gui_agent import format_action

        obs = self._last_observation
        title = getattr(obs, "window_title", None)
        if self.approvals.covers(action, candidate, self._task, title):
            log.info("allowed without asking (always allowed for this task): %s", format_action(action))
            return True
        where = str(candidate) if candidate is not None else ""
        box = point = None
        if candidate is not None:
            box, point = candidate.box.corners, (candidate.point.x, candidate.point.y)
        request = ConfirmRequest(format_action(action), where, reason, getattr(obs, "image", None), box, point,
                                 risk_word(risk_of(action, candidate, self._task, title)))
        reply = self._wait_for(Prompt("confirm", request.action, reason, where, details=request))
        if reply == ALWAYS:
            self.approvals.add(request.word)
        return reply is True or reply in (ONCE, ALWAYS)

    def _ask_user(self, question: str) -> str | None:
        reply = self._wait_for(Prompt("ask", question))
        return str(reply) if reply else None


def default_hotkey_factory(combination: str, on_stop: Callable[[], None]) -> Any:
    from gui_agent import StopHotkey

    return StopHotkey(combination, on_stop=on_stop)
