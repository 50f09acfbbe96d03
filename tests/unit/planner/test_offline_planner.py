"""OfflineManager + OfflineWorker: plans, hands out actions, retries once, skips toggles in place."""

from __future__ import annotations

from collections import deque

import pytest
from PIL import Image

from gui_agent.actions import Action, Click, Done, Fail, Hotkey, Type, format_action
from gui_agent.errors import PlanningError
from gui_agent.planner import (
    Manager,
    OfflineManager,
    OfflineWorker,
    Planner,
    StepRecord,
    Subtask,
    Worker,
    offline_planner,
)
from gui_agent.screen.observation import Observation


@pytest.fixture
def obs() -> Observation:
    return Observation.from_image(Image.new("RGB", (40, 30), "white"))


def run_loop(planner: Planner, task: str, obs: Observation, fails: dict[str, int] | None = None,
             max_iterations: int = 100) -> tuple[str, list[str]]:
    """A small copy of the agent loop's contract: queue of subtasks, history, replan on Fail.

    ``fails`` maps an action's text to how many times performing it fails.
    """
    fails = dict(fails or {})
    performed: list[str] = []
    queue = deque(planner.manager.plan(task, obs))
    done: list[Subtask] = []
    history: list[StepRecord] = []
    for _ in range(max_iterations):
        if not queue:
            return "done", performed
        sub = queue[0]
        action = planner.worker.next_action(sub, obs, history)
        if isinstance(action, Done):
            done.append(queue.popleft())
            continue
        if isinstance(action, Fail):
            replanned = planner.manager.replan(task, obs, done, sub, action.reason)
            if not replanned:
                return f"failed: {action.reason}", performed
            queue = deque(replanned)
            continue
        text = format_action(action)
        performed.append(text)
        ok = fails.get(text, 0) <= 0
        fails[text] = fails.get(text, 0) - 1
        history.append(StepRecord(action, len(done), ok, "" if ok else "the target was not found"))
    raise AssertionError("the loop did not end")


def test_offline_planner_implements_the_interface() -> None:
    planner = offline_planner()
    assert planner.name == "offline"
    assert isinstance(planner.manager, Manager)
    assert isinstance(planner.worker, Worker)


def test_plan_is_one_subtask_per_clause(obs: Observation) -> None:
    subs = OfflineManager().plan('type "Ann" into Name, then press Tab; wait for "Saved" to appear', obs)
    assert [s.instruction for s in subs] == [
        'type "Ann" into Name', "press Tab", 'wait for "Saved" to appear']
    assert subs[0].actions == (Type("Ann", into="the Name field"),)
    assert subs[1].actions == (Hotkey(("tab",)),)
    assert subs[2].expect == "Saved"


def test_plan_reports_what_it_cannot_understand() -> None:
    with pytest.raises(PlanningError, match="make it blue"):
        OfflineManager().plan('click "OK" and then make it blue', None)


def test_worker_hands_out_actions_in_order_then_done(obs: Observation) -> None:
    worker = OfflineWorker()
    sub = Subtask("select Blue from Color", (Click("the Color dropdown"), Click("Blue")))
    history: list[StepRecord] = []
    first = worker.next_action(sub, obs, history)
    assert first == Click("the Color dropdown")
    history.append(StepRecord(first, 0, True))
    second = worker.next_action(sub, obs, history)
    assert second == Click("Blue")
    history.append(StepRecord(second, 0, True))
    assert worker.next_action(sub, obs, history) == Done()


def test_worker_fails_with_the_reason_of_a_failed_step(obs: Observation) -> None:
    worker = OfflineWorker()
    sub = Subtask('click "OK"', (Click("OK"),))
    history = [StepRecord(worker.next_action(sub, obs, []), 0, False, "could not find 'OK'")]
    action = worker.next_action(sub, obs, history)
    assert isinstance(action, Fail)
    assert "click('OK')" in action.reason and "could not find 'OK'" in action.reason


def test_equal_subtasks_in_a_row_each_run(obs: Observation) -> None:
    status, performed = run_loop(offline_planner(), "press Tab, then press Tab, then press Enter", obs)
    assert status == "done"
    assert performed == ["hotkey('tab')", "hotkey('tab')", "hotkey('enter')"]


def test_a_whole_task_runs_in_order(obs: Observation) -> None:
    task = ('log in as ann with password secret; select "Blue" from Color and check "Remember me", '
            "then done")
    status, performed = run_loop(offline_planner(), task, obs)
    assert status == "done"
    assert performed == [
        "type('ann', into='the Username field', clear=True)",
        "type('secret', into='the Password field', clear=True)",
        "click('the Log in button')",
        "click('the Color dropdown')",
        "click('\"Blue\"')",
        "click('the \"Remember me\" checkbox')",
    ]


def test_a_failed_subtask_is_retried_once(obs: Observation) -> None:
    status, performed = run_loop(offline_planner(), 'click "A", then click "B", then click "C"', obs,
                                 fails={"click('\"B\"')": 1})
    assert status == "done"
    assert performed == ["click('\"A\"')", "click('\"B\"')", "click('\"B\"')", "click('\"C\"')"]


def test_a_subtask_that_fails_twice_gives_up_with_the_reason(obs: Observation) -> None:
    status, performed = run_loop(offline_planner(), 'click "A", then click "B", then click "C"', obs,
                                 fails={"click('\"B\"')": 5})
    assert status == "failed: click('\"B\"') failed: the target was not found"
    assert performed == ["click('\"A\"')", "click('\"B\"')", "click('\"B\"')"]


def test_retry_restarts_a_multi_action_subtask_from_its_first_action(obs: Observation) -> None:
    status, performed = run_loop(offline_planner(), 'select "Blue" from Color', obs,
                                 fails={"click('\"Blue\"')": 1})
    assert status == "done"
    assert performed == ["click('the Color dropdown')", "click('\"Blue\"')",
                         "click('the Color dropdown')", "click('\"Blue\"')"]


def test_replan_after_success_returns_the_rest(obs: Observation) -> None:
    manager = OfflineManager()
    subs = manager.plan('click "A"; click "B"; click "C"', obs)
    assert manager.replan('click "A"; click "B"; click "C"', obs, subs[:1], None, "") == subs[1:]


def test_replan_of_an_unplanned_task_plans_it_first(obs: Observation) -> None:
    manager = OfflineManager()
    subs = manager.replan('click "A"; click "B"', obs, [], None, "")
    assert [s.actions for s in subs] == [(Click('"A"'),), (Click('"B"'),)]


class Reader:
    def __init__(self, state: bool | None) -> None:
        self.state = state
        self.calls: list[tuple[str, Observation]] = []

    def __call__(self, description: str, observation: Observation) -> bool | None:
        self.calls.append((description, observation))
        return self.state


@pytest.mark.parametrize(("task", "state", "expected"), [
    ('check "Remember me"', True, []),
    ('check "Remember me"', False, ["click('the \"Remember me\" checkbox')"]),
    ('check "Remember me"', None, ["click('the \"Remember me\" checkbox')"]),
    ('uncheck "Remember me"', False, []),
    ('untick "Remember me"', True, ["click('the \"Remember me\" checkbox')"]),
    ('click "Remember me"', True, ["click('\"Remember me\"')"]),
])
def test_a_checkbox_already_in_the_wanted_state_is_left_alone(
        obs: Observation, task: str, state: bool | None, expected: list[str]) -> None:
    reader = Reader(state)
    status, performed = run_loop(offline_planner(reader), task, obs)
    assert status == "done"
    assert performed == expected
    if task.startswith(("check", "uncheck", "untick")):
        assert reader.calls == [('the "Remember me" checkbox', obs)]
    else:
        assert reader.calls == []


def test_state_reader_can_be_wired_later(obs: Observation) -> None:
    planner = offline_planner()
    planner.worker.state_reader = Reader(True)  # type: ignore[attr-defined]
    assert run_loop(planner, "tick Newsletter", obs) == ("done", [])


def test_without_an_observation_the_click_is_made() -> None:
    worker = OfflineWorker(Reader(True))
    sub = Subtask('check "X"', (Click('the "X" checkbox'),))
    assert worker.next_action(sub, None, []) == Click('the "X" checkbox')


def test_done_is_a_no_op(obs: Observation) -> None:
    assert run_loop(offline_planner(), "done", obs) == ("done", [])


def test_actions_of_ask_user_answers_do_not_count(obs: Observation) -> None:
    from gui_agent.actions import AskUser

    worker = OfflineWorker()
    sub = Subtask('click "A"', (Click("A"),))
    history: list[StepRecord] = []
    assert worker.next_action(sub, obs, history) == Click("A")
    history.append(StepRecord(AskUser("sure?"), 0, True, "user answered: yes"))
    action: Action = worker.next_action(sub, obs, history)
    assert action == Click("A")


def test_a_subtask_without_actions_is_done_at_once(obs: Observation) -> None:
    task = 'Navigate through the file tree. Find and click on the folder or file named "Myron".'
    subs = OfflineManager().plan(task, obs)
    assert [(s.instruction, s.actions) for s in subs] == [
        ("Navigate through the file tree", ()),
        ('click on the folder or file named "Myron"', (Click('"Myron"'),)),
    ]
    assert run_loop(offline_planner(), task, obs) == ("done", ["click('\"Myron\"')"])


def test_selecting_nothing_only_submits(obs: Observation) -> None:
    assert run_loop(offline_planner(), "Select nothing and click Submit.", obs) == (
        "done", ["click('Submit')"])


def test_a_value_typed_into_both_fields_runs_field_by_field(obs: Observation) -> None:
    status, performed = run_loop(offline_planner(), 'Enter the password "pw" into both text fields', obs,
                                 fails={"type('pw', into='the 2nd text field')": 1})
    assert status == "done"
    assert performed == ["type('pw', into='the 1st text field')", "type('pw', into='the 2nd text field')",
                         "type('pw', into='the 1st text field')", "type('pw', into='the 2nd text field')"]


def test_a_retry_does_not_toggle_again_the_boxes_its_failed_attempt_ticked(obs: Observation) -> None:
    # 'Select A, B, C and click Submit' failed at C: the retry clicked A and B again, which
    # cleared them; a button clicked before is clicked again (a retry redoes what it cannot see)
    boxes = {'"Anna"', '"Bo"', '"Cy"'}
    planner = offline_planner(state_reader=lambda target, _obs: True if target in boxes else None)
    status, performed = run_loop(planner, 'select "Anna", "Bo" and "Cy"', obs, fails={"click('\"Cy\"')": 1})
    assert status == "done"
    assert performed == ["click('\"Anna\"')", "click('\"Bo\"')", "click('\"Cy\"')", "click('\"Cy\"')"]
    plain = offline_planner(state_reader=lambda target, _obs: None)     # no check boxes: all again
    status, performed = run_loop(plain, 'select "Anna", "Bo" and "Cy"', obs, fails={"click('\"Cy\"')": 1})
    assert performed == ["click('\"Anna\"')", "click('\"Bo\"')", "click('\"Cy\"')"] * 2
