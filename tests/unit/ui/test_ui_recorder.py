"""Recording a skill from the app, offscreen: Record → countdown → the recording indicator (the
window out of the way) → Stop → a real compile (OCR) of a prepared demonstration in a worker
thread → review (name, example, parameter names renamed in the steps) → saved in the store →
shown in the skill library and replayable. The recorder is a fake that writes the demonstration
folder the way the real one does; the click on the indicator's Stop never reaches the skill."""

from __future__ import annotations

import json
import os
import threading

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from tests.support.requirements import require_module  # noqa: E402

require_module("PySide6")
require_module("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from gui_agent.config import Settings  # noqa: E402
from gui_agent.errors import ConfigError  # noqa: E402
from gui_agent.geometry import Box  # noqa: E402
from gui_agent.memory import MemoryStore, Skill, SkillStep  # noqa: E402
from gui_agent.recording import compile_demo, load_demo  # noqa: E402
from gui_agent.recording.events import DemoEvent  # noqa: E402
from tests.support.login_demo import write_demo  # noqa: E402
from tests.support.ui_fakes import FakeHotkey, ScriptedEngine  # noqa: E402
from ui import recorder_flow  # noqa: E402
from ui.main_window import MainWindow  # noqa: E402
from ui.recording_job import APP_STOP, drop_events_inside  # noqa: E402
from ui.skill_forms import NAME, RunSkillDialog  # noqa: E402
from ui.task_history import TaskHistory  # noqa: E402


class FakeRecorder:
    """Stands in for gui_agent.recording.Recorder: start() writes the prepared demonstration
    (a login form), stop()/wait() as the real one; finish() appends the clicks heard on the
    screen in ``clicks`` (the person pressing the indicator's Stop, say) and loads the folder."""

    made: list[FakeRecorder] = []

    def __init__(self, folder, name, settings) -> None:
        self.folder, self.name, self.settings = folder, name, settings
        self.stopped = threading.Event()
        self.stop_reason: str | None = None
        self.started = False
        self.clicks: list[tuple[int, int]] = []
        self.finish_error: Exception | None = None
        self.errors: list[str] = []
        self.stop_boxes: tuple = ()
        FakeRecorder.made.append(self)

    def start(self) -> None:
        write_demo(self.folder)
        self.started = True

    def stop(self, reason: str = "stopped") -> None:
        if not self.stopped.is_set():
            self.stop_reason = reason
            self.stopped.set()

    def stop_at_press(self, reason: str, boxes, timeout: float = 1.0) -> None:
        self.stop_boxes = tuple(boxes)
        self.stop(reason)

    def wait(self, timeout: float | None = None) -> bool:
        return self.stopped.wait(timeout)

    def finish(self):
        if self.finish_error is not None:
            raise self.finish_error
        with (self.folder / "events.jsonl").open("a", encoding="utf-8") as f:
            for n, point in enumerate(self.clicks, 8):
                event = DemoEvent("click", 5.0 + n, 5.1 + n, point=point, button="left",
                                  before="0007-before.png", after="0007-before.png", index=n)
                f.write(json.dumps(event.to_json()) + "\n")
        return load_demo(self.folder)


@pytest.fixture(scope="module")
def parser():
    """The real screen parser (OCR), loaded once for the module."""
    from gui_agent.parsing.screen_parser import ScreenParser

    return ScreenParser()


@pytest.fixture
def errors(monkeypatch):
    shown: list[str] = []
    monkeypatch.setattr(recorder_flow, "show_error", lambda parent, text: shown.append(text))
    return shown


@pytest.fixture
def app(qtbot, tmp_path, parser, errors):
    """(window, engine) with the recorder flow wired to the fake recorder and a real compile."""
    from gui_agent.memory.experience import ExperienceMemory

    FakeRecorder.made = []
    store_path = tmp_path / "m.sqlite3"
    settings = Settings(runs_dir=tmp_path / "runs", safety="allow", memory_path=store_path, settle_timeout=0.2)
    engine = ScriptedEngine()

    def factory(request, hooks, control, wrap):
        return engine(request, hooks, control, wrap, memory=ExperienceMemory(MemoryStore(store_path)))

    window = MainWindow(factory, settings_loader=lambda: settings, history=TaskHistory(None),
                        hotkey_factory=FakeHotkey, close_timeout=3.0)
    qtbot.addWidget(window)
    window.show()
    flow = window.recorder
    flow.job.recorder_factory = FakeRecorder
    flow.job.compiler = lambda demo, name: compile_demo(demo, name=name, parser=parser)
    flow.folder_for = lambda name: tmp_path / f"demo-{len(FakeRecorder.made)}"
    flow.countdown = 0
    yield window, engine
    flow.job.stop()
    # no compile thread (OCR) may outlive its window: it would signal a deleted object
    assert flow.job.wait(120), "the recording job did not end"
    window.close()


def centre(box: Box) -> tuple[int, int]:
    return box.left + box.width // 2, box.top + box.height // 2


def record_until_listening(qtbot, window) -> FakeRecorder:
    flow = window.recorder
    qtbot.mouseClick(window.record_button, Qt.MouseButton.LeftButton)
    assert not window.isVisible() and flow.indicator.isVisible()
    qtbot.waitUntil(lambda: bool(FakeRecorder.made) and FakeRecorder.made[-1].started, timeout=3000)
    qtbot.waitUntil(lambda: "Do the task now" in flow.indicator.step_label.text(), timeout=3000)
    assert "Recording" in flow.indicator.title.text() and "Ctrl+Alt+Esc" in flow.indicator.title.text()
    return FakeRecorder.made[-1]


def test_record_stop_review_save_and_replay_from_the_library(qtbot, app, tmp_path):
    window, engine = app
    flow = window.recorder
    recorder = record_until_listening(qtbot, window)
    assert flow.state == "recording" and recorder.settings.stop_hotkey == "<ctrl>+<alt>+<esc>"
    stop_at = centre(flow.indicator.screen_box())
    recorder.clicks = [stop_at]                     # the press on Stop is heard by the global listener
    qtbot.mousePress(flow.indicator.stop_button, Qt.MouseButton.LeftButton)
    assert recorder.stop_reason == APP_STOP         # stopped on the press, before the release
    assert recorder.stop_boxes == (flow.indicator.screen_box(),)   # ... as the listener hears it there
    qtbot.mouseRelease(flow.indicator.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: flow.state == "review", timeout=60000)
    assert window.isVisible() and not flow.indicator.isVisible()
    review = flow.review
    assert review.isVisible()
    steps = review.steps_label.text().splitlines()
    assert steps[0] == "1. type('{username}', into='the Username field')" and len(steps) == 5
    saved_events = [json.loads(line) for line in (recorder.folder / "events.jsonl").read_text().splitlines()]
    assert len(saved_events) == 7 and all(e.get("point") != list(stop_at) for e in saved_events)

    review.set_name("acme login")
    review.example.setText("log in to Acme as ann")
    row = next(r for r in range(review.table.rowCount()) if review.table.item(r, NAME).text() == "username")
    review.set_cell(row, NAME, "user")
    assert review.steps_label.text().splitlines()[0] == "1. type('{user}', into='the Username field')"
    qtbot.mouseClick(review.save_button, Qt.MouseButton.LeftButton)
    assert not review.isVisible() and flow.state == "idle"
    assert "acme login" in window.outcome_label.text()

    with MemoryStore(tmp_path / "m.sqlite3") as store:
        skill = store.require_skill("acme login")
        assert skill.source == "recorded" and skill.examples[0] == "log in to Acme as ann"
        assert [p.name for p in skill.parameters] == ["user", "secret_password"]
        assert skill.steps[0].action == "type('{user}', into='the Username field')"
        assert store.shot_path(skill.steps[0].crop).is_file()     # the crop was copied into the store
    library = window.panels.skill_library
    qtbot.waitUntil(lambda: library.isVisible() and library.selected_name() == "acme login", timeout=3000)

    form = library.run_selected()                   # replayable from the library
    assert isinstance(form, RunSkillDialog)
    form.set_value("secret_password", "pw")
    with qtbot.waitSignal(window.worker.finished, timeout=60000):
        qtbot.mouseClick(form.run_button, Qt.MouseButton.LeftButton)
    request = engine.requests[-1]
    assert request.skill == "acme login" and dict(request.params) == {"user": "ann", "secret_password": "pw"}


def test_the_countdown_comes_first_and_stop_cancels_it(qtbot, app):
    window, _ = app
    flow = window.recorder
    flow.countdown, flow.tick_ms = 2, 150
    qtbot.mouseClick(window.record_button, Qt.MouseButton.LeftButton)
    assert flow.state == "countdown" and flow.indicator.step_label.text() == "Recording starts in 2…"
    assert FakeRecorder.made == [] and not window.isVisible()
    qtbot.mouseClick(flow.indicator.stop_button, Qt.MouseButton.LeftButton)
    assert flow.state == "idle" and window.isVisible() and not flow.indicator.isVisible()
    assert window.outcome_label.text() == "Recording cancelled."
    qtbot.wait(450)
    assert FakeRecorder.made == []                  # the cancelled countdown never started one

    qtbot.mouseClick(window.record_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: flow.indicator.step_label.text() == "Recording starts in 1…", timeout=1000)
    assert FakeRecorder.made == []
    qtbot.waitUntil(lambda: bool(FakeRecorder.made) and FakeRecorder.made[-1].started, timeout=3000)
    FakeRecorder.made[-1].stop("stop hotkey")       # the recorder's own stop hotkey
    qtbot.waitUntil(lambda: flow.state == "review", timeout=60000)
    assert flow.review.isVisible() and window.isVisible() and not flow.indicator.isVisible()
    flow.review.reject()                            # not saved
    assert flow.state == "idle" and "not saved" in window.outcome_label.text()
    with MemoryStore(window.settings_loader().memory_path) as store:
        assert store.list_skills(include_flagged=True) == []


def test_a_failed_recording_is_reported_and_the_window_comes_back(qtbot, app, errors):
    window, _ = app
    flow = window.recorder
    recorder = record_until_listening(qtbot, window)
    recorder.finish_error = ConfigError("nothing was recorded (stopped in the app)")
    qtbot.mouseClick(flow.indicator.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: flow.state == "idle", timeout=5000)
    assert window.isVisible() and "nothing was recorded" in errors[-1]
    assert "The recording failed" in window.outcome_label.text()
    assert flow.start()                             # ready for another go
    flow.stop()


def test_a_taken_name_is_shown_in_the_review_which_stays_open(qtbot, app):
    window, _ = app
    flow = window.recorder
    with MemoryStore(window.settings_loader().memory_path) as store:
        store.save_skill(Skill("acme login", (SkillStep("click('OK')"),)))
    record_until_listening(qtbot, window)
    flow.stop()
    qtbot.waitUntil(lambda: flow.state == "review", timeout=60000)
    flow.review.set_name("acme login")
    assert not flow.review.save()
    assert flow.review.isVisible() and "acme login" in flow.review.error.text()
    flow.review.set_name("acme login 2")
    assert flow.review.save() and flow.state == "idle"


def test_no_recording_during_a_run_and_closing_stops_a_recording(qtbot, app):
    window, _ = app
    flow = window.recorder
    recorder = record_until_listening(qtbot, window)
    assert not flow.start()                         # one recording at a time
    window.close()
    assert recorder.stopped.is_set() and not flow.job.running and not flow.indicator.isVisible()


def test_events_on_the_indicator_are_dropped_and_the_folder_rewritten(tmp_path):
    folder = write_demo(tmp_path / "demo")
    indicator = Box(580, 320, 60, 40)
    with (folder / "events.jsonl").open("a") as f:
        for n, (kind, extra) in enumerate((("click", {"point": [600, 340]}),
                                           ("drag", {"point": [10, 10], "end_point": [590, 330]}),
                                           ("click", {"point": [579, 340]})), 8):
            f.write(json.dumps({"index": n, "kind": kind, "t": n, "end": n, "button": "left", **extra}) + "\n")
    demo = drop_events_inside(load_demo(folder), [indicator])
    assert [e.index for e in demo.events] == [1, 2, 3, 4, 5, 6, 7, 10]
    again = load_demo(folder)
    assert [e.index for e in again.events] == [1, 2, 3, 4, 5, 6, 7, 10] and again.meta.events == 8
    assert drop_events_inside(again, [indicator]) is again

    only = write_demo(tmp_path / "only", parameters=())
    (only / "events.jsonl").write_text(json.dumps({"index": 1, "kind": "click", "t": 1, "end": 1,
                                                   "point": [600, 340], "button": "left"}) + "\n")
    with pytest.raises(ConfigError, match="nothing was recorded"):
        drop_events_inside(load_demo(only), [indicator])


def test_the_recording_indicator_is_red_and_its_title_fits(qtbot):
    """Regression: the indicator painted the status panel's grey, and the title was cut off."""
    from ui.recorder_flow import RecordingIndicator
    from ui.status_panel import StatusPanel

    for panel, colour in ((RecordingIndicator(), "#3b0d0f"), (StatusPanel(), "#1f2430")):
        qtbot.addWidget(panel)
        panel.set_hint("Ctrl+Alt+Esc")
        panel.show()
        qtbot.wait(20)
        assert panel.grab().toImage().pixelColor(5, 5).name() == colour
        assert panel.title.sizeHint().width() <= panel.title.width(), panel.title.text()


def test_review_renames_a_parameter_everywhere_and_keeps_a_secret_secret(qtbot):
    """Regression: a renamed parameter stayed as {old} in the description and step texts, a
    secret parameter lost its flag, and the automatic example stayed beside the typed one."""
    from gui_agent.memory import SkillParameter
    from ui.recording_review import RecordingReview

    skill = Skill("recording 1", (SkillStep("type('{text}', into='the Note field')", target="the Note field",
                                            post_text="Saved {text}"),
                                  SkillStep("type('{secret_password}', into='the Password field')")),
                  description="Type {text} into the Note field", examples=("recording 1",),
                  parameters=(SkillParameter("text", default="hi"),
                              SkillParameter("secret_password", secret=True)))
    saved = []
    review = RecordingReview(skill, saved.append)
    qtbot.addWidget(review)
    review.table.item(0, NAME).setText("note")
    review.example.setText("write a note saying hi")
    built = review.build()
    assert built.description == "Type {note} into the Note field"
    assert built.steps[0].action == "type('{note}', into='the Note field')"
    assert built.steps[0].post_text == "Saved {note}"
    assert [p.secret for p in built.parameters] == [False, True]
    assert built.examples == ("write a note saying hi",)
