"""Task box suggestions from the skill library as you type: past tasks, then skills ranked by
SkillIndex.rank with their name and description. Choosing a skill opens the library's parameters
form with the values read from the typed text, and its Run replays that skill; the store is opened
lazily and a broken one never blocks typing. Offscreen, real key events, scripted engine."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from tests.support.requirements import require_module  # noqa: E402

require_module("PySide6")
require_module("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from gui_agent.actions import Click  # noqa: E402
from gui_agent.config import Settings  # noqa: E402
from gui_agent.memory import MemoryStore, Skill, SkillParameter, SkillStep  # noqa: E402
from tests.support.ui_fakes import FakeHotkey, ScriptedEngine, run_task  # noqa: E402
from ui.main_window import MainWindow  # noqa: E402
from ui.skill_forms import RunSkillDialog  # noqa: E402
from ui.task_history import TaskHistory  # noqa: E402

ADD = "Skill: add item — add an item to the list"


@pytest.fixture
def store_path(tmp_path):
    path = tmp_path / "m.sqlite3"
    with MemoryStore(path) as store:
        store.save_skill(Skill("add item", (SkillStep("click('OK')", target="OK"),
                                            SkillStep("type('{item}', into='Name')", target="Name")),
                               description="add an item to the list", parameters=(SkillParameter("item"),),
                               examples=("add milk to the list",)))
        store.save_skill(Skill("send report", (SkillStep("click('OK')"),), description="mail the weekly report"))
    return path


def make(qtbot, tmp_path, memory_path, engine=None):
    settings = Settings(runs_dir=tmp_path / "runs", safety="allow", memory_path=memory_path)
    history = TaskHistory(tmp_path / "history.json")
    for task in ("click OK", "add a row"):
        history.add(task)
    engine = engine or ScriptedEngine((Click("OK"),))
    window = MainWindow(engine, settings_loader=lambda: settings, history=history, hotkey_factory=FakeHotkey)
    qtbot.addWidget(window)
    window.show()
    window.task_box.setFocus()
    return window, engine


def with_memory(engine, store_path):
    from gui_agent.memory.experience import ExperienceMemory

    def factory(request, hooks, control, wrap):
        return engine(request, hooks, control, wrap, memory=ExperienceMemory(MemoryStore(store_path)))

    return factory


def popup(window):
    return window.task_box.completer().popup()


def test_typing_suggests_past_tasks_then_the_best_skills(qtbot, tmp_path, store_path):
    window, _ = make(qtbot, tmp_path, store_path)
    assert window.suggester.loads == 0                   # nothing opened at start
    qtbot.keyClicks(window.task_box, "add")
    assert window.task_box.suggestions() == ["add a row", ADD]
    assert popup(window).isVisible()
    tip = window.task_box.completer().completionModel().index(1, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert "2 steps" in tip and "parameters form" in tip
    qtbot.keyClicks(window.task_box, " eggs")
    assert window.task_box.suggestions() == [ADD]        # no past task says "add eggs"
    window.task_box.clear()
    qtbot.keyClicks(window.task_box, "mail the report")
    assert window.task_box.suggestions() == ["Skill: send report — mail the weekly report"]
    assert window.suggester.loads == 1                   # read once, not per keystroke
    qtbot.keyClick(popup(window), Qt.Key.Key_Escape)
    window.task_box.clear()
    qtbot.keyClicks(window.task_box, "zzz qqq")
    assert window.task_box.suggestions() == [] and not popup(window).isVisible()


def test_choosing_a_skill_opens_its_form_with_the_typed_values_and_runs_it(qtbot, tmp_path, store_path):
    engine = ScriptedEngine()
    window, _ = make(qtbot, tmp_path, store_path, with_memory(engine, store_path))
    typed = 'add "eggs" to the list'
    qtbot.keyClicks(window.task_box, typed)
    assert window.task_box.suggestions() == [ADD]
    qtbot.keyClick(popup(window), Qt.Key.Key_Down)
    assert window.task_box.text() == typed               # highlighting a skill leaves the text alone
    qtbot.keyClick(popup(window), Qt.Key.Key_Return)
    forms = [d for d in window.findChildren(RunSkillDialog) if d.isVisible()]
    assert len(forms) == 1 and forms[0].skill.name == "add item"
    form = forms[0]
    assert form.raw_values() == {"item": "eggs"}         # read from the typed text by recall
    assert engine.requests == [] and not window.running  # Enter chose the skill; it did not run the text
    with qtbot.waitSignal(window.worker.finished, timeout=5000):
        qtbot.mouseClick(form.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.last_result is not None, timeout=5000)
    request = engine.requests[0]
    assert request.skill == "add item" and dict(request.params) == {"item": "eggs"}
    assert window.last_result.outcome == "done", window.last_result.reason
    assert [r.step.action for r in window.step_model.rows] == ["click('OK')", "type('eggs', into='Name')"]
    assert window.task_box.text() == typed


def test_a_clicked_skill_opens_its_form(qtbot, tmp_path, store_path):
    window, engine = make(qtbot, tmp_path, store_path)
    qtbot.keyClicks(window.task_box, "add")
    assert window.task_box.suggestions() == ["add a row", ADD]
    completer = window.task_box.completer()
    skill_row = completer.completionModel().index(1, 0)
    completer.activated[type(skill_row)].emit(skill_row)  # what a click on the row does
    forms = [d for d in window.findChildren(RunSkillDialog) if d.isVisible()]
    assert [f.skill.name for f in forms] == ["add item"] and engine.requests == []


def test_the_index_is_read_again_after_a_run(qtbot, tmp_path, store_path):
    window, _ = make(qtbot, tmp_path, store_path)
    qtbot.keyClicks(window.task_box, "mail")
    assert window.suggester.loads == 1
    with MemoryStore(store_path) as store:
        store.save_skill(Skill("mail invoice", (SkillStep("click('OK')"),), description="mail the invoice"))
    window.task_box.setText("click OK")
    run_task(qtbot, window, "click OK")                   # a run may add skills: read again next time
    window.task_box.clear()
    qtbot.keyClicks(window.task_box, "mail the invoice")
    assert window.suggester.loads == 2
    assert window.task_box.suggestions()[0] == "Skill: mail invoice — mail the invoice"


@pytest.mark.parametrize("problem", ["not a database", "no file", "bad settings"])
def test_a_missing_or_broken_library_never_blocks_typing(qtbot, tmp_path, problem):
    path = tmp_path / "memory.sqlite3"
    if problem == "not a database":
        path.write_bytes(b"this is not an SQLite file" * 40)
    window, _ = make(qtbot, tmp_path, path)
    if problem == "bad settings":
        def broken():
            raise ValueError("safety must be one of ask, refuse, allow")
        window.suggester.settings_loader = broken
    qtbot.keyClicks(window.task_box, "add an item")
    assert window.task_box.text() == "add an item"
    assert window.task_box.suggestions() == []
    if problem == "no file":
        assert not path.exists() and window.suggester.error == ""   # typing never creates a database
    else:
        assert window.suggester.error
    qtbot.keyClicks(window.task_box, "!")
    assert window.suggester.loads == 1                   # a failure is not retried on every key
