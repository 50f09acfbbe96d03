"""Recording without a display: coalescing raw input, the injection marker, the frame buffer,
pynput key mapping, and the demonstration folder (round trip and validation errors)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image

from gui_agent.control import injection
from gui_agent.errors import ConfigError
from gui_agent.recording.coalesce import Coalescer
from gui_agent.recording.demo_folder import DemoMeta, DemoParameter, DemoWriter, load_demo
from gui_agent.recording.events import DemoEvent, RawEvent
from gui_agent.recording.frames import FrameBuffer
from gui_agent.recording.listener import InputListener, key_fields
from gui_agent.screen.observation import Observation


class Stream:
    """Builds raw events with increasing times and feeds them to a coalescer."""

    def __init__(self, **options) -> None:
        self.c = Coalescer(stop_hotkey="<ctrl>+<alt>+<esc>", **options)
        self.t = 1000.0
        self.out: list[DemoEvent] = []

    def feed(self, kind: str, gap: float = 0.05, **fields) -> None:
        self.t += gap
        self.out += self.c.feed(RawEvent(kind, self.t, **fields))

    def keys(self, text: str) -> None:
        for ch in text:
            self.feed("key_down", char=ch, code=ch.lower(), before=f"b{ch}", after=f"a{ch}")
            self.feed("key_up", char=ch, code=ch.lower(), after=f"u{ch}")

    def key(self, name: str, **fields) -> None:
        self.feed("key_down", key=name, **fields)
        self.feed("key_up", key=name, **fields)

    def click(self, x: int, y: int, button: str = "left", gap: float = 0.05, **fields) -> None:
        self.feed("press", gap, x=x, y=y, button=button, before=f"before{x},{y}", **fields)
        self.feed("release", 0.03, x=x, y=y, button=button, after=f"after{x},{y}", **fields)

    def done(self) -> list[DemoEvent]:
        return self.out + self.c.flush()


def kinds(events: list[DemoEvent]) -> list[str]:
    return [e.kind for e in events]


def test_typed_characters_become_one_type_event_with_its_frames() -> None:
    s = Stream()
    s.feed("key_down", key="shift")
    s.keys("H")
    s.feed("key_up", key="shift")
    s.keys("i there!")
    events = s.done()
    assert kinds(events) == ["type"] and events[0].text == "Hi there!"
    assert events[0].before == "bH" and events[0].after == "u!"   # before the first key, after the last


def test_backspace_edits_pending_text_and_is_a_key_otherwise() -> None:
    s = Stream()
    s.key("backspace")
    s.keys("cart")
    s.key("backspace")
    s.key("backspace")
    s.keys("r")
    events = s.done()
    assert kinds(events) == ["key", "type"]
    assert events[0].keys == ("backspace",) and events[1].text == "car"


def test_enter_and_tab_end_the_text_and_are_recorded() -> None:
    s = Stream()
    s.keys("ann")
    s.key("tab")
    s.keys("lee")
    s.key("enter")
    events = s.done()
    assert [(e.kind, e.text or e.keys) for e in events] == [
        ("type", "ann"), ("key", ("tab",)), ("type", "lee"), ("key", ("enter",))]


def test_modifier_combinations_are_hotkeys() -> None:
    s = Stream()
    s.keys("ab")
    s.feed("key_down", key="ctrl")
    s.feed("key_down", char="a", code="a")              # X11: the plain letter
    s.feed("key_up", char="a", code="a")
    s.feed("key_down", char="\x13", code="s")           # Windows: a control character
    s.feed("key_up", char="\x13", code="s")
    s.feed("key_up", key="ctrl")
    s.feed("key_down", key="shift")
    s.key("tab")
    s.feed("key_up", key="shift")
    s.feed("key_down", key="shift")
    s.keys("X")                                          # Shift + a letter is typing
    s.feed("key_up", key="shift")
    events = s.done()
    assert [(e.kind, e.text or e.keys) for e in events] == [
        ("type", "ab"), ("hotkey", ("ctrl", "a")), ("hotkey", ("ctrl", "s")),
        ("hotkey", ("shift", "tab")), ("type", "X")]


def test_double_and_triple_clicks_need_time_and_place() -> None:
    s = Stream()
    s.click(100, 100)
    s.click(102, 101, gap=0.1)          # within 0.5 s and 4 px: a double click
    s.click(400, 100, gap=1.0)
    s.click(400, 100, gap=0.1)
    s.click(401, 100, gap=0.1)          # a triple click
    s.click(700, 100, gap=1.0)
    s.click(720, 100, gap=0.1)          # too far: two clicks
    s.click(900, 100, gap=1.0)
    s.click(900, 100, gap=0.9)          # too slow: two clicks
    events = s.done()
    assert [(e.point, e.clicks) for e in events] == [
        ((100, 100), 2), ((400, 100), 3), ((700, 100), 1), ((720, 100), 1), ((900, 100), 1),
        ((900, 100), 1)]
    assert events[0].before == "before100,100" and events[0].after == "after102,101"


def test_press_move_release_beyond_five_pixels_is_a_drag() -> None:
    s = Stream()
    s.feed("press", x=100, y=100, button="left")
    s.feed("move", x=103, y=101)
    s.feed("release", x=103, y=101, button="left")      # jitter: still a click
    s.feed("press", gap=1.0, x=200, y=200, button="left")
    for x in range(205, 320, 15):
        s.feed("move", 0.01, x=x, y=210)
    s.feed("release", x=310, y=210, button="left")
    s.feed("press", gap=1.0, x=500, y=500, button="left")
    s.feed("move", x=540, y=500)
    s.feed("release", x=501, y=500, button="left")      # went away and came back: a drag
    events = s.done()
    assert [(e.kind, e.point, e.end_point) for e in events] == [
        ("click", (100, 100), None), ("drag", (200, 200), (310, 210)), ("drag", (500, 500), (501, 500))]


def test_scroll_runs_add_up_at_one_place_and_direction() -> None:
    s = Stream()
    for _ in range(3):
        s.feed("scroll", 0.1, x=300, y=300, dy=-1, before="sb", after="sa")
    s.feed("scroll", 0.1, x=302, y=301, dy=-2)
    s.feed("scroll", 0.1, x=300, y=300, dy=1)           # the other way: a new run
    s.feed("scroll", 0.1, x=600, y=300, dy=1)           # another place: a new run
    s.feed("scroll", 2.0, x=600, y=300, dy=1)           # after a pause: a new run
    s.feed("scroll", 0.1, x=600, y=300, dx=1)
    events = s.done()
    assert [(e.direction, e.amount, e.point) for e in events] == [
        ("down", 5, (300, 300)), ("up", 1, (300, 300)), ("up", 1, (600, 300)), ("up", 1, (600, 300)),
        ("right", 1, (600, 300))]
    assert events[0].before == "sb"


def test_stop_hotkey_ends_recording_and_is_not_recorded() -> None:
    s = Stream()
    s.keys("ok")
    s.feed("key_down", key="ctrl")
    s.feed("key_down", key="alt")
    s.feed("key_down", key="esc")
    assert s.c.stopped
    s.feed("key_up", key="esc")
    s.click(10, 10)                                      # after the stop: ignored
    events = s.done()
    assert [(e.kind, e.text) for e in events] == [("type", "ok")]


def test_injected_events_and_their_releases_are_ignored() -> None:
    s = Stream()
    s.feed("press", x=50, y=50, button="left", injected=True)
    s.feed("release", x=50, y=50, button="left")        # heard after the marker expired: still ours
    s.feed("key_down", char="z", code="z", injected=True)
    s.feed("key_up", char="z", code="z")
    s.feed("key_down", key="ctrl", injected=True)
    s.feed("key_down", char="v", code="v", injected=True)
    s.feed("key_up", char="v", code="v", injected=True)
    s.feed("key_up", key="ctrl", injected=True)
    s.feed("scroll", x=1, y=1, dy=-3, injected=True)
    s.keys("me")
    s.click(70, 70)
    events = s.done()
    assert [(e.kind, e.text, e.point) for e in events] == [("type", "me", None), ("click", None, (70, 70))]


def test_pending_click_is_due_after_the_double_click_interval() -> None:
    s = Stream()
    s.click(10, 10)
    assert s.c.due(s.t + 0.1) == []
    (event,) = s.c.due(s.t + 0.6)
    assert event.kind == "click" and s.c.flush() == []


def test_secret_hotkey_marks_the_typed_run() -> None:
    s = Stream(secret_hotkey="<ctrl>+<alt>+s")
    s.keys("visible")
    s.key("tab")
    s.feed("key_down", key="ctrl")
    s.feed("key_down", key="alt")
    s.keys("s")
    s.feed("key_up", key="alt")
    s.feed("key_up", key="ctrl")
    s.keys("hidden")
    events = s.done()
    assert [(e.text, e.secret) for e in events if e.kind == "type"] == [("visible", None), ("hidden", "text")]


# -- the injection marker ----------------------------------------------------------------
@pytest.fixture()
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setenv("DISPLAY", ":42")
    monkeypatch.setattr(injection, "_ended_at", 0.0)
    return tmp_path


def test_injecting_marks_this_process_and_a_grace_period(runtime: Path, monkeypatch) -> None:
    monkeypatch.setattr(injection, "GRACE_S", 0.05)
    assert not injection.is_injecting()
    with injection.injecting(), injection.injecting():
        assert injection.is_injecting()
        data = json.loads(injection.marker_path().read_text())
        assert data["pid"] == os.getpid() and data["active"] and data["until"] > time.time() + 10
    assert injection.is_injecting(grace=60)             # the listener hears it a little later
    time.sleep(0.06)                                    # the 0.05 s grace is over
    assert not injection.is_injecting(grace=0.05)
    assert injection.marker_path() == runtime / "gui-agent" / "injecting-42.json"


def test_marker_file_of_another_process(runtime: Path) -> None:
    path = injection.marker_path()
    path.parent.mkdir(parents=True)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        path.write_text(json.dumps({"pid": child.pid, "active": True, "until": time.time() + 5}))
        assert injection.is_injecting(grace=0.0)
        assert not injection.is_injecting(grace=0.0, display=":7")   # another display: not ours
        path.write_text(json.dumps({"pid": child.pid, "active": False, "until": time.time() - 0.01}))
        assert not injection.is_injecting(grace=0.0)                  # it ended
        path.write_text(json.dumps({"pid": child.pid, "active": True, "until": time.time() + 5}))
    finally:
        child.kill()
        child.wait()
    assert not injection.is_injecting(grace=0.0)                      # its process is gone
    path.write_text("{not json")
    assert not injection.is_injecting(grace=0.0)


def test_listener_marks_events_sent_while_injecting(runtime: Path) -> None:
    heard: list[RawEvent] = []
    listener = InputListener(heard.append)
    button = SimpleNamespace(name="left")
    listener._on_click(5, 6, button, True)
    with injection.injecting():
        listener._on_click(5, 6, button, False)
    listener._on_move(9, 9)                              # no button held: not passed on
    assert [(e.kind, e.injected) for e in heard] == [("press", False), ("release", True)]


def test_pynput_keys_map_to_key_names() -> None:
    def key(name: str, char: str | None = None) -> SimpleNamespace:
        return SimpleNamespace(name=name, value=SimpleNamespace(char=char))

    assert key_fields(key("ctrl_l")) == ("ctrl", None, "ctrl_l")
    assert key_fields(key("shift_r"))[0] == "shift"
    assert key_fields(key("enter"))[0] == "enter" and key_fields(key("page_down"))[0] == "pagedown"
    assert key_fields(key("esc"))[0] == "esc"
    assert key_fields(key("media_volume_up"))[0] == "volumeup"
    assert key_fields(key("space", " ")) == (None, " ", "space")
    assert key_fields(key("alt_gr")) is None
    assert key_fields(SimpleNamespace(char="a", vk=38)) == (None, "a", "38")
    assert key_fields(SimpleNamespace(char=None, vk=0xFE20))[0] == "tab"    # Shift+Tab on X11


# -- frames ------------------------------------------------------------------------------
def test_frame_before_is_from_before_and_after_waits_for_a_settled_screen() -> None:
    colours = {"now": (10, 10, 10)}
    grabs: list[float] = []

    def grab() -> Observation:
        grabs.append(time.time())
        return Observation.from_image(Image.new("RGB", (8, 8), colours["now"]))

    buffer = FrameBuffer(grab, interval=0.01, settle_timeout=1.0)
    buffer.start()
    try:
        time.sleep(0.05)
        event_time = time.time()
        before = buffer.before(event_time)
        colours["now"] = (200, 0, 0)                    # the app reacts to the event
        request = buffer.request_after(event_time)
        frame = request.wait(2.0)
    finally:
        buffer.stop()
    assert before is not None and before.end <= event_time and before.image.getpixel((0, 0)) == (10, 10, 10)
    assert frame is not None and request.settled and frame.image.getpixel((0, 0)) == (200, 0, 0)
    assert frame.start >= event_time


def test_after_request_gives_up_when_the_screen_never_settles() -> None:
    count = iter(range(10**6))
    buffer = FrameBuffer(lambda: Observation.from_image(Image.new("L", (4, 4), next(count) % 256)),
                         interval=0.01, settle_timeout=0.1)
    buffer.start()
    try:
        request = buffer.request_after(time.time())
        assert request.wait(2.0) is not None and not request.settled
    finally:
        buffer.stop()
    assert not any(t.name == "recorder-frames" and t.is_alive() for t in threading.enumerate())


# -- the demonstration folder ----------------------------------------------------------
def _meta(**changes) -> DemoMeta:
    base = DemoMeta("login", "2025-01-01T00:00:00+00:00", 1.0,
                    {"monitor": 1, "left": 0, "top": 0, "width": 64, "height": 48, "scale": 1.0},
                    stop_reason="stop hotkey", parameters=(DemoParameter("password", 2, "Password", True),))
    return DemoMeta(**{**base.__dict__, **changes})


def _write_demo(folder: Path) -> None:
    writer = DemoWriter(folder)
    writer.save_frame(Image.new("RGB", (64, 48), "white"), "0001-before.png")
    writer.save_frame(Image.new("RGB", (64, 48), "gray"), "0001-after.png")
    writer.append(DemoEvent("click", 0.5, 0.6, point=(10, 20), button="left", before="0001-before.png",
                            after="0001-after.png", index=1, window="App", window_box=(0, 0, 64, 48)))
    writer.append(DemoEvent("type", 1.0, 1.2, text=None, secret="password", index=2,
                            before="0001-after.png", after="0001-after.png"))
    writer.append(DemoEvent("hotkey", 1.5, 1.5, keys=("ctrl", "s"), index=3))
    writer.append(DemoEvent("scroll", 2.0, 2.4, point=(5, 5), direction="down", amount=4, index=4))
    writer.append(DemoEvent("drag", 3.0, 3.5, point=(1, 2), end_point=(30, 40), button="left", index=5))
    writer.write_meta(_meta(events=5))
    writer.close()


def test_demo_folder_round_trip(tmp_path: Path) -> None:
    _write_demo(tmp_path / "demo")
    demo = load_demo(tmp_path / "demo")
    assert demo.meta.name == "login" and demo.meta.parameters[0].secret
    click, typed, hotkey, scroll, drag = demo.events
    assert click.point == (10, 20) and click.window == "App" and click.window_box == (0, 0, 64, 48)
    assert typed.text == "{secret:password}" and typed.secret == "password"
    assert hotkey.keys == ("ctrl", "s") and (scroll.direction, scroll.amount) == ("down", 4)
    assert drag.end_point == (30, 40)
    assert demo.frame(click.after).getpixel((0, 0)) == (128, 128, 128)
    with pytest.raises(ConfigError, match="not empty"):
        DemoWriter(tmp_path / "demo")


@pytest.mark.parametrize(("line", "message"), [
    ('{"kind": "wave", "t": 1}', "line 2: unknown kind 'wave'"),
    ('{"kind": "click", "t": 1}', "line 2: missing 'point'"),
    ('{"kind": "click", "t": 1, "point": [1, "x"]}', "line 2: 'point' must be a list of 2 integers"),
    ('{"kind": "type", "t": 1, "text": "{secret:pw}"}', "line 2: .*secret placeholder"),
    ('{"kind": "type", "t": 1, "text": "hunter2", "secret": "pw"}', r"line 2: a secret's text must be"),
    ('{"kind": "hotkey", "t": 1, "keys": []}', "line 2: keys must be"),
    ('{"kind": "scroll", "t": 1, "point": [1, 1], "direction": "in", "amount": 1}', "line 2: a scroll needs"),
    ('{"kind": "click", "t": 1, "point": [1, 1], "before": "../x.png"}', "line 2: before frame"),
    ('{"kind": "click", "t": 1, "point": [1, 1], "after": "0009-after.png"}', "frames/0009-after.png does not exist"),
    ('{"kind": "click", "t": 1, "point": [1, 1]', "line 2: not valid JSON"),
])
def test_events_file_errors_name_the_line(tmp_path: Path, line: str, message: str) -> None:
    _write_demo(tmp_path / "demo")
    events = tmp_path / "demo" / "events.jsonl"
    first = events.read_text().splitlines()[0]
    events.write_text(first + "\n" + line + "\n")
    with pytest.raises(ConfigError, match=message) as info:
        load_demo(tmp_path / "demo")
    assert "events.jsonl" in str(info.value)


def test_meta_errors_name_the_file(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    with pytest.raises(ConfigError, match="no demonstration folder"):
        load_demo(folder)
    _write_demo(folder)
    meta = folder / "meta.json"
    good = json.loads(meta.read_text())
    for change, message in [({"version": 9}, "version 9 is not supported"),
                            ({"screen": {"width": 0, "height": 1}}, "screen width must be positive"),
                            ({"parameters": [{"name": "pass word", "event": 2}]}, "invalid name 'pass word'"),
                            ({"parameters": [{"name": "pw", "event": 99}]}, "names event 99"),
                            ({"name": None}, "missing 'name'")]:
        meta.write_text(json.dumps({**good, **change}))
        with pytest.raises(ConfigError, match=message) as info:
            load_demo(folder)
        assert "meta.json" in str(info.value)
    meta.write_text("{")
    with pytest.raises(ConfigError, match="meta.json: not valid JSON"):
        load_demo(folder)
    (folder / "events.jsonl").write_text("")
    meta.write_text(json.dumps(good))
    with pytest.raises(ConfigError, match="no events"):
        load_demo(folder)
