"""Confirmations in the app: the safety policy's "ask" shows the screen the action was grounded on
with its box and point drawn, and Allow once / Always for this task / Deny. "Always" approves
that kind of risk (the verdict's word) for the rest of the run only. Offscreen; answers scripted
through ui.dialogs, and the real dialog driven with button clicks and Escape."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

from tests.support.requirements import require_module  # noqa: E402

require_module("PySide6")
require_module("pytestqt")

from PySide6.QtCore import Qt, QTimer  # noqa: E402
from PySide6.QtGui import QGuiApplication  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from gui_agent import Engine as RealEngine  # noqa: E402
from gui_agent.actions import Click, Type  # noqa: E402
from gui_agent.config import Settings  # noqa: E402
from gui_agent.desktop import StillDesktop  # noqa: E402
from gui_agent.geometry import Box  # noqa: E402
from gui_agent.planner.base import Planner  # noqa: E402
from gui_agent.screen.observation import MonitorGeometry, Observation  # noqa: E402
from tests.support.ui_fakes import (  # noqa: E402
    PLACES,
    FakeHotkey,
    FakeLadder,
    OneSubtask,
    ScriptedWorker,
    run_task,
)
from ui import dialogs  # noqa: E402
from ui.confirm_dialog import ALWAYS, DENY, ONCE, ConfirmDialog, ConfirmRequest, StandingApprovals  # noqa: E402
from ui.main_window import MainWindow  # noqa: E402
from ui.task_history import TaskHistory  # noqa: E402

MORE = {**PLACES, "Send report": Box(300, 40, 80, 24), "Password": Box(300, 90, 120, 24)}


@dataclass
class Engine:
    """A still screen (red where "Delete all" is) and a scripted planner; records every agent."""

    actions: tuple = ()
    agents: list = field(default_factory=list)

    def __call__(self, request, hooks, control, wrap):
        size = QGuiApplication.primaryScreen().geometry().size()
        image = Image.new("RGB", (size.width(), size.height()), "white")
        ImageDraw.Draw(image).rectangle([0, 200, 49, 219], fill=(200, 0, 0))
        desktop = StillDesktop(Observation(image, MonitorGeometry(0, 0, size.width(), size.height(), 1.0, 1)))
        agent = RealEngine(wrap(desktop), Planner("scripted", OneSubtask(self.actions), ScriptedWorker()),
                           settings=request.settings, ladder=FakeLadder(dict(MORE)), parser=None, live=False,
                           hooks=hooks, control=control)
        self.agents.append(agent)
        return agent

    def clicks(self, run: int = -1) -> list:
        return self.agents[run].desktop.inner.controller.calls("click")


@pytest.fixture
def answers(monkeypatch):
    """Scripted choices, in order; every request shown is kept (with the thread it came on)."""
    state = {"choices": [], "asked": []}

    def confirm(parent, request):
        state["asked"].append((request, threading.current_thread() is threading.main_thread()))
        return state["choices"].pop(0)

    monkeypatch.setattr(dialogs, "confirm_action", confirm)
    return state


def window_for(qtbot, tmp_path, engine):
    settings = Settings(runs_dir=tmp_path / "runs", safety="ask")
    window = MainWindow(engine, settings_loader=lambda: settings, history=TaskHistory(None),
                        hotkey_factory=FakeHotkey, close_timeout=3.0)
    qtbot.addWidget(window)
    window.show()
    return window


def test_the_question_shows_the_screen_with_the_box_and_point_of_the_action(qtbot, tmp_path, answers):
    engine = Engine((Click("Delete all"),))
    window = window_for(qtbot, tmp_path, engine)
    answers["choices"] = [ONCE]
    result = run_task(qtbot, window, "clear the list")
    assert result.outcome == "done" and len(engine.clicks()) == 1, result.reason
    (request, on_ui_thread), = answers["asked"]
    assert on_ui_thread and request.action == "click('Delete all')" and request.word == "delete"
    assert "Delete all" in request.reason and "(0, 200, 50, 220)" in request.target
    assert request.box == (0, 200, 50, 220) and request.point == (25, 210)
    assert request.image.getpixel(request.point) == (200, 0, 0)     # the screen the action was grounded on


def test_always_allows_that_kind_of_action_for_the_rest_of_the_run_only(qtbot, tmp_path, answers):
    engine = Engine((Click("Delete all"), Click("OK"), Click("Delete all"), Click("Send report")))
    window = window_for(qtbot, tmp_path, engine)
    answers["choices"] = [ALWAYS, DENY]
    result = run_task(qtbot, window, "clear the list and send the report")
    # asked for the first delete (Always), never for the second, then for "send" (a new kind): denied
    assert [r.action for r, _ in answers["asked"]] == ["click('Delete all')", "click('Send report')"]
    assert [r.word for r, _ in answers["asked"]] == ["delete", "send"]
    assert result.outcome == "refused" and "send" in result.reason.lower()
    assert len(engine.clicks()) == 3
    assert window.worker.approvals.words == ["delete"]

    engine.actions = (Click("Delete all"),)
    answers["choices"], answers["asked"] = [DENY], []
    again = run_task(qtbot, window, "clear the list")        # a new task asks again
    assert len(answers["asked"]) == 1 and again.outcome == "refused" and engine.clicks() == []


def test_always_for_a_secret_covers_other_password_fields(qtbot, tmp_path, answers):
    engine = Engine((Type("hunter2", into="Password"), Type("hunter3", into="Password")))
    window = window_for(qtbot, tmp_path, engine)
    answers["choices"] = [ALWAYS]
    result = run_task(qtbot, window, "log in")
    assert result.outcome == "done" and len(answers["asked"]) == 1
    assert answers["asked"][0][0].word == "secret"


def test_a_script_replacing_the_plain_question_still_answers(qtbot, tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(dialogs, "ask_confirmation", lambda parent, action, target, reason: seen.append(action) or True)
    engine = Engine((Click("Delete all"),))
    result = run_task(qtbot, window_for(qtbot, tmp_path, engine), "clear the list")
    assert seen == ["click('Delete all')"] and result.outcome == "done"


def shot() -> Image.Image:
    image = Image.new("RGB", (800, 500), "white")
    ImageDraw.Draw(image).rectangle([100, 100, 199, 129], fill=(200, 0, 0))
    return image


@pytest.mark.parametrize(("press", "expected"), [("once", ONCE), ("always", ALWAYS), ("deny", DENY),
                                                 ("escape", DENY)])
def test_the_dialog_draws_the_action_and_returns_the_choice(qtbot, press, expected):
    request = ConfirmRequest("click('Delete')", "the Delete button", "clicking 'Delete', which may delete",
                             shot(), (100, 100, 200, 130), (150, 115), "delete")
    seen = {}

    def answer():
        dialog = QApplication.activeModalWidget()
        seen["overlay"] = dialog.view.overlay
        seen["image"] = dialog.view.image
        seen["zoom"] = (dialog.zoom.image.size().toTuple(), dialog.zoom.overlay.box, dialog.zoom.overlay.point)
        seen["always"] = dialog.always_button.text()
        seen["default"] = dialog.deny_button.isDefault()
        if press == "escape":
            qtbot.keyClick(dialog, Qt.Key.Key_Escape)
        else:
            button = {"once": dialog.once_button, "always": dialog.always_button, "deny": dialog.deny_button}[press]
            qtbot.mouseClick(button, Qt.MouseButton.LeftButton)

    QTimer.singleShot(50, answer)
    assert dialogs.confirm_action(None, request) == expected
    assert seen["overlay"].box == (100, 100, 200, 130) and seen["overlay"].point == (150, 115)
    assert seen["image"].width() == 800 and seen["image"].pixelColor(150, 115).red() == 200
    assert "delete" in seen["always"] and seen["default"]
    # the close-up: the target with a margin around it, the box and point moved into it
    assert seen["zoom"] == ((196, 94), (48, 32, 148, 62), (98, 47))


def test_without_a_word_there_is_no_always(qtbot):
    dialog = ConfirmDialog(ConfirmRequest("hotkey('ctrl', 'q')"))
    qtbot.addWidget(dialog)
    assert not dialog.always_button.isEnabled() and dialog.view.image is None and dialog.zoom.isHidden()


def test_standing_approvals_match_like_the_allow_setting():
    approvals = StandingApprovals()
    assert not approvals.covers(Click("Delete all"), None, "task", None)
    approvals.add("delete")
    approvals.add("delete")
    assert approvals.words == ["delete"]
    assert approvals.covers(Click("Delete all"), None, "task", None)
    assert approvals.covers(Click("Delete the file"), None, "task", None)
    assert not approvals.covers(Click("Send report"), None, "task", None)
