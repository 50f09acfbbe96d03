"""Gate for the README's demo figure (`gui-agent demo`: 10/10 tasks passed).

Each demo task is run on a fresh playground and checked on the app's state by
``tests/e2e/test_agent_e2e.py::test_demo_task_reaches_the_expected_app_state`` (one parametrized
case per task, the same ``run_demo_task`` the command uses); this checks that those cases are
the README's ten.
"""

from __future__ import annotations

from gui_agent.demo import DEMO_TASKS


def test_the_demo_has_the_readmes_ten_tasks() -> None:
    assert len(DEMO_TASKS) == 10
    assert len({t.name for t in DEMO_TASKS}) == 10      # one test id each, none shadowed
