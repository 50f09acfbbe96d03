"""Setting a number: typed first, read back, nudged with the arrows when the field refused keys."""

from __future__ import annotations

import pytest
from PIL import Image

from gui_agent.actions import Click, Done, Fail, Type
from gui_agent.planner.base import StepRecord
from gui_agent.planner.offline import OfflineManager, OfflineWorker
from gui_agent.planner.spinner import MAX_NUDGES, read_number
from gui_agent.screen.observation import Observation

OBS = Observation.from_image(Image.new("RGB", (100, 100), "white"))


@pytest.mark.parametrize(("text", "number"), [("4", 4), ("O", 0), ("-3", -3), ("1O", 10),
                                               ("2,5", 2.5), ("abc", None), (None, None)])
def test_read_number_tolerates_ocr_lookalikes(text, number):
    assert read_number(text) == number


def _drive(task: str, shown: list[str]) -> list[str]:
    """Run the worker, the field showing ``shown[i]`` at the i-th read; returns the actions."""
    reads = iter(shown)
    worker = OfflineWorker(value_reader=lambda desc, obs: next(reads))
    sub = OfflineManager().plan(task)[0]
    history: list[StepRecord] = []
    out = []
    for _ in range(MAX_NUDGES + 5):
        action = worker.next_action(sub, OBS, history)
        out.append(str(action))
        if isinstance(action, Done | Fail):
            return out
        history.append(StepRecord(action, 0, True))
    raise AssertionError("the worker never finished")


def test_a_field_that_took_the_typed_number_is_done():
    assert _drive("select 4 with the spinner", ["4"]) == [
        "type('4', into='the spinner', clear=True)", "done()"]


def test_a_spinner_that_refused_the_keys_is_nudged_up_one_click_at_a_time():
    actions = _drive("select 3 with the spinner", ["0", "1", "2", "3"])
    assert actions[0] == "type('3', into='the spinner', clear=True)"
    assert actions[1:4] == ["click('the up arrow')"] * 3
    assert actions[-1] == "done()"


def test_a_negative_target_is_reached_with_the_down_arrow():
    actions = _drive("select -2 with the spinner", ["0", "-1", "-2"])
    assert actions[1:3] == ["click('the down arrow')"] * 2 and actions[-1] == "done()"


def test_a_value_that_never_moves_fails_with_the_reason():
    actions = _drive("select 4 with the spinner", ["0"] * (MAX_NUDGES + 2))
    assert actions[-1].startswith("fail(") and "shows 0, not 4" in actions[-1]


def test_an_unreadable_field_is_left_as_typed():
    assert _drive("select 4 with the spinner", [None]) == [
        "type('4', into='the spinner', clear=True)", "done()"]


def test_text_entries_are_not_read_back():
    worker = OfflineWorker(value_reader=lambda d, o: pytest.fail("read a text field"))
    sub = OfflineManager().plan('type "Ann" into the Name field')[0]
    first = worker.next_action(sub, OBS, [])
    assert first == Type("Ann", into="the Name field")
    assert worker.next_action(sub, OBS, [StepRecord(first, 0, True)]) == Done()
    assert Click("the up arrow") != first


def test_a_spinner_whose_typing_was_seen_to_fail_is_nudged_too():
    """With the accessibility tree the refused keys are seen at once (its value stayed "0"):
    the typing step fails, and the arrows set the number as when the pixels took it for done."""
    reads = iter(["0", "1", "2", "2"])
    worker = OfflineWorker(value_reader=lambda desc, obs: next(reads))
    sub = OfflineManager().plan("select 2 with the spinner")[0]
    history: list[StepRecord] = []
    out = []
    for _ in range(8):
        action = worker.next_action(sub, OBS, history)
        out.append(str(action))
        if isinstance(action, Done | Fail):
            break
        refused = isinstance(action, Type)
        history.append(StepRecord(action, 0, not refused,
                                  "no effect after 2 tries: the field's accessible value is '0'" if refused else ""))
    assert out == ["type('2', into='the spinner', clear=True)", "click('the up arrow')",
                   "click('the up arrow')", "done()"]


def test_a_text_field_whose_typing_failed_is_not_nudged():
    worker = OfflineWorker(value_reader=lambda desc, obs: "")
    sub = OfflineManager().plan('type "Ann" into the Name field')[0]
    assert worker.next_action(sub, OBS, []) == sub.actions[0]
    failed = StepRecord(sub.actions[0], 0, False, "no effect after 2 tries: the field stayed empty")
    assert isinstance(worker.next_action(sub, OBS, [failed]), Fail)
