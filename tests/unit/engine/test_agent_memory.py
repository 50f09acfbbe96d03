"""The agent with its experience memory, on a still screen with a fake ladder: recall, hand-back,
run_skill from the planner, episodes remembered (and a broken memory never failing a run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from gui_agent import Engine
from gui_agent.actions import Click, Done, RunSkill
from gui_agent.cli import main
from gui_agent.config import Settings
from gui_agent.desktop import StillDesktop
from gui_agent.errors import TargetNotFound
from gui_agent.geometry import Box
from gui_agent.grounding.candidate import Candidate
from gui_agent.grounding.point_grounder import PointGrounder
from gui_agent.memory.experience import ExperienceMemory
from gui_agent.memory.models import Skill, SkillStep
from gui_agent.memory.store import MemoryStore
from gui_agent.planner.base import Planner, Subtask
from gui_agent.screen.observation import MonitorGeometry, Observation


class FakeLadder:
    last_alternatives: list = []   # the Ladder protocol: runners-up of the latest

    def __init__(self, places: dict[str, Box]) -> None:
        self.places = places
        self.asked: list[str] = []

    def resolve(self, target, observation: Observation) -> Candidate:
        if not isinstance(target, str):   # a point or a box: as the real ladder does
            return PointGrounder().resolve(target, observation)
        self.asked.append(target)
        if target not in self.places:
            raise TargetNotFound(target)
        return Candidate(self.places[target], 0.99, "ocr", why=f"{target} seen")


class Manager:
    def __init__(self, subtasks: list[Subtask]) -> None:
        self.subtasks = subtasks
        self.calls = 0

    def plan(self, task, observation):
        self.calls += 1
        return list(self.subtasks)

    def replan(self, task, observation, done, failed, reason):
        return []


class Worker:
    def next_action(self, subtask, observation, history):
        mine = [h for h in history]
        return subtask.actions[len(mine)] if len(mine) < len(subtask.actions) else Done()


def agent_with(memory: ExperienceMemory, tmp_path: Path, actions: list) -> tuple[Engine, Manager]:
    obs = Observation(Image.new("RGB", (400, 300), "white"), MonitorGeometry(0, 0, 400, 300, 1.0, 1))
    manager = Manager([Subtask("do it", tuple(actions))])
    ladder = FakeLadder({'"OK"': Box(10, 10, 40, 20), "OK": Box(10, 10, 40, 20)})
    agent = Engine(StillDesktop(obs), Planner("scripted", manager, Worker()),
                  settings=Settings(runs_dir=tmp_path / "runs", safety="allow"), ladder=ladder,
                  parser=None, live=False, memory=memory)
    return agent, manager


@pytest.fixture
def memory(tmp_path: Path):
    mem = ExperienceMemory(MemoryStore(tmp_path / "m.sqlite3"))
    yield mem
    mem.close()


def test_a_recalled_skill_that_stops_hands_the_task_to_the_planner(memory, tmp_path: Path) -> None:
    memory.store.save_skill(Skill("press ok", (SkillStep('click(\'"Gone"\')', target='"Gone"'),),
                                  description="press the OK button", examples=('click "OK"',)))
    agent, manager = agent_with(memory, tmp_path, [Click('"OK"')])
    result = agent.run('click "OK"')
    assert result.ok and result.skill is None
    assert manager.calls == 1, "the planner took over"
    assert [s.outcome for s in result.steps] == ["failed", "ok"]
    assert "Gone" in result.steps[0].error
    assert [s.index for s in result.steps] == [1, 2]
    stats = memory.store.skill("press ok").stats
    assert (stats.runs, stats.successes) == (1, 0)
    assert memory.store.episodes(1)[0].task == 'click "OK"'


def test_a_recalled_skill_that_works_needs_no_planner(memory, tmp_path: Path) -> None:
    memory.store.save_skill(Skill("press ok", (SkillStep('click(\'"OK"\')', target='"OK"'),),
                                  description="press the OK button", examples=('click "OK"',)))
    agent, manager = agent_with(memory, tmp_path, [Click('"OK"')])
    result = agent.run('click "OK"')
    assert result.ok and result.skill == "press ok"
    assert manager.calls == 0
    assert memory.store.episodes(1)[0].model == "skill:press ok"


def test_the_planner_calls_a_skill_with_run_skill(memory, tmp_path: Path) -> None:
    memory.store.save_skill(Skill("press ok", (SkillStep('click(\'"OK"\')', target='"OK"'),),
                                  description="press the OK button"))
    agent, manager = agent_with(memory, tmp_path, [Click("OK"), RunSkill("press ok"), RunSkill("no such")])
    agent.memory.auto_skills = False
    result = agent.run("do something else entirely")
    assert [s.index for s in result.steps] == [1, 2]
    assert [s.outcome for s in result.steps] == ["ok", "ok"]
    assert memory.store.skill("press ok").stats.successes == 1


def test_a_broken_memory_never_fails_the_run(memory, tmp_path: Path) -> None:
    agent, _ = agent_with(memory, tmp_path, [Click("OK")])
    memory.store.close()
    memory.auto_skills = False
    result = agent.run('click "OK"')
    assert result.ok


def test_save_as_with_a_bad_name_is_refused_before_anything_runs(capsys) -> None:
    code = main(["run", 'click "OK"', "--save-as", "bad/name"])
    assert code == 2
    assert "invalid skill name" in capsys.readouterr().err


def test_episodes_past_the_retention_period_are_pruned_after_a_run(tmp_path: Path) -> None:
    from gui_agent.trajectory import RunResult

    mem = ExperienceMemory(MemoryStore(tmp_path / "r.sqlite3"), keep_days=7)
    try:
        mem.store.record_episode(RunResult("old task", "done"), created_at=1_000.0)  # 1970: long past
        mem.remember(RunResult("new task", "done"))
        assert [e.task for e in mem.store.episodes()] == ["new task"]
    finally:
        mem.close()


def test_settings_choose_the_store_the_retention_and_whether_memory_is_on(tmp_path: Path) -> None:
    assert ExperienceMemory.from_settings(Settings(use_memory=False)) is None
    mem = ExperienceMemory.from_settings(Settings(memory_keep_days=3, memory_path=tmp_path / "s.sqlite3",
                                                  auto_skills=False))
    try:
        assert (mem.keep_days, mem.auto_skills, mem.mine) == (3, False, True)
        assert mem.store.path == tmp_path / "s.sqlite3"
    finally:
        mem.close()
