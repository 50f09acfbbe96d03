"""'select 37 with the slider' is set with the slider's keys, reading the value after each:
Page Up/Down while far, arrows near, arrows only once a page went past the number."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

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
    worker = OfflineWorker(slider_reader=lambda what, obs: slider)
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


def _set_all(task: str, sliders: dict[str, FakeSlider], limit: int = 80) -> list[Done | Fail]:
    """Runs every slider subtask of ``task``'s plan, the reader answering by description."""
    plan = OfflineManager().plan(task)
    worker = OfflineWorker(slider_reader=lambda what, obs: sliders.get(what))
    ends: list[Done | Fail] = []
    for subtask in plan:
        if not isinstance(subtask.actions[0], Type):
            continue
        history: list[StepRecord] = []
        for _ in range(limit):
            action = worker.next_action(subtask, object(), history)
            if isinstance(action, Done | Fail):
                ends.append(action)
                break
            if isinstance(action, Hotkey):
                sliders[subtask.actions[0].into].press(action.keys[0])
            history.append(StepRecord(action, 0, True))
    return ends


@pytest.mark.parametrize("task", ["Set the sliders to the combination [-90, -12, -55] and submit.",
                                  "Set the sliders to -90, -12 and -55, then press Submit",
                                  "set the three sliders to -90, -12, -55 respectively"])
def test_several_sliders_are_set_one_by_one_in_reading_order(task):
    sliders = {f"the {n} slider": FakeSlider(value=-50) for n in ("1st", "2nd", "3rd")}
    ends = _set_all(task, sliders)
    assert all(isinstance(e, Done) for e in ends) and len(ends) == 3, ends
    assert [s.value for s in sliders.values()] == [-90, -12, -55]


def test_sliders_named_by_their_labels_are_set_each_to_its_number():
    sliders = {"the Volume slider": FakeSlider(value=-50), "the Bass slider": FakeSlider(value=-50)}
    ends = _set_all("Set the Volume slider to -20 and the Bass slider to -70.", sliders)
    assert all(isinstance(e, Done) for e in ends) and len(ends) == 2, ends
    assert sliders["the Volume slider"].value == -20 and sliders["the Bass slider"].value == -70


def test_a_slider_the_screen_does_not_have_fails_naming_it():
    sliders = {"the 1st slider": FakeSlider(value=-50), "the 2nd slider": FakeSlider(value=-50)}
    ends = _set_all("Set the sliders to -10, -20 and -30", sliders)
    assert [type(e) for e in ends] == [Done, Done, Fail]
    assert "the 3rd slider" in ends[-1].reason


@pytest.mark.parametrize(("task", "words"), [
    ("Set the sliders to loud", ("numbers", "one for each")),
    ("Set both sliders to 1, 2 and 3", ("both sliders", "3 values")),
])
def test_sliders_set_to_what_cannot_be_matched_are_refused(task, words):
    from gui_agent.errors import PlanningError

    with pytest.raises(PlanningError) as err:
        OfflineManager().plan(task)
    assert all(w in str(err.value) for w in words), str(err.value)
