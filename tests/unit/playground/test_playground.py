"""The playground app in-process on Qt's offscreen platform (pytest-qt).

Outcomes are checked through the state file the app writes, as the e2e tests and demos do.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

from tests.support.displays import unused_display  # noqa: E402
from tests.support.requirements import require_module  # noqa: E402

require_module("PySide6")
require_module("pytestqt")

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtWidgets import QCheckBox, QRadioButton  # noqa: E402

from gui_agent.errors import ConfigError, DisplayError  # noqa: E402
from gui_agent.playground import PlaygroundError, launch_playground  # noqa: E402
from gui_agent.playground.app import (  # noqa: E402
    TAB_NAMES,
    ReadyWatcher,
    build_window,
    configure_application,
    main,
)
from gui_agent.playground.options import PlaygroundOptions, parse_options  # noqa: E402
from gui_agent.playground.state import MAX_EVENTS, find_target, target_center  # noqa: E402
from gui_agent.playground.targets import visible_targets  # noqa: E402

EXPECTED_TEXTS = {
    "Login": ["Sign in", "Username", "Password", "Remember me", "Log in"],
    "Settings": ["Preferences", "Open settings…", "Current preferences"],
    "Items": ["Shopping list", "Apples", "Bananas", "Cherries", "New item", "Add", "Delete"],
    "Editor": ["File", "Text", "untitled.txt — no changes"],
    "Contacts": ["Address book", "Name", "Email", "Action", "Alice", "Bob", "Carol", "Edit"],
}


@pytest.fixture(scope="module")
def styled_app(qapp):
    """Configure the shared QApplication like the playground does, and restore it after."""
    style_name, palette, font = qapp.style().name(), qapp.palette(), qapp.font()
    configure_application(qapp, "light", 1.0)
    yield qapp
    qapp.setStyle(style_name)
    qapp.setPalette(palette)
    qapp.setFont(font)


@pytest.fixture
def window(styled_app, qtbot, tmp_path: Path):
    options = PlaygroundOptions(state_file=tmp_path / "state.json", save_dir=tmp_path / "saved")
    win = build_window(options)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    return win


def file_state(win) -> dict:
    return json.loads(win.recorder.path.read_text())


def click(qtbot, widget) -> None:
    """Click where a person would: a check box or radio reacts only on its indicator and text."""
    if isinstance(widget, QCheckBox | QRadioButton):
        pos = QPoint(min(widget.width(), widget.sizeHint().width()) // 2, widget.height() // 2)
        qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=pos)
    else:
        qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


def test_every_screen_shows_its_labelled_widgets(window, qtbot) -> None:
    assert window.windowTitle() == "gui-agent playground"
    assert (window.width(), window.height()) == (1024, 700)
    for tab in TAB_NAMES:
        window.show_tab(tab)
        assert file_state(window)["current_tab"] == tab
        targets = visible_targets()
        texts = {t["text"] for t in targets}
        assert set(EXPECTED_TEXTS[tab]) <= texts, (tab, texts)
        assert [t["text"] for t in targets if t["kind"] == "tab"] == list(TAB_NAMES)
        if tab == "Contacts":
            assert len([t for t in targets if t["text"] == "Edit"]) == 3
        for other in set(TAB_NAMES) - {tab}:  # hidden pages contribute nothing
            only_there = set(EXPECTED_TEXTS[other]) - set(EXPECTED_TEXTS[tab]) - set(TAB_NAMES)
            assert not only_there & texts - {"Name", "Email"}, (tab, other)


def test_login_success_and_failure_never_store_the_password(window, qtbot) -> None:
    page = window.login_page
    click(qtbot, page.login_button)
    state = file_state(window)["login"]
    assert state["status"] == "Invalid credentials" and state["logged_in_as"] is None
    qtbot.keyClicks(page.username_edit, "ann")
    qtbot.keyClicks(page.password_edit, "s3cr3t-pw")
    click(qtbot, page.remember_check)
    click(qtbot, page.login_button)
    state = file_state(window)
    assert state["login"] == {
        "username": "ann",
        "password_length": 9,
        "remember_me": True,
        "status": "Welcome, ann!",
        "logged_in_as": "ann",
        "attempts": 2,
    }
    assert page.status_label.text() == "Welcome, ann!"
    assert window.header.user_label.text() == "Signed in as ann"
    assert state["last_clicked"]["text"] == "Log in"
    assert "s3cr3t-pw" not in window.recorder.path.read_text()


def test_settings_dialog_pending_apply_cancel_ok(window, qtbot) -> None:
    window.show_tab("Settings")
    click(qtbot, window.settings_page.open_button)
    dialog = window.settings_page.dialog
    assert dialog is not None and dialog.isVisible()
    assert file_state(window)["dialog"] == "Settings"
    assert [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())] == ["General", "Advanced"]
    qtbot.keyClicks(dialog.name_edit, "Ann")
    click(qtbot, dialog.size_radios["Small"])
    dialog.color_combo.setCurrentText("Green")
    state = file_state(window)["settings"]
    assert state["pending"]["name"] == "Ann" and state["pending"]["size"] == "Small"
    assert state["applied"]["name"] == "" and state["applied"]["color"] == "Blue"
    click(qtbot, dialog.apply_button)
    state = file_state(window)["settings"]
    assert state["applied"]["name"] == "Ann" and state["applied"]["color"] == "Green"
    assert "Profile: Ann <no email>" in window.settings_page.summary_label.text()
    dialog.tabs.setCurrentIndex(1)
    assert file_state(window)["settings"]["dialog_tab"] == "Advanced"
    dialog.retries_spin.setValue(7)
    click(qtbot, dialog.verbose_check)
    assert file_state(window)["settings"]["pending"]["retries"] == 7
    click(qtbot, dialog.cancel_button)
    qtbot.waitUntil(lambda: file_state(window)["dialog"] is None)
    state = file_state(window)["settings"]
    assert state["applied"]["retries"] == 3 and state["pending"] == state["applied"]
    click(qtbot, window.settings_page.open_button)
    dialog = window.settings_page.dialog
    assert dialog.name_edit.text() == "Ann" and dialog.size_radios["Small"].isChecked()
    click(qtbot, dialog.auto_save_check)
    click(qtbot, dialog.ok_button)
    qtbot.waitUntil(lambda: file_state(window)["dialog"] is None)
    state = file_state(window)["settings"]
    assert state["applied"]["auto_save"] is True and state["apply_count"] == 2


def test_items_add_and_delete_with_confirmation(window, qtbot) -> None:
    window.show_tab("Items")
    page = window.items_page
    click(qtbot, page.delete_button)
    assert page.confirm_dialog is None and "Select an item" in page.status_label.text()
    qtbot.keyClicks(page.new_item_edit, "Dates")
    click(qtbot, page.add_button)
    assert file_state(window)["items"]["list"] == ["Apples", "Bananas", "Cherries", "Dates"]
    page.list_widget.setCurrentRow(1)
    assert file_state(window)["items"]["selected"] == "Bananas"
    click(qtbot, page.delete_button)
    dialog = page.confirm_dialog
    assert dialog.question_label.text() == "Delete 'Bananas'?"
    assert file_state(window)["dialog"] == "Confirm delete"
    click(qtbot, dialog.no_button)
    qtbot.waitUntil(lambda: file_state(window)["dialog"] is None)
    assert "Bananas" in file_state(window)["items"]["list"]
    click(qtbot, page.delete_button)
    click(qtbot, page.confirm_dialog.yes_button)
    qtbot.waitUntil(lambda: file_state(window)["dialog"] is None)
    state = file_state(window)["items"]
    assert state["list"] == ["Apples", "Cherries", "Dates"] and state["deleted"] == ["Bananas"]
    assert page.status_label.text() == "Deleted 'Bananas'"


def test_editor_save_as_save_new_open(window, qtbot, tmp_path: Path) -> None:
    window.show_tab("Editor")
    page = window.editor_page
    assert [a.text() for a in page.file_menu.actions() if not a.isSeparator()] == [
        "New",
        "Open…",
        "Save",
        "Save As…",
        "Quit",
    ]
    qtbot.keyClicks(page.text_edit, "first draft")
    assert file_state(window)["editor"]["text"] == "first draft"
    page.actions_by_name["Save"].trigger()  # no path yet: asks for a name
    dialog = page.file_dialog
    assert file_state(window)["dialog"] == "Save as" and dialog.name_edit.text() == "untitled.txt"
    dialog.name_edit.setText("../escape.txt")
    click(qtbot, dialog.action_button)
    assert dialog.isVisible() and "without folders" in dialog.error_label.text()
    dialog.name_edit.setText("notes.txt")
    click(qtbot, dialog.action_button)
    qtbot.waitUntil(lambda: file_state(window)["dialog"] is None)
    saved = tmp_path / "saved" / "notes.txt"
    assert saved.read_text() == "first draft"
    state = file_state(window)["editor"]
    assert state["path"] == str(saved) and state["modified"] is False
    qtbot.keyClicks(page.text_edit, "!")
    page.actions_by_name["Save"].trigger()  # has a path now: writes without asking
    assert page.file_dialog is None and saved.read_text() == "first draft!"
    assert file_state(window)["editor"]["saved_files"] == [
        {"path": str(saved), "content": "first draft!"}
    ]
    page.actions_by_name["New"].trigger()
    assert file_state(window)["editor"]["text"] == "" and page.text() == ""
    page.actions_by_name["Open…"].trigger()
    page.file_dialog.name_edit.setText("missing.txt")
    click(qtbot, page.file_dialog.action_button)
    assert "No file named" in page.file_dialog.error_label.text()
    page.file_dialog.name_edit.setText("notes.txt")
    click(qtbot, page.file_dialog.action_button)
    qtbot.waitUntil(lambda: file_state(window)["editor"]["text"] == "first draft!")


def test_identical_edit_buttons_record_which_row(window, qtbot) -> None:
    window.show_tab("Contacts")
    buttons = window.contacts_page.edit_buttons
    assert {b.text() for b in buttons} == {"Edit"}
    click(qtbot, buttons[2])
    state = file_state(window)
    assert state["contacts"]["last_edit"] == {"name": "Carol", "index": 2}
    assert state["last_clicked"]["text"] == "Edit" and state["last_clicked"]["context"] == "Carol"
    targets = [t for t in visible_targets() if t["text"] == "Edit"]
    assert [t["box"][1] for t in targets] == sorted(t["box"][1] for t in targets)
    bob = find_target(visible_targets(), "Bob", "label")
    assert abs(target_center(targets[1])[1] - target_center(bob)[1]) <= 3


def test_ready_flag_events_and_atomic_file(window, qtbot) -> None:
    assert file_state(window)["ready"] is False
    _watcher = ReadyWatcher(window)  # main() does this after show()
    qtbot.waitUntil(lambda: file_state(window)["ready"] is True, timeout=3000)
    state = file_state(window)
    assert state["window"]["title"] == "gui-agent playground" and state["targets"]
    for _ in range(MAX_EVENTS + 5):
        window.show_tab("Items")
        window.show_tab("Login")
    state = file_state(window)
    assert len(state["events"]) == MAX_EVENTS and state["events"][-1]["action"] == "tab"
    assert not list(window.recorder.path.parent.glob(".*.tmp"))


def test_options_parse_and_reject_bad_values(tmp_path: Path) -> None:
    opts = parse_options(
        [
            "--size",
            "800x600",
            "--pos",
            "5,6",
            "--theme",
            "dark",
            "--font-scale",
            "1.25",
            "--save-dir",
            str(tmp_path),
        ]
    )
    assert (opts.size, opts.pos, opts.theme, opts.font_scale) == ((800, 600), (5, 6), "dark", 1.25)
    for bad in (["--size", "big"], ["--size", "100x100"], ["--pos", "1"], ["--font-scale", "3"]):
        with pytest.raises(ConfigError):
            parse_options(bad)
    assert main(["--size", "nope"]) == 2


def test_launcher_needs_a_display_and_reports_a_dead_app(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    with pytest.raises(DisplayError, match="DISPLAY"):
        launch_playground(tmp_path / "s.json")
    # a display nobody serves: Qt cannot connect, the process dies, wait_ready says so
    with (
        launch_playground(tmp_path / "s.json", display=unused_display()) as app,
        pytest.raises(PlaygroundError, match="exited"),
    ):
        app.wait_ready(timeout=20)
    assert app.returncode not in (None, 0)
