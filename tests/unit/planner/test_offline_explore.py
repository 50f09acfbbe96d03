"""A quoted name that is not on the screen: collapsed tree nodes are opened one by one."""

from __future__ import annotations

from PIL import Image

from gui_agent.actions import Click, Done, Fail
from gui_agent.planner.base import StepRecord
from gui_agent.planner.offline import MAX_EXPANSIONS, OfflineManager, OfflineWorker
from gui_agent.planner.reveal import EXPAND_CLICK, explorable
from gui_agent.screen.observation import Observation

OBS = Observation.from_image(Image.new("RGB", (100, 100), "white"))
NOT_FOUND = "could not find '\"Kenda\"' on the screen: ocr best was nothing"


def _drive(task: str, outcomes: list[tuple[bool, str]]) -> list[str]:
    """Run the worker; the i-th action it asks for gets ``outcomes[i]`` (ok, note)."""
    worker = OfflineWorker()
    sub = next(s for s in OfflineManager().plan(task) if s.actions)
    history: list[StepRecord] = []
    out: list[str] = []
    results = iter(outcomes)
    for _ in range(3 * MAX_EXPANSIONS + 5):
        action = worker.next_action(sub, OBS, history)
        out.append(action.reason if isinstance(action, Fail) else str(action))
        if isinstance(action, Done | Fail):
            return out
        ok, note = next(results)
        history.append(StepRecord(action, 0, ok, note))
    raise AssertionError("the worker never finished")


TASK = 'Navigate through the file tree. Find and click on the folder or file named "Kenda".'


def test_a_visible_name_is_clicked_without_exploring():
    out = _drive(TASK, [(True, "")])
    assert out == ["click('\"Kenda\"')", "done()"]


def test_a_hidden_name_is_found_after_expanding_nodes():
    out = _drive(TASK, [(False, NOT_FOUND), (True, ""), (False, NOT_FOUND), (True, ""), (True, "")])
    expand = str(EXPAND_CLICK)
    assert out == ["click('\"Kenda\"')", expand, "click('\"Kenda\"')", expand,
                   "click('\"Kenda\"')", "done()"]


def test_no_collapsed_node_left_fails_with_a_clear_reason():
    out = _drive(TASK, [(False, NOT_FOUND), (True, ""), (False, NOT_FOUND),
                        (False, "could not find 'the 1st expand icon' on the screen")])
    assert "even after expanding every collapsed node (1 expanded)" in out[-1]


def test_no_collapsed_node_at_all_says_so():
    out = _drive(TASK, [(False, NOT_FOUND), (False, "could not find 'the 1st expand icon' on the screen")])
    assert out[-1] == f"{NOT_FOUND} (and no collapsed node was there to expand)"


def test_exploration_is_bounded():
    outcomes = [(False, NOT_FOUND), (True, "")] * (MAX_EXPANSIONS + 2)
    out = _drive(TASK, outcomes)
    assert out.count(str(EXPAND_CLICK)) == MAX_EXPANSIONS
    assert f"after expanding {MAX_EXPANSIONS} collapsed nodes" in out[-1]


def test_other_failures_keep_the_old_semantics():
    out = _drive(TASK, [(False, "the same action on an unchanged screen keeps repeating")])
    assert out[-1] == "click('\"Kenda\"') failed: the same action on an unchanged screen keeps repeating"


def test_only_a_search_the_task_asks_for_explores():
    plan = OfflineManager().plan
    assert explorable(next(s for s in plan(TASK) if s.actions))       # it names a tree
    # a click on a name, with no search asked for, looks at the screen as it is: a miss fails
    # at once instead of clicking around (a file chooser's nodes, while looking for a button)
    assert not explorable(plan('click "OK"')[0])
    assert not explorable(plan("click the submit button")[0])
    assert not explorable(plan('type "abc" into the name field')[0])
    out = _drive('click "Kenda"', [(False, NOT_FOUND)])
    assert out == ["click('\"Kenda\"')", f"click('\"Kenda\"') failed: {NOT_FOUND}"]
    out = _drive("click the submit button", [(False, "could not find 'the submit button' on the screen")])
    assert out[-1].startswith("click('the submit button') failed: could not find")
    assert isinstance(EXPAND_CLICK, Click)


def _explore_with_dialogs(task: str, dialog: str | None) -> list[str]:
    """Drive a tree search whose collapsed nodes lie in ``dialog`` (None: in no dialog)."""
    manager = OfflineManager()
    sub = next(s for s in manager.plan(task) if s.actions)
    asked: list[tuple[str, str]] = []

    def dialog_of(description: str, obs: Observation) -> str | None:
        asked.append(("dialog_of", description))
        return dialog

    worker = OfflineWorker(dialog_reader=dialog_of, task=lambda: manager.task or "")
    history: list[StepRecord] = []
    out: list[str] = []
    results = iter([(False, NOT_FOUND), (True, ""), (True, "")])
    while True:
        action = worker.next_action(sub, OBS, history)
        out.append(action.reason if isinstance(action, Fail) else str(action))
        if isinstance(action, Done | Fail):
            assert all(d == str(EXPAND_CLICK.target) for _, d in asked)
            return out
        ok, note = next(results)
        history.append(StepRecord(action, 0, ok, note))


def test_exploring_never_clicks_inside_a_dialog_the_task_does_not_name():
    out = _explore_with_dialogs(TASK, "Open File")
    assert len(out) == 2 and "inside the 'Open File' dialog, which the task does not name" in out[-1]
    assert "could not find" in out[-1]
    untitled = _explore_with_dialogs(TASK, "")
    assert "inside an untitled dialog" in untitled[-1]


def test_exploring_goes_on_in_a_dialog_the_task_names_or_outside_dialogs():
    named = _explore_with_dialogs('Navigate through the Open File tree. Find and click on "Kenda".',
                                  "Open File")
    assert named[1] == str(EXPAND_CLICK)
    outside = _explore_with_dialogs(TASK, None)
    assert outside[1] == str(EXPAND_CLICK)


TAB_TASK = 'Switch between the tabs to find and click on the link "nibh".'


def test_a_search_clause_tells_what_to_open_one_by_one():
    # MiniWoB click-tab-2 / click-collapsible-2: 'switch between the tabs' and 'expand the
    # sections below' are how to look for the link, not steps: the link's click carries them.
    plans = {task: [(s.instruction, s.reveal) for s in OfflineManager().plan(task)] for task in (
        TAB_TASK, 'Expand the sections below, to find and click on the link "massa".',
        'Expand the section below and click submit.')}
    assert plans[TAB_TASK] == [('click on the link "nibh"', "tab")]
    assert plans['Expand the sections below, to find and click on the link "massa".'] == [
        ('click on the link "massa"', "section")]
    # a singular is a step of its own, and so is a task with no quoted name to look for
    assert plans['Expand the section below and click submit.'] == [
        ("Expand the section below", None), ("click submit", None)]


def test_the_tabs_are_opened_in_turn_until_the_name_shows():
    link_missing = "could not find 'the link \"nibh\"' on the screen: ocr best was nothing"
    worker, sub = OfflineWorker(), OfflineManager().plan(TAB_TASK)[0]
    history: list[StepRecord] = []
    asked = []
    results = iter([(False, link_missing), (True, ""), (False, link_missing), (True, ""), (True, "")])
    while True:
        action = worker.next_action(sub, OBS, history)
        asked.append(str(action))
        if isinstance(action, Done | Fail):
            break
        ok, note = next(results)
        history.append(StepRecord(action, 0, ok, note))
    assert asked == ["click('the link \"nibh\"')", "click('the 1st tab')", "click('the link \"nibh\"')",
                     "click('the 2nd tab')", "click('the link \"nibh\"')", "done()"]


def test_no_more_tabs_fails_saying_what_was_opened():
    link_missing = "could not find 'the link \"nibh\"' on the screen: ocr best was nothing"
    worker, sub = OfflineWorker(), OfflineManager().plan(TAB_TASK)[0]
    history: list[StepRecord] = []
    outcomes = iter([(False, link_missing), (True, ""), (False, link_missing),
                     (False, "could not find 'the 2nd tab' on the screen")])
    while True:
        action = worker.next_action(sub, OBS, history)
        if isinstance(action, Done | Fail):
            break
        ok, note = next(outcomes)
        history.append(StepRecord(action, 0, ok, note))
    assert isinstance(action, Fail)
    assert "even after opening each of the tabs (1 opened)" in action.reason
