"""Fakes for the app's tests (offscreen): a still screen, a scripted planner, a fake ladder.

The agent runs on a still screen with a scripted planner and a fake grounding ladder, so every
run is fast and exact; the app code under test is the real one. Qt is imported where it is
used, so this module imports without PySide6 (the tests require it first).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from gui_agent import Engine
from gui_agent.actions import Wait
from gui_agent.desktop import StillDesktop
from gui_agent.errors import TargetNotFound
from gui_agent.geometry import Box
from gui_agent.grounding.candidate import Candidate
from gui_agent.grounding.point_grounder import PointGrounder
from gui_agent.planner.base import Planner, Subtask
from gui_agent.screen.observation import MonitorGeometry, Observation

PLACES = {"OK": Box(10, 10, 40, 20), "Name": Box(100, 100, 80, 20), "Delete all": Box(0, 200, 50, 20)}


class FakeLadder:
    last_alternatives: list = []   # the Ladder protocol: runners-up of the latest

    def __init__(self, places: dict[str, Box]) -> None:
        self.places = places

    def resolve(self, target, observation: Observation) -> Candidate:
        if not isinstance(target, str):   # a point or a box: as the real ladder does
            return PointGrounder().resolve(target, observation)
        if target not in self.places:
            raise TargetNotFound(target)
        return Candidate(self.places[target], 0.99, "ocr", why=f"{target} seen")


@dataclass
class OneSubtask:
    actions: tuple

    def plan(self, task, observation):
        return [Subtask(task, self.actions)]

    def replan(self, task, observation, done, failed, reason):
        return []


class ScriptedWorker:
    """The subtask's actions in order, then Done; with ``forever`` a wait(0.2) for ever."""

    state_reader = "absent"

    def __init__(self, forever: bool = False) -> None:
        self.forever = forever

    def next_action(self, subtask, observation, history):
        from gui_agent.actions import Done, Fail

        if self.forever:
            return Wait(0.2)
        if history and not history[-1].ok:
            return Fail(history[-1].note)
        n = len(history)
        return subtask.actions[n] if n < len(subtask.actions) else Done()


@dataclass
class ScriptedEngine:
    """An agent factory: a still screen the size of the (offscreen) primary screen."""

    actions: tuple = ()
    forever: bool = False
    agents: list = field(default_factory=list)
    requests: list = field(default_factory=list)
    observations: list = field(default_factory=list)

    def __call__(self, request, hooks, control, wrap, memory=None):
        from PySide6.QtGui import QGuiApplication

        size = QGuiApplication.primaryScreen().geometry().size()
        w, h = size.width(), size.height()
        image = Image.new("RGB", (w, h), "white")
        ImageDraw.Draw(image).rectangle([10, 10, 50, 30], outline="black")
        desktop = StillDesktop(Observation(image, MonitorGeometry(0, 0, w, h, 1.0, 1)))
        planner = Planner("scripted", OneSubtask(self.actions), ScriptedWorker(self.forever))
        agent = Engine(wrap(desktop), planner, settings=request.settings, ladder=FakeLadder(dict(PLACES)),
                       parser=None, live=False, hooks=hooks, control=control, memory=memory)
        self.agents.append(agent)
        self.requests.append(request)
        return agent


class FakeHotkey:
    made: list[FakeHotkey] = []

    def __init__(self, combination, on_stop) -> None:
        self.combination, self.on_stop, self.active = combination, on_stop, False
        FakeHotkey.made.append(self)

    def start(self) -> bool:
        self.active = True
        return True

    def stop(self) -> None:
        self.active = False


def run_task(qtbot, window, task, timeout=5000):
    """Type ``task`` into the window's task box, press Run, and return the run's result."""
    from PySide6.QtCore import Qt

    window.task_box.setText(task)
    with qtbot.waitSignal(window.worker.finished, timeout=timeout):
        qtbot.mouseClick(window.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.last_result is not None, timeout=timeout)
    return window.last_result
