"""The skill library panel on a tmp memory store: list and search, the visual step view,
rename / edit / delete / export / import (bad files leave the store unchanged), and the run
form's typed parameters. Questions to the person are answered by patched functions."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PIL import Image  # noqa: E402

from tests.support.requirements import require_module  # noqa: E402

require_module("PySide6")
require_module("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from gui_agent.config import Settings  # noqa: E402
from gui_agent.memory import MemoryStore, Skill, SkillParameter, SkillStep  # noqa: E402
from ui import skill_prompts  # noqa: E402
from ui.skill_library import SkillLibrary  # noqa: E402


def make_skills(crop: Path) -> list[Skill]:
    return [
        Skill("add item", description="add an item to the list", source="recorded",
              parameters=(SkillParameter("item", default="milk"),
                          SkillParameter("count", kind="number", default=2),
                          SkillParameter("where", kind="choice", choices=("top", "bottom"), default="bottom")),
              steps=(SkillStep('click("Items")', target="the Items tab", ocr_text="Items", crop=str(crop),
                               landmarks=(("Home", -80, 0),)),
                     SkillStep('type("{item}", into="New item")', post_text="{item}"),
                     SkillStep('click("{where}")')),
              examples=("put eggs on the shopping list",)),
        Skill("open settings", description="open the settings page", source="mined",
              steps=(SkillStep('click("Settings")'),)),
        Skill("send report", description="mail the weekly report", steps=(SkillStep('click("Send")'),)),
    ]


@pytest.fixture
def store_path(tmp_path) -> Path:
    crop = tmp_path / "crop.png"
    Image.new("RGB", (60, 20), (20, 120, 220)).save(crop)
    path = tmp_path / "mem" / "m.sqlite3"
    with MemoryStore(path) as store:
        for skill in make_skills(crop):
            store.save_skill(skill)
        for _ in range(3):                     # "send report" keeps failing: flagged
            store.record_skill_run("send report", False, [False])
        store.record_skill_run("add item", True, [True, True, True])
    return path


@pytest.fixture
def answers(monkeypatch):
    """Scripted answers to the library's questions; errors shown are collected."""
    state = {"errors": [], "text": None, "confirm": True, "save": None, "open": None, "clash": None}
    monkeypatch.setattr(skill_prompts, "show_error", lambda p, t, text: state["errors"].append(text))
    monkeypatch.setattr(skill_prompts, "ask_text", lambda p, t, label, text="": state["text"])
    monkeypatch.setattr(skill_prompts, "confirm", lambda p, t, text: state["confirm"])
    monkeypatch.setattr(skill_prompts, "choose_save_file", lambda p, t, s: state["save"])
    monkeypatch.setattr(skill_prompts, "choose_open_file", lambda p, t: state["open"])
    monkeypatch.setattr(skill_prompts, "ask_clash", lambda p, name: state["clash"])
    return state


@pytest.fixture
def library(qtbot, store_path, answers):
    lib = SkillLibrary(lambda: Settings(memory_path=store_path))
    qtbot.addWidget(lib)
    lib.show()
    qtbot.waitUntil(lambda: lib.store is not None and lib.list.topLevelItemCount() == 3)
    yield lib
    lib.close()


def names_in(path: Path) -> list[str]:
    with MemoryStore(path) as store:
        return [s.name for s in store.list_skills(include_flagged=True)]


def test_the_list_shows_every_skill_with_source_and_the_flagged_one_marked(library):
    rows = {library.list.topLevelItem(i).text(0): library.list.topLevelItem(i)
            for i in range(library.list.topLevelItemCount())}
    assert sorted(rows) == ["add item", "open settings", "send report"]
    assert rows["add item"].text(1) == "recorded" and rows["add item"].text(3) == "1/1"
    assert "flagged" in rows["send report"].text(4) and "flagged" not in rows["open settings"].text(4)
    assert rows["send report"].foreground(0).color().name() == "#b91c1c"
    assert library.count_label.text() == "3 skills"
    assert not library.buttons["run"].isEnabled() and library.buttons["import"].isEnabled()


@pytest.mark.parametrize(("query", "expected"), [
    ("settings", ["open settings"]), ("MAIL", ["send report"]), ("shopping", ["add item"]),
    ("open page", ["open settings"]), ("nothing like it", []), ("", ["add item", "open settings", "send report"]),
])
def test_search_filters_on_name_description_and_examples(library, query, expected):
    library.search.setText(query)
    assert library.visible_names() == expected
    if query:
        assert library.count_label.text() == f"{len(expected)} of 3 skills"


def test_the_step_view_shows_crops_actions_targets_and_parameters(library):
    assert library.select("add item")
    d = library.details
    assert d.title.text() == "add item" and "source: recorded" in d.meta.text()
    assert d.params.rowCount() == 3 and d.params.item(1, 1).text() == "number"
    assert d.params.item(1, 2).text() == "2" and d.params.item(2, 3).text() == "top, bottom"
    assert d.steps.rowCount() == 3
    crop = d.crop_of(0)
    assert crop is not None and (crop.width(), crop.height()) == (60, 20)
    assert d.crop_of(1) is None and d.steps.item(1, 1).text() == "—"
    assert d.steps.item(1, 2).text() == 'type("{item}", into="New item")'
    assert "the Items tab" in d.steps.item(0, 3).text() and "Home" in d.steps.item(0, 3).text()
    assert "appears" in d.steps.item(1, 4).text() and d.steps.item(0, 5).text() == "1 ok, 0 failed"
    assert "shopping" in d.examples.text() and not d.flag.isVisible()
    library.select("send report")
    assert d.flag.isVisible() and "failed" in d.flag.text()


def test_rename_keeps_the_skill_and_selects_it(library, answers, store_path):
    library.select("open settings")
    answers["text"] = "open preferences"
    assert library.rename_selected()
    assert library.selected_name() == "open preferences"
    assert "open preferences" in names_in(store_path) and "open settings" not in names_in(store_path)
    assert library.rename_selected("add item") is False        # a clash is shown, nothing changes
    assert "already exists" in answers["errors"][-1]
    assert library.rename_selected("bad/name") is False and "invalid skill name" in answers["errors"][-1]
    assert sorted(names_in(store_path)) == ["add item", "open preferences", "send report"]


def test_edit_description_and_parameters_keeps_run_history(library, store_path):
    library.select("add item")
    dialog = library.edit_selected()
    assert dialog.isVisible() and dialog.table.rowCount() == 3
    dialog.description.setPlainText("add something to the list")
    dialog.set_cell(0, 0, "thing")                 # renames {item} in the steps too
    dialog.set_cell(0, 2, "bread")
    dialog.set_cell(2, 3, "top, bottom, middle")
    row = dialog.add_parameter()
    dialog.set_cell(row, 0, "note")
    assert dialog.save()
    with MemoryStore(store_path) as store:
        skill = store.skill("add item")
    assert skill.description == "add something to the list"
    assert [p.name for p in skill.parameters] == ["thing", "count", "where", "note"]
    assert skill.parameters[0].default == "bread" and skill.parameters[2].choices == ("top", "bottom", "middle")
    assert skill.steps[1].action == 'type("{thing}", into="New item")'
    assert skill.stats.runs == 1 and skill.steps[0].successes == 1 and skill.steps[0].crop
    assert library.details.description.text() == "add something to the list"


def test_a_bad_edit_is_shown_in_the_dialog_and_not_saved(library, store_path):
    library.select("add item")
    dialog = library.edit_selected()
    dialog.set_cell(1, 2, "many")                  # count is a number
    assert not dialog.save()
    assert dialog.error.isVisible() and "needs a number" in dialog.error.text() and dialog.isVisible()
    dialog.set_cell(1, 2, "3")
    dialog.table.selectRow(0)
    dialog.remove_selected()                       # the steps still use {item}
    assert not dialog.save() and "undeclared" in dialog.error.text()
    with MemoryStore(store_path) as store:
        assert [p.name for p in store.skill("add item").parameters] == ["item", "count", "where"]


def test_delete_asks_first(library, answers, store_path):
    library.select("open settings")
    answers["confirm"] = False
    assert not library.delete_selected() and "open settings" in names_in(store_path)
    answers["confirm"] = True
    assert library.delete_selected()
    assert names_in(store_path) == ["add item", "send report"] and library.visible_names() == names_in(store_path)
    assert library.selected_name() is None and library.details.title.text().startswith("Select")


def test_export_then_import_under_another_name_or_replacing(library, answers, tmp_path, store_path):
    library.select("add item")
    answers["save"] = tmp_path / "add.zip"
    assert library.export_selected() == tmp_path / "add.zip"
    assert zipfile.is_zipfile(tmp_path / "add.zip")
    answers["open"] = tmp_path / "add.zip"
    answers["clash"] = None                        # cancelled: nothing changes
    assert library.import_file() is None and len(names_in(store_path)) == 3
    answers["clash"], answers["text"] = "rename", "add item copy"
    assert library.import_file().name == "add item copy"
    assert library.selected_name() == "add item copy" and len(names_in(store_path)) == 4
    answers["clash"] = "replace"
    assert library.import_file(tmp_path / "add.zip").name == "add item"
    with MemoryStore(store_path) as store:
        assert store.skill("add item").stats.runs == 1      # replacing keeps its history
    assert answers["errors"] == []


def test_a_malformed_import_shows_an_error_and_leaves_the_store_unchanged(library, answers, tmp_path, store_path):
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr("skill.json", '{"format": "gui-agent-skill", "version": 1, "skill": {"name": 5}}')
    before = sorted(p.name for p in store_path.parent.rglob("*") if p.is_file() and "sqlite" not in p.name)
    assert library.import_file(bad) is None
    (tmp_path / "text.zip").write_text("not a zip")
    assert library.import_file(tmp_path / "text.zip") is None
    assert len(answers["errors"]) == 2 and "not a usable gui-agent skill file" in answers["errors"][0]
    assert "not a zip" in answers["errors"][1]
    assert sorted(names_in(store_path)) == ["add item", "open settings", "send report"]
    assert sorted(p.name for p in store_path.parent.rglob("*")
                  if p.is_file() and "sqlite" not in p.name) == before


def test_export_to_an_unwritable_place_shows_an_error(library, answers, tmp_path):
    library.select("open settings")
    assert library.export_selected(tmp_path / "missing" / "x.zip") is None
    assert answers["errors"] and "missing" in answers["errors"][0]


def test_the_run_form_emits_typed_parameters(library, qtbot):
    library.select("add item")
    dialog = library.run_selected()
    assert set(dialog.fields) == {"item", "count", "where"}
    assert dialog.fields["item"].text() == "milk" and dialog.fields["where"].currentText() == "bottom"
    assert "type(\"milk\"" in dialog.preview.text()
    dialog.set_value("item", "eggs")
    dialog.set_value("count", 3)
    dialog.set_value("where", "top")
    assert 'type("eggs"' in dialog.preview.text() and 'click("top")' in dialog.preview.text()
    with qtbot.waitSignal(library.run_skill_requested) as signal:
        dialog.run_button.click()
    assert signal.args == ["add item", {"item": "eggs", "count": 3.0, "where": "top"}]
    assert not dialog.isVisible()


def test_the_run_form_refuses_an_empty_text(library, qtbot):
    library.select("add item")
    dialog = library.run_selected()
    dialog.set_value("item", "  ")
    emitted = []
    library.run_skill_requested.connect(lambda *a: emitted.append(a))
    assert not dialog.run()
    assert dialog.errors["item"].isVisible() and "needs a value" in dialog.errors["item"].text()
    assert emitted == [] and dialog.isVisible()


def test_a_skill_without_parameters_runs_with_an_empty_dict(library, qtbot):
    library.select("open settings")
    dialog = library.run_selected()
    with qtbot.waitSignal(library.run_skill_requested) as signal:
        dialog.run()
    assert signal.args == ["open settings", {}]


def test_a_foreign_file_is_reported_and_never_overwritten(qtbot, tmp_path, answers):
    foreign = tmp_path / "notes.txt"
    foreign.write_text("my notes, not a database\n" * 20)
    lib = SkillLibrary(lambda: Settings(memory_path=foreign))
    qtbot.addWidget(lib)
    lib.show()
    qtbot.waitUntil(lambda: lib.message.isVisible())
    assert "cannot be opened" in lib.message.text() and "not a gui-agent memory database" in lib.message.text()
    assert lib.list.topLevelItemCount() == 0 and not lib.buttons["import"].isEnabled()
    assert lib.import_file(tmp_path / "x.zip") is None
    assert foreign.read_text() == "my notes, not a database\n" * 20
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_the_store_closes_with_the_dialog_and_reopens(library, qtbot):
    library.close()
    assert library.store is None
    library.show()
    qtbot.waitUntil(lambda: library.store is not None and library.list.topLevelItemCount() == 3)


def test_a_missing_crop_file_is_said_so(library, store_path):
    skill = library.skills["add item"]
    (store_path.parent / skill.steps[0].crop).unlink()
    library.select("open settings")
    library.select("add item")
    assert library.details.crop_of(0) is None and library.details.steps.item(0, 1).text() == "(image missing)"
    dialog = library.edit_selected()           # still editable: the lost image's reference is dropped
    dialog.description.setPlainText("still works")
    assert dialog.save(), dialog.error.text()
    with MemoryStore(store_path) as store:
        skill = store.skill("add item")
    assert skill.description == "still works" and skill.steps[0].crop is None
    assert skill.steps[0].landmarks == (("Home", -80, 0),)


@pytest.mark.parametrize(("press", "expected"), [("Replace it", "replace"),
                                                 ("Import under another name…", "rename"), (None, None)])
def test_the_name_clash_question(qtbot, press, expected):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from ui.skill_prompts import ask_clash

    seen = []

    def answer():
        box = QApplication.activeModalWidget()
        seen.append(box.text())
        if press is None:
            qtbot.keyClick(box, Qt.Key.Key_Escape)
        else:
            next(b for b in box.buttons() if b.text() == press).click()

    QTimer.singleShot(50, answer)
    assert ask_clash(None, "add item") == expected
    assert "add item" in seen[0]


def test_the_delete_confirmation_defaults_to_no(qtbot):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from ui.skill_prompts import confirm

    QTimer.singleShot(50, lambda: qtbot.keyClick(QApplication.activeModalWidget(), Qt.Key.Key_Return))
    assert confirm(None, "Delete skill", "Delete it?") is False
