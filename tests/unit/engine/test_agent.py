"""The agent loop on a still screen with a scripted planner and a fake ladder: fast and exact."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest
from PIL import Image

from gui_agent import AgentHooks, Engine
from gui_agent.actions import Action, AskUser, Click, Done, Fail, Hotkey, Type
from gui_agent.config import Settings
from gui_agent.desktop import StillDesktop
from gui_agent.errors import AmbiguousTarget, TargetNotFound
from gui_agent.geometry import Box, Point
from gui_agent.grounding.candidate import Candidate
from gui_agent.grounding.point_grounder import PointGrounder
from gui_agent.planner.base import Planner, Subtask
from gui_agent.screen.observation import MonitorGeometry, Observation
from gui_agent.trajectory import load_run


class FakeLadder:
    last_alternatives: list = []   # the Ladder protocol: runners-up of the latest

    def __init__(self, places: dict[str, Box]) -> None:
        self.places = places

    def resolve(self, target, observation: Observation) -> Candidate:
        if not isinstance(target, str):   # a point or a box: as the real ladder does
            return PointGrounder().resolve(target, observation)
        if target == "twin":
            raise AmbiguousTarget(target, ["a at (0,0)", "b at (9,9)"])
        if target not in self.places:
            raise TargetNotFound(target)
        return Candidate(self.places[target], 0.99, "ocr", why=f"{target} seen")


@dataclass
class ScriptedManager:
    subtasks: list[Subtask]
    replans: list[str] = field(default_factory=list)

    def plan(self, task, observation):
        return list(self.subtasks)

    def replan(self, task, observation, done, failed, reason):
        self.replans.append(reason)
        return []


class ScriptedWorker:
    """Hands out the subtask's actions, then Done; a failed step ends the subtask with Fail."""

    state_reader = "absent"

    def next_action(self, subtask, observation, history):
        mine = [h for h in history if h.subtask_index == self._index(subtask)]
        if mine and not mine[-1].ok:
            return Fail(mine[-1].note)
        return subtask.actions[len(mine)] if len(mine) < len(subtask.actions) else Done()

    def _index(self, subtask):
        return 0


def make_agent(actions: list[Action], tmp_path, *, scale: float = 1.0, hooks=None, **settings):
    image = Image.new("RGB", (400, 300), "white")
    obs = Observation(image, MonitorGeometry(100, 50, round(400 / scale), round(300 / scale), scale, 2))
    desktop = StillDesktop(obs)
    manager = ScriptedManager([Subtask("do it", tuple(actions))])
    planner = Planner("scripted", manager, ScriptedWorker())
    ladder = FakeLadder({"OK": Box(10, 10, 40, 20), "Name": Box(100, 100, 80, 20)})
    agent = Engine(desktop, planner, settings=Settings(runs_dir=tmp_path, **settings), ladder=ladder,
                  parser=None, hooks=hooks, live=False)
    return agent, desktop, manager


def test_a_click_lands_on_the_centre_of_the_target_in_screen_coordinates(tmp_path):
    agent, desktop, _ = make_agent([Click("OK")], tmp_path, scale=2.0)
    result = agent.run("click OK")
    assert result.ok
    click = desktop.controller.calls("click")[0]
    # image centre (30, 20) -> monitor origin (100, 50) + (30, 20) / 2
    assert click.params["point"] == Point(115, 60)
    assert result.steps[0].source == "ocr" and result.steps[0].point == (30, 20)


def test_type_into_a_field_clicks_it_then_types(tmp_path):
    agent, desktop, _ = make_agent([Type("Zoë", into="Name", enter=True)], tmp_path)
    assert agent.run("type").ok
    methods = [e.method for e in desktop.controller.log]
    assert methods == ["click", "type_text", "press"]


def test_the_run_folder_has_every_step_and_the_outcome(tmp_path):
    agent, _, _ = make_agent([Click("OK"), Hotkey(("ctrl", "s"))], tmp_path)
    result = agent.run("click OK and save")
    again = load_run(result.run_dir)
    assert again.outcome == "done"
    assert [s.action for s in again.steps] == ["click('OK')", "hotkey('ctrl', 's')"]
    assert (result.run_dir / again.steps[0].before).exists()
    meta = json.loads((result.run_dir / "run.json").read_text())
    assert meta["task"] == "click OK and save"


def test_an_ambiguous_target_fails_the_step_and_is_never_clicked(tmp_path):
    agent, desktop, manager = make_agent([Click("twin")], tmp_path)
    result = agent.run("click twin")
    assert result.outcome == "failed"
    assert "ambiguous" in result.reason
    assert desktop.controller.calls("click") == []
    assert "ambiguous" in manager.replans[0]


def test_a_missing_target_fails_with_the_reason(tmp_path):
    agent, desktop, _ = make_agent([Click("Nowhere")], tmp_path)
    result = agent.run("click Nowhere")
    assert result.outcome == "failed" and "could not find 'Nowhere'" in result.reason
    assert desktop.controller.log == []


def test_a_refused_action_ends_the_run_with_the_reason(tmp_path):
    agent, desktop, _ = make_agent([Click("OK"), Click("Delete all")], tmp_path, safety="refuse")
    agent.ladder.places["Delete all"] = Box(0, 200, 50, 20)
    result = agent.run("click OK then Delete all")
    assert result.outcome == "refused"
    assert "delete" in result.reason.lower() and "--allow" in result.reason
    assert len(desktop.controller.calls("click")) == 1  # OK only; the refusal skips nothing silently


def test_ask_mode_asks_the_person_and_respects_a_no(tmp_path):
    asked = []
    hooks = AgentHooks(confirm=lambda action, cand, reason: asked.append(reason) or False)
    agent, desktop, _ = make_agent([Click("Delete all")], tmp_path, hooks=hooks, safety="ask")
    agent.ladder.places["Delete all"] = Box(0, 200, 50, 20)
    result = agent.run("delete all")
    assert asked and result.outcome == "refused"
    assert desktop.controller.calls("click") == []


def test_the_step_limit_stops_the_run(tmp_path):
    agent, _, _ = make_agent([Click("OK")] * 5, tmp_path, max_steps=3)
    result = agent.run("click OK five times")
    assert result.outcome == "failed" and "step limit" in result.reason
    assert len(result.steps) == 3


def test_ask_user_without_anyone_to_answer_fails_with_the_question(tmp_path):
    agent, _, _ = make_agent([AskUser("Which file?")], tmp_path)
    result = agent.run("open a file")
    assert result.outcome == "failed" and "Which file?" in result.reason


def test_ask_user_answer_resumes_the_run(tmp_path):
    hooks = AgentHooks(ask_user=lambda q: "report.txt")
    agent, _, _ = make_agent([AskUser("Which file?"), Click("OK")], tmp_path, hooks=hooks)
    assert agent.run("open a file").ok


def test_stop_before_the_first_step(tmp_path):
    agent, desktop, _ = make_agent([Click("OK")], tmp_path)
    agent.stop_event.set()
    result = agent.run("click OK")
    assert result.outcome == "stopped" and desktop.controller.log == []


@pytest.mark.parametrize("task", ["make it pretty", "click"])
def test_offline_planner_errors_end_the_run_without_acting(tmp_path, task):
    from gui_agent.planner import offline_planner

    image = Image.new("RGB", (200, 100), "white")
    desktop = StillDesktop(Observation.from_image(image))
    agent = Engine(desktop, offline_planner(), settings=Settings(runs_dir=tmp_path),
                  ladder=FakeLadder({}), parser=None, live=False)
    result = agent.run(task)
    assert result.outcome == "error" and "could not understand" in result.reason.lower()
    assert desktop.controller.log == []


def test_a_manager_that_replans_after_success_is_asked_after_each_subtask(tmp_path):
    agent, desktop, manager = make_agent([Click("OK")], tmp_path)
    manager.subtasks.append(Subtask("then this", (Click("Name"),)))
    manager.replans_after_success = True
    result = agent.run("two subtasks")
    # the replan after the first subtask returned [] (finished), so the second never ran
    assert result.ok and manager.replans == [""]
    assert len(desktop.controller.calls("click")) == 1


def test_the_target_hook_also_gets_the_runners_up_the_ladder_beat(tmp_path):
    seen = {}
    agent, _, _ = make_agent([Click("OK")], tmp_path, hooks=AgentHooks(on_target=lambda o, a, c: seen.update(c)))
    agent.ladder.last_alternatives = [Candidate(Box(200, 10, 40, 20), 0.6, "ocr")]
    assert agent.run("click OK").ok
    assert set(seen) == {"target", "alternative 1"} and seen["alternative 1"].box.left == 200


class _LateDialogDesktop(StillDesktop):
    """A screen whose dialog shows only from the second capture on (slow to open under load)."""

    def __init__(self, before: Observation, after: Observation) -> None:
        super().__init__(before)
        self.frames = [before]
        self.after = after

    def observe(self) -> Observation:
        return self.frames.pop(0) if self.frames else self.after


class _FrameLadder(FakeLadder):
    """Finds "Yes" only on the frame that shows the dialog."""

    def __init__(self, dialog: Observation) -> None:
        super().__init__({})
        self.dialog = dialog

    def resolve(self, target, observation: Observation) -> Candidate:
        if target == "Yes" and observation is self.dialog:
            return Candidate(Box(60, 60, 40, 20), 0.99, "ocr", why="Yes seen")
        raise TargetNotFound(target)


@dataclass
class _RetryOnce(ScriptedManager):
    def replan(self, task, observation, done, failed, reason):
        self.replans.append(reason)
        return [failed] if len(self.replans) == 1 else []


class _RetryingWorker(ScriptedWorker):
    """A retried subtask starts afresh (the history of its failed try is behind it)."""

    def next_action(self, subtask, observation, history):
        if history and not history[-1].ok and self.failed_seen < len([h for h in history if not h.ok]):
            self.failed_seen += 1
            return Fail(history[-1].note)
        ok = [h for h in history if h.ok]
        return subtask.actions[0] if not ok else Done()

    failed_seen = 0


def test_a_target_not_found_is_looked_for_again_on_a_fresh_frame(tmp_path):
    """The retry of a step whose target was not on the screen looks at the screen as it is then,
    not at the frame the first try saw (a load run's confirmation dialog opened late, and the
    retry looked for its "Yes" on the same old frame)."""
    blank = Observation(Image.new("RGB", (400, 300), "white"), MonitorGeometry(0, 0, 400, 300, 1.0, 1))
    dialog = Observation(Image.new("RGB", (400, 300), "grey"), MonitorGeometry(0, 0, 400, 300, 1.0, 1))
    desktop = _LateDialogDesktop(blank, dialog)
    manager = _RetryOnce([Subtask('click "Yes"', (Click("Yes"),))])
    agent = Engine(desktop, Planner("scripted", manager, _RetryingWorker()),
                   settings=Settings(runs_dir=tmp_path), ladder=_FrameLadder(dialog), parser=None, live=False)
    result = agent.run('click "Yes"')
    assert result.outcome == "done", result.reason
    assert len(desktop.controller.calls("click")) == 1
