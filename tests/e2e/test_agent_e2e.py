"""End to end: the offline agent drives the real playground app under Xvfb with real input.

Each demo task runs on a fresh playground window and is checked against the app's own state
(not against what the agent believes it did): relation and ordinal targets, non-ASCII text,
a safety refusal and an instruction the planner must refuse are among them.
"""

from __future__ import annotations

import pytest

from gui_agent.demo import DEMO_TASKS, run_demo_task

pytestmark = pytest.mark.e2e("xvfb", "input", "qt")


@pytest.fixture(scope="module")
def parser():
    """One screen parser for all tasks: the OCR models load once, as in `gui-agent demo`."""
    from gui_agent.parsing.screen_parser import ScreenParser

    return ScreenParser()


@pytest.mark.parametrize("task", DEMO_TASKS, ids=[t.name for t in DEMO_TASKS])
def test_demo_task_reaches_the_expected_app_state(xvfb, tmp_path, task, parser):
    work = tmp_path / "work"
    work.mkdir()
    result, passed, detail = run_demo_task(task, tmp_path / "runs", work, parser)
    steps = "\n".join(s.describe() for s in result.steps)
    assert passed, f"{detail}\n{steps}"
    if task.expect_outcome == "done":
        # every step acted at a point inside the 1024x700 playground window
        for step in result.steps:
            if step.screen_point:
                x, y = step.screen_point
                assert 0 <= x < 1024 and 0 <= y < 700, step.describe()
