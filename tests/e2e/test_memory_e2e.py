"""Experience memory end to end under Xvfb: a task family's later runs are done by a skill.

Real playground windows, real pyautogui input; the app's own state is checked, and the planner
is counted so that "ran as a skill" means it was not asked at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gui_agent import Engine
from gui_agent.bench.counting import CountingParser, counted_planner
from gui_agent.config import Settings
from gui_agent.memory.experience import ExperienceMemory
from gui_agent.memory.store import MemoryStore
from gui_agent.planner import offline_planner
from gui_agent.trajectory import RunResult

pytestmark = pytest.mark.e2e("xvfb", "input", "qt")

ADD = 'click "Items", type "{}" into the New item field, then click "Add"'


@pytest.fixture(scope="module")
def parser() -> Any:
    from gui_agent.parsing.screen_parser import ScreenParser

    return ScreenParser()


@pytest.fixture
def memory(tmp_path: Path) -> Any:
    mem = ExperienceMemory(MemoryStore(tmp_path / "memory" / "m.sqlite3"))
    yield mem
    mem.close()


def run_on_playground(task: str, memory: Any, parser: Any, tmp_path: Path, xvfb: str,
                      counter: dict[str, int] | None = None) -> tuple[RunResult, dict[str, Any]]:
    from gui_agent.control.pyautogui_controller import PyAutoGuiController
    from gui_agent.desktop import LiveDesktop
    from gui_agent.grounding.default import default_ladder
    from gui_agent.playground import launch_playground

    counter = {} if counter is None else counter
    counting = CountingParser(parser, counter)
    ladder, _ = default_ladder(counting)
    work = tmp_path / f"app-{len(list(tmp_path.glob('app-*')))}"
    with launch_playground(work / "state.json", save_dir=work / "files") as app:
        app.wait_ready()
        agent = Engine(LiveDesktop(PyAutoGuiController()), counted_planner(offline_planner(), counter),
                      settings=Settings(safety="refuse", max_steps=20, runs_dir=tmp_path / "runs"),
                      ladder=ladder, parser=counting, memory=memory)
        result = agent.run(task)
        state = app.wait_for(lambda s: True, timeout=2)
    return result, state


def test_a_run_saved_as_a_skill_does_the_next_task_of_its_family(memory: Any, parser: Any, tmp_path: Path,
                                                                  xvfb: str) -> None:
    first, state = run_on_playground(ADD.format("Dates"), memory, parser, tmp_path, xvfb)
    assert first.ok and first.skill is None and state["items"]["list"][-1] == "Dates"
    skill = memory.save_as(memory.store.episodes(1)[0].id, "add item")
    assert [p.name for p in skill.parameters] == ["new_item"]

    counter: dict[str, int] = {}
    second, state = run_on_playground(ADD.format("Figs"), memory, parser, tmp_path, xvfb, counter)
    assert second.ok, second.reason
    assert second.skill == "add item"
    assert state["items"]["list"][-1] == "Figs"
    assert counter.get("planner", 0) == 0, "the planner was asked although a skill did the task"
    assert all(s.source and s.source.startswith("template") for s in second.steps), \
        [(s.action, s.source) for s in second.steps]
    assert memory.store.skill("add item").stats.successes == 1


def test_two_runs_of_a_family_are_mined_and_the_third_runs_as_a_skill(memory: Any, parser: Any,
                                                                       tmp_path: Path, xvfb: str) -> None:
    for name in ("Dates", "Figs"):
        result, state = run_on_playground(ADD.format(name), memory, parser, tmp_path, xvfb)
        assert result.ok and result.skill is None and state["items"]["list"][-1] == name
    skills = memory.store.list_skills()
    assert len(skills) == 1 and skills[0].source == "mined"

    third, state = run_on_playground(
        'click "Items" and type "Kiwis" into the New item field, then click "Add" please',
        memory, parser, tmp_path, xvfb)
    assert third.ok, third.reason
    assert third.skill == skills[0].name
    assert state["items"]["list"][-1] == "Kiwis"
    # the new phrasing is learned as one more example of the skill
    assert any("please" in e for e in memory.store.skill(skills[0].name).examples)
