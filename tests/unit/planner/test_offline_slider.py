"""'select 37 with the slider' is set with the slider's keys, reading the value after each:
Page Up/Down while far, arrows near, arrows only once a page went past the number."""

from __future__ import annotations

from dataclasses import dataclass

from gui_agent.actions import Click, Done, Fail, Hotkey, Type, Wait
from gui_agent.geometry import Box
from gui_agent.planner.base import StepRecord
from gui_agent.planner.offline import OfflineManager, OfflineWorker


@dataclass
class FakeSlider:
    """A slider that moves with keys as web sliders do (a page is a fifth of the range)."""

    value: float
    low: float = -100
    high: float = 0
    horizontal: bool = False
    thumb: Box = Box(10, 10, 20, 20)

    def press(self, key: str) -> None:
        page = (self.high - self.low) / 5
        step = {"pageup": page, "pagedown": -page, "up": 1, "right": 1, "down": -1, "left": -1}[key]
        self.value = min(self.high, max(self.low, self.value + step))


def _run(task: str, slider: FakeSlider | None, limit: int = 40) -> tuple[list, object]:
    plan = OfflineManager().plan(task)
    first = plan[0]
    assert first.actions == (Type(task.split()[1], into="the slider", clear=True),)
    worker = OfflineWorker(slider_reader=lambda obs: slider)
    history: list[StepRecord] = []
    taken = []
    for _ in range(limit):
        action = worker.next_action(first, object(), history)
        if isinstance(action, Done | Fail):
            return taken, action
        taken.append(action)
        if isinstance(action, Hotkey):
            slider.press(action.keys[0])
        history.append(StepRecord(action, 0, True))
    raise AssertionError("the worker did not finish")


def test_the_slider_is_set_with_pages_then_arrows():
    slider = FakeSlider(value=-95)
    taken, end = _run("Select -37 with the slider and hit Submit.", slider)
    assert isinstance(end, Done) and slider.value == -37
    assert isinstance(taken[0], Click) and taken[0].target == slider.thumb   # focus first
    keys = [a.keys[0] for a in taken[1:]]
    assert keys.count("pageup") >= 2 and len(keys) <= 12, keys


def test_a_slider_already_there_needs_only_the_focus_click():
    slider = FakeSlider(value=-37)
    taken, end = _run("Select -37 with the slider", slider)
    assert isinstance(end, Done) and len(taken) == 1


def test_no_slider_on_the_screen_fails_after_looking_again():
    taken, end = _run("Select -37 with the slider", None)
    assert isinstance(end, Fail) and "slider" in end.reason
    assert all(isinstance(a, Wait) for a in taken)


def test_a_number_out_of_reach_fails_saying_what_it_shows():
    slider = FakeSlider(value=-50)
    taken, end = _run("Select 20 with the slider", slider)
    assert isinstance(end, Fail) and "shows 0" in end.reason
