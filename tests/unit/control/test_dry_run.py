"""DryRunController records validated calls and changes nothing; the package imports lazily."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest

from gui_agent.control import (
    Controller,
    DryRunController,
    DryRunEntry,
    FailSafeTriggered,
    PyAutoGuiController,
    StopHotkey,
    UnknownKey,
    needs_clipboard,
)
from gui_agent.errors import ControlError, SafetyRefusal
from gui_agent.geometry import Point
from tests.support.paths import REPO


def test_records_every_call_in_order() -> None:
    dry = DryRunController(platform="linux")
    dry.click(Point(10, 20))
    dry.click((30, 40), button="right", clicks=2)
    dry.move(Point(5, 6))
    dry.drag(Point(1, 2), Point(300, 400), duration=0.5)
    dry.scroll("down", 5, Point(50, 60))
    dry.type_text("hello")
    dry.press("Return")
    dry.hotkey("Ctrl", "S")
    dry.key_down("shift")
    dry.key_up("shift")
    dry.launch(" gedit ")
    assert dry.log == [
        DryRunEntry("click", {"point": Point(10, 20), "button": "left", "clicks": 1}),
        DryRunEntry("click", {"point": Point(30, 40), "button": "right", "clicks": 2}),
        DryRunEntry("move", {"point": Point(5, 6)}),
        DryRunEntry("drag", {"src": Point(1, 2), "dst": Point(300, 400), "duration": 0.5,
                             "button": "left"}),
        DryRunEntry("scroll", {"direction": "down", "amount": 5, "point": Point(50, 60)}),
        DryRunEntry("type_text", {"text": "hello", "via_clipboard": False}),
        DryRunEntry("press", {"key": "enter", "presses": 1}),
        DryRunEntry("hotkey", {"keys": ("ctrl", "s")}),
        DryRunEntry("key_down", {"key": "shift"}),
        DryRunEntry("key_up", {"key": "shift"}),
        DryRunEntry("launch", {"app": "gedit"}),
    ]
    assert [e.method for e in dry.calls("click")] == ["click", "click"]
    assert str(dry.log[0]) == "click(point=Point(x=10, y=20), button='left', clicks=1)"


def test_position_follows_the_last_pointer_move() -> None:
    dry = DryRunController(start=Point(7, 8))
    assert dry.position() == Point(7, 8)
    dry.click(Point(100, 200))
    assert dry.position() == Point(100, 200)
    dry.drag(Point(1, 1), Point(640, 400))
    assert dry.position() == Point(640, 400)
    dry.scroll("up", 1)  # no point: the pointer stays
    assert dry.position() == Point(640, 400)
    dry.move(Point(-1900, 50))  # a monitor left of the primary one
    assert dry.position() == Point(-1900, 50)
    dry.type_text("x")
    assert dry.position() == Point(-1900, 50)


def test_float_points_are_rounded() -> None:
    dry = DryRunController()
    dry.move((10.6, 20.4))  # type: ignore[arg-type]
    assert dry.position() == Point(11, 20)


def test_combo_press_becomes_hotkeys() -> None:
    dry = DryRunController(platform="darwin")
    dry.press("primary+a", presses=2)
    assert dry.log == [DryRunEntry("hotkey", {"keys": ("command", "a")})] * 2


def test_non_ascii_text_is_marked_for_the_clipboard() -> None:
    dry = DryRunController()
    dry.type_text("Zoë — 東京 ✓")
    dry.type_text("plain ASCII, with punctuation! (1+1=2)\n")
    assert [e.params["via_clipboard"] for e in dry.log] == [True, False]


@pytest.mark.parametrize(("call", "message"), [
    (lambda d: d.click(Point(1, 1), button="back"), "unknown mouse button"),
    (lambda d: d.click(Point(1, 1), clicks=0), "clicks must be a positive"),
    (lambda d: d.scroll("sideways", 1), "unknown scroll direction"),
    (lambda d: d.scroll("up", -3), "amount must be a positive"),
    (lambda d: d.drag(Point(0, 0), Point(1, 1), duration=-1), "duration must be"),
    (lambda d: d.move("here"), "must be a Point"),
    (lambda d: d.move((1, "2")), "must be numbers"),
    (lambda d: d.press("ctrl", presses=0), "presses must be"),
    (lambda d: d.launch("/tmp/evil.sh"), "never a program by its path"),
    (lambda d: d.launch("  "), "needs an application name"),
])
def test_bad_arguments_raise_control_errors(call, message: str) -> None:
    dry = DryRunController()
    with pytest.raises(ControlError, match=message):
        call(dry)
    assert dry.log == []


def test_unknown_keys_are_rejected_before_recording() -> None:
    dry = DryRunController()
    with pytest.raises(UnknownKey, match="'hyperkey'"):
        dry.hotkey("ctrl", "hyperkey")
    with pytest.raises(UnknownKey):
        dry.press("entr")
    assert dry.log == []


def test_both_controllers_satisfy_the_protocol() -> None:
    assert isinstance(DryRunController(), Controller)
    assert isinstance(PyAutoGuiController(), Controller)


def test_failsafe_error_is_control_error_and_safety_refusal() -> None:
    err = FailSafeTriggered("click at (0, 0)")
    assert isinstance(err, ControlError) and isinstance(err, SafetyRefusal)
    assert "corner" in str(err) and "click at (0, 0)" in str(err)


def test_needs_clipboard() -> None:
    assert not needs_clipboard("Hello, World! ~`{}")
    assert needs_clipboard("café")
    assert needs_clipboard("a\x0bb")  # vertical tab: no key for it
    assert needs_clipboard("abc", can_type=lambda ch: ch != "b")


def test_importing_control_loads_neither_pyautogui_nor_pynput() -> None:
    code = ("import sys; import gui_agent.control as c, gui_agent.screen, gui_agent.display;"
            "c.PyAutoGuiController(); c.StopHotkey();"
            "bad = [m for m in ('pyautogui', 'pynput', 'mss', 'Xlib.display') if m in sys.modules];"
            "assert not bad, bad")
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_stop_hotkey_without_display_warns_and_stays_off(monkeypatch, caplog) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("the no-display case is Linux-only")
    monkeypatch.delenv("DISPLAY", raising=False)
    hotkey = StopHotkey()
    with caplog.at_level(logging.WARNING, logger="gui_agent.control.stop_hotkey"):
        assert hotkey.start() is False
    assert not hotkey.active and not hotkey.pressed
    assert "no display" in caplog.text
    hotkey.stop()  # harmless when never started


def test_pyautogui_controller_without_display_raises_display_error(monkeypatch) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("the no-display case is Linux-only")
    from gui_agent.errors import DisplayError

    monkeypatch.delenv("DISPLAY", raising=False)
    with pytest.raises(DisplayError, match="--headless"):
        PyAutoGuiController().position()
