"""The desktop app with a scripted engine, offscreen: widgets, worker thread, hooks, stop/pause.

The agent runs on a still screen with a scripted planner and a fake grounding ladder, so
every run is fast and exact; the app code under test is the real one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PIL import Image  # noqa: E402

from tests.support.requirements import require_module  # noqa: E402

require_module("PySide6")
require_module("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QDesktopServices  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from gui_agent.actions import AskUser, Click, Point, Type  # noqa: E402
from gui_agent.config import Settings  # noqa: E402
from gui_agent.geometry import Box  # noqa: E402
from gui_agent.screen.observation import MonitorGeometry, Observation  # noqa: E402
from tests.support.ui_fakes import FakeHotkey, ScriptedEngine, run_task  # noqa: E402
from ui import dialogs  # noqa: E402
from ui.keep_out import KEEP_OUT_FILL, GuardedController, paint_out  # noqa: E402
from ui.main_window import MainWindow  # noqa: E402
from ui.task_history import TaskHistory  # noqa: E402


@pytest.fixture
def make_window(qtbot, tmp_path):
    FakeHotkey.made = []

    def make(engine, *, safety="allow", max_steps=30, history=None, dry_run=False):
        settings = Settings(runs_dir=tmp_path / "runs", safety=safety, max_steps=max_steps)
        window = MainWindow(engine, settings_loader=lambda: settings,
                            history=history or TaskHistory(tmp_path / "history.json"),
                            hotkey_factory=FakeHotkey, close_timeout=3.0)
        qtbot.addWidget(window)
        window.show()
        window.dry_run_box.setChecked(dry_run)
        return window

    return make


def test_run_fills_the_step_log_the_live_view_and_the_status_bar(qtbot, make_window):
    engine = ScriptedEngine((Click("OK"), Type("Ann", into="Name")))
    window = make_window(engine)
    seen = []
    window.worker.targeted.connect(lambda info: seen.append(window.live_view.overlay))
    result = run_task(qtbot, window, "click OK then type Ann")
    assert result.outcome == "done"
    assert [r.step.action for r in window.step_model.rows] == ["click('OK')", "type('Ann', into='Name')"]
    model = window.step_model
    assert model.data(model.index(0, 3)) == "ok" and model.data(model.index(0, 4)) == "ocr"
    assert model.data(model.index(0, 5)).endswith(" s")
    assert not model.data(model.index(0, 0), Qt.ItemDataRole.DecorationRole).isNull()
    # the overlay showed the chosen box and its centre before each action
    assert seen[0].box == (10, 10, 50, 30) and seen[0].point == (30, 20)
    assert seen[1].box == (100, 100, 180, 120) and "next: type" in seen[1].label
    assert window.live_view.image is not None
    assert window.following and window.live_title.text() == "Live view"  # no step was picked
    assert window.outcome_label.text().startswith("Done — 2 steps")
    assert window.run_dir is not None and (window.run_dir / "run.json").exists()
    assert window.run_dir.name in window.folder_label.text()
    assert not window.pause_button.isEnabled() and not window.stop_button.isEnabled()
    assert window.run_button.isEnabled()


def test_selecting_a_step_shows_its_before_screen_and_target(qtbot, make_window):
    window = make_window(ScriptedEngine((Click("OK"), Click("Name"))))
    run_task(qtbot, window, "click OK then Name")
    window.step_view.selectRow(0)
    assert not window.following and window.back_to_live.isVisible()
    assert window.live_view.overlay.box == (10, 10, 50, 30)
    assert window.live_title.text() == "Step 1 — before"
    image = window.live_view.image
    assert image.pixelColor(int(10 * image.width() / window.step_model.row_at(0).source_size[0]),
                            20).name() == "#000000"  # the black rectangle of the still screen
    window.step_view.selectRow(1)
    assert window.live_view.overlay.point == (140, 110)
    qtbot.mouseClick(window.back_to_live, Qt.MouseButton.LeftButton)
    assert window.following and not window.back_to_live.isVisible()


def test_a_real_run_hides_the_window_and_shows_the_panel_then_comes_back(qtbot, make_window):
    window = make_window(ScriptedEngine(forever=True), max_steps=3)
    window.task_box.setText("wait a little")
    window.start_run()
    assert not window.isVisible() and window.panel.isVisible()
    qtbot.waitUntil(lambda: window.step_model.rowCount() >= 1, timeout=3000)
    assert FakeHotkey.made and FakeHotkey.made[-1].combination == "<ctrl>+<alt>+<esc>"
    assert window.panel.step_label.text().startswith("Step ")
    assert FakeHotkey.made[-1].active  # the stop hotkey listens while the run is active
    qtbot.waitUntil(lambda: window.last_result is not None, timeout=5000)
    assert window.isVisible() and not window.panel.isVisible()
    assert not FakeHotkey.made[-1].active
    assert window.last_result.outcome == "failed" and "step limit" in window.last_result.reason


def test_the_panel_is_painted_out_of_what_the_agent_sees_and_never_clicked(qtbot, make_window):
    engine = ScriptedEngine()
    window = make_window(engine)
    panel_box = window.panel.placement(window.screen())
    inside = Point(panel_box.center().x(), panel_box.center().y())
    engine.actions = (Click(inside),)
    seen = []
    window.worker.targeted.connect(lambda info: seen.append(info.image))
    result = run_task(qtbot, window, "click the panel")
    keep_out = engine.requests[0].keep_out[0]
    assert (keep_out.left, keep_out.top, keep_out.width, keep_out.height) == (
        panel_box.x(), panel_box.y(), panel_box.width(), panel_box.height())
    assert seen[0].getpixel((inside.x, inside.y)) == KEEP_OUT_FILL
    assert seen[0].getpixel((keep_out.left - 2, keep_out.top - 2)) == (255, 255, 255)
    assert result.outcome == "refused" and "status panel" in result.reason
    assert engine.agents[0].desktop.inner.controller.calls("click") == []
    assert window.panel.clicks == 0


def test_stop_halts_a_long_run_within_half_a_second(qtbot, make_window):
    window = make_window(ScriptedEngine(forever=True), max_steps=1000)
    window.task_box.setText("wait for ever")
    window.start_run()
    qtbot.waitUntil(lambda: window.step_model.rowCount() >= 2, timeout=3000)
    started = time.monotonic()
    qtbot.mouseClick(window.panel.stop_button, Qt.MouseButton.LeftButton)
    assert window.worker.wait(0.5), "the run did not stop within 0.5 s"
    assert time.monotonic() - started < 0.5
    qtbot.waitUntil(lambda: window.last_result is not None, timeout=2000)
    assert window.last_result.outcome == "stopped"
    assert window.outcome_label.text().startswith("Stopped")


def test_the_stop_hotkey_stops_the_run(qtbot, make_window):
    window = make_window(ScriptedEngine(forever=True), max_steps=1000, dry_run=True)
    window.task_box.setText("wait for ever")
    window.start_run()
    qtbot.waitUntil(lambda: window.step_model.rowCount() >= 1, timeout=3000)
    threading.Thread(target=FakeHotkey.made[-1].on_stop).start()  # pynput calls from its thread
    assert window.worker.wait(10), "the stop hotkey did not end the run"
    qtbot.waitUntil(lambda: window.last_result is not None, timeout=2000)
    assert window.last_result.outcome == "stopped"


def test_pause_holds_the_run_and_resume_continues_it(qtbot, make_window):
    window = make_window(ScriptedEngine(forever=True), max_steps=1000, dry_run=True)
    window.task_box.setText("wait for ever")
    window.start_run()
    assert window.isVisible()  # a dry run keeps the window
    qtbot.waitUntil(lambda: window.step_model.rowCount() >= 1, timeout=3000)
    qtbot.mouseClick(window.pause_button, Qt.MouseButton.LeftButton)
    assert window.pause_button.text() == "Resume"
    qtbot.waitUntil(lambda: _parked_in_pause(window.worker._thread), timeout=10000)  # step done
    QApplication.processEvents()   # its row, signalled before it parked
    paused_at = window.step_model.rowCount()
    qtbot.wait(700)                # a while paused (a running agent makes a step per 0.2 s)
    assert window.step_model.rowCount() == paused_at and window.worker.running
    qtbot.mouseClick(window.pause_button, Qt.MouseButton.LeftButton)
    assert window.pause_button.text() == "Pause"
    qtbot.waitUntil(lambda: window.step_model.rowCount() > paused_at, timeout=2000)
    qtbot.mouseClick(window.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.last_result is not None, timeout=2000)


def _parked_in_pause(thread: threading.Thread | None) -> bool:
    """True while ``thread`` waits in the agent's pause loop (the step in flight is over)."""
    frame = sys._current_frames().get(thread.ident) if thread is not None else None
    while frame is not None:
        if frame.f_code.co_name == "wait_while_paused":
            return True
        frame = frame.f_back
    return False


@pytest.mark.parametrize("allow", [True, False])
def test_ask_mode_goes_through_the_confirm_dialog(qtbot, make_window, monkeypatch, allow):
    asked = []

    def answer(parent, action, target, reason):
        asked.append((action, target, reason, threading.current_thread() is threading.main_thread()))
        return allow

    monkeypatch.setattr(dialogs, "ask_confirmation", answer)
    engine = ScriptedEngine((Click("Delete all"),))
    window = make_window(engine, safety="ask")
    result = run_task(qtbot, window, "delete all")
    assert len(asked) == 1
    action, target, reason, on_ui_thread = asked[0]
    assert action == "click('Delete all')" and "delete" in reason.lower() and on_ui_thread
    clicks = engine.agents[0].desktop.inner.controller.calls("click")
    if allow:
        assert result.outcome == "done" and len(clicks) == 1
    else:
        assert result.outcome == "refused" and clicks == []


def test_ask_user_goes_through_the_input_dialog(qtbot, make_window, monkeypatch):
    questions = []
    monkeypatch.setattr(dialogs, "ask_text", lambda parent, q: questions.append(q) or "report.txt")
    window = make_window(ScriptedEngine((AskUser("Which file?"), Click("OK"))))
    result = run_task(qtbot, window, "open a file")
    assert questions == ["Which file?"] and result.outcome == "done"


def test_an_unanswered_question_fails_the_run_with_it(qtbot, make_window, monkeypatch):
    monkeypatch.setattr(dialogs, "ask_text", lambda parent, q: None)
    window = make_window(ScriptedEngine((AskUser("Which file?"),)))
    result = run_task(qtbot, window, "open a file")
    assert result.outcome == "failed" and "Which file?" in window.outcome_label.text()


def test_closing_the_window_during_a_run_stops_it_cleanly(qtbot, make_window):
    window = make_window(ScriptedEngine(forever=True), max_steps=1000, dry_run=True)
    window.task_box.setText("wait for ever")
    window.start_run()
    qtbot.waitUntil(lambda: window.step_model.rowCount() >= 1, timeout=3000)
    thread = window.worker._thread
    window.close()
    assert not thread.is_alive()   # close() waited for the run to end
    qtbot.waitUntil(lambda: window.last_result is not None, timeout=2000)
    assert window.last_result.outcome == "stopped"
    assert not window.isVisible() and not window.panel.isVisible()
    assert not FakeHotkey.made[-1].active


def test_task_history_is_kept_and_walked_with_up_and_down(qtbot, make_window, tmp_path):
    history_file = tmp_path / "tasks.json"
    window = make_window(ScriptedEngine((Click("OK"),)), history=TaskHistory(history_file),
                         dry_run=True)
    run_task(qtbot, window, "click OK")
    run_task(qtbot, window, "click OK again")
    again = make_window(ScriptedEngine(), history=TaskHistory(history_file))
    box = again.task_box
    assert box.history == ["click OK again", "click OK"]
    assert box.completer().model().stringList() == ["click OK again", "click OK"]
    box.setText("draft")
    box.setFocus()
    qtbot.keyClick(box, Qt.Key.Key_Up)
    assert box.text() == "click OK again"
    qtbot.keyClick(box, Qt.Key.Key_Up)
    qtbot.keyClick(box, Qt.Key.Key_Up)
    assert box.text() == "click OK"
    qtbot.keyClick(box, Qt.Key.Key_Down)
    assert box.text() == "click OK again"
    qtbot.keyClick(box, Qt.Key.Key_Down)
    assert box.text() == "draft"


def test_the_run_folder_link_opens_the_folder(qtbot, make_window, monkeypatch):
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    window = make_window(ScriptedEngine((Click("OK"),)), dry_run=True)
    run_task(qtbot, window, "click OK")
    window.folder_label.linkActivated.emit("ignored")
    assert opened and opened[0].toLocalFile() == str(window.run_dir)


def test_an_empty_task_or_bad_settings_start_nothing(qtbot, make_window, monkeypatch):
    engine = ScriptedEngine((Click("OK"),))
    window = make_window(engine)
    assert not window.start_run() and window.outcome_label.text() == "Type a task first."
    errors = []
    monkeypatch.setattr("ui.main_window.QMessageBox.critical",
                        lambda parent, title, text: errors.append(text))

    def bad_settings():
        raise ValueError("safety must be one of ask, refuse, allow")

    window.settings_loader = bad_settings
    window.task_box.setText("click OK")
    assert not window.start_run() and "safety must be" in errors[0]
    assert engine.agents == [] and window.isVisible()


def test_a_crashing_engine_ends_the_run_with_an_error_and_restores_the_window(qtbot, make_window):
    def broken(request, hooks, control, wrap):
        raise RuntimeError("the model folder is missing")

    window = make_window(broken)
    result = run_task(qtbot, window, "anything")
    assert result.outcome == "error" and "model folder is missing" in result.reason
    assert window.isVisible() and window.run_button.isEnabled()


def test_paint_out_maps_screen_rectangles_to_image_pixels():
    image = Image.new("RGB", (200, 100), "white")
    obs = Observation(image, MonitorGeometry(1000, 0, 100, 50, 2.0, 2))  # HiDPI, second monitor
    out = paint_out(obs, [Box(1090, 40, 50, 50), Box(0, 0, 10, 10)])
    assert out.image.getpixel((185, 85)) == KEEP_OUT_FILL and out.image.getpixel((175, 75)) == (255, 255, 255)
    assert obs.image.getpixel((185, 85)) == (255, 255, 255)  # the original is untouched
    assert paint_out(obs, [Box(0, 0, 10, 10)]) is obs


def test_the_guarded_controller_refuses_input_inside_and_passes_the_rest():
    from gui_agent.control.dry_run import DryRunController
    from gui_agent.errors import SafetyRefusal

    inner = DryRunController()
    guard = GuardedController(inner, [Box(100, 100, 50, 50)])
    guard.click(Point(99, 120))
    guard.type_text("hi")
    for call in (lambda: guard.click(Point(100, 100)), lambda: guard.move(Point(149, 149)),
                 lambda: guard.drag(Point(0, 0), Point(120, 120)),
                 lambda: guard.scroll("down", 3, Point(110, 110))):
        with pytest.raises(SafetyRefusal):
            call()
    assert [e.method for e in inner.log] == ["click", "type_text"]


def test_the_window_opens_without_importing_the_engine():
    code = ("import sys; from PySide6.QtWidgets import QApplication; app = QApplication([]);"
            "from ui.main_window import MainWindow; from ui.task_history import TaskHistory;"
            "w = MainWindow(history=TaskHistory(None)); w.show(); app.processEvents();"
            "heavy = ('gui_agent.agent', 'gui_agent.grounding.default', 'onnxruntime',"
            " 'rapidocr_onnxruntime', 'cv2', 'numpy', 'pyautogui', 'pynput');"
            "print(sorted(m for m in heavy if m in sys.modules))")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize(("press", "expected"), [("Allow once", True), ("Escape", False)])
def test_the_confirm_dialog_shows_action_and_reason_and_denies_on_escape(qtbot, press, expected):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    shown = []

    def answer():
        box = QApplication.activeModalWidget()
        shown.append(box.text() + "\n" + box.informativeText())
        if press == "Escape":
            qtbot.keyClick(box, Qt.Key.Key_Escape)
        else:
            next(b for b in box.buttons() if b.text() == press).click()

    QTimer.singleShot(100, answer)
    allowed = dialogs.ask_confirmation(None, "click('Delete')", "the Delete button", "it deletes")
    assert allowed is expected
    assert "click('Delete')" in shown[0] and "it deletes" in shown[0] and "Delete button" in shown[0]


def test_a_skill_run_from_the_library_is_replayed_by_the_engine(qtbot, make_window, tmp_path):
    from gui_agent.memory.experience import ExperienceMemory
    from gui_agent.memory.models import Skill, SkillParameter, SkillStep
    from gui_agent.memory.store import MemoryStore

    store = MemoryStore(tmp_path / "lib.sqlite3")
    store.save_skill(Skill("fill name", (SkillStep("click('OK')", target="OK"),
                                         SkillStep("type('{name}', into='Name')", target="Name")),
                           parameters=(SkillParameter("name"),)))
    engine = ScriptedEngine()

    def with_memory(request, hooks, control, wrap):
        return engine(request, hooks, control, wrap, memory=ExperienceMemory(store))

    window = make_window(with_memory)
    with qtbot.waitSignal(window.worker.finished, timeout=5000):
        window.panels.run_skill_requested.emit("fill name", {"name": "Zoë"})
    qtbot.waitUntil(lambda: window.last_result is not None, timeout=5000)
    result = window.last_result
    assert result.outcome == "done" and result.skill == "fill name", result.reason
    assert engine.requests[0].skill == "fill name" and dict(engine.requests[0].params) == {"name": "Zoë"}
    assert [r.step.action for r in window.step_model.rows] == ["click('OK')", "type('Zoë', into='Name')"]
    assert window.task_box.text() == ""   # the task box and its history are left alone
    assert "fill name" in window.plan_label.text() and "skill" in window.outcome_label.text()
