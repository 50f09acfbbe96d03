"""Wayland sessions: said once before acting, and a blank capture there is reported, not planned on.

The session type comes from the environment (XDG_SESSION_TYPE, WAYLAND_DISPLAY), monkeypatched
here; the screen is a fake mss that returns one colour (what XWayland gives for native
Wayland windows: black).
"""

from __future__ import annotations

import pytest

from gui_agent import display
from gui_agent.cli import main
from gui_agent.display import VIRTUAL_DISPLAY_VAR, wayland_limits, wayland_session
from gui_agent.errors import CaptureError
from gui_agent.screen import ScreenCapture
from gui_agent.screen import capture as capture_module
from tests.support.fake_mss import GREY, OneColourMss


@pytest.fixture
def wayland(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Wayland session whose XWayland display is :0 (not a virtual display of ours)."""
    monkeypatch.setenv("XDG_SESSION_TYPE", "wayland")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv(VIRTUAL_DISPLAY_VAR, raising=False)


@pytest.fixture
def x11(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_SESSION_TYPE", "x11")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv(VIRTUAL_DISPLAY_VAR, raising=False)


@pytest.mark.parametrize("env,expected", [
    ({"XDG_SESSION_TYPE": "wayland"}, True),
    ({"XDG_SESSION_TYPE": "Wayland", "DISPLAY": ":0"}, True),
    ({"WAYLAND_DISPLAY": "wayland-0"}, True),
    ({"XDG_SESSION_TYPE": "x11", "DISPLAY": ":0"}, False),
    ({"XDG_SESSION_TYPE": "tty"}, False),
    ({"WAYLAND_DISPLAY": ""}, False),
    ({}, False),
])
def test_a_wayland_session_is_told_by_its_environment(env: dict, expected: bool) -> None:
    assert wayland_session(env) is expected
    assert (wayland_limits(env) is not None) is expected


def test_the_notice_says_what_it_reaches_and_what_to_do() -> None:
    text = wayland_limits({"XDG_SESSION_TYPE": "wayland", "DISPLAY": ":1"})
    assert text is not None
    assert "only X11 windows" in text and "XWayland" in text and "DISPLAY=:1" in text
    assert "log into an X11 session" in text and "--headless" in text
    bare = wayland_limits({"WAYLAND_DISPLAY": "wayland-0"})
    assert bare is not None and "DISPLAY is not set" in bare and "cannot see or drive" in bare


def test_a_virtual_display_of_ours_is_not_the_wayland_screen() -> None:
    env = {"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":7", VIRTUAL_DISPLAY_VAR: ":7"}
    assert wayland_limits(env) is None
    assert wayland_limits({**env, "DISPLAY": ":0"}) is not None  # the marker names another one


def test_an_all_black_capture_on_wayland_is_a_capture_error(wayland: None) -> None:
    with ScreenCapture(mss_factory=OneColourMss, window_info=False) as cap, \
            pytest.raises(CaptureError) as err:
        cap.capture(1)
    message = str(err.value)
    assert message.startswith("the screenshot is all black, most likely because this is a "
                              "Wayland session")
    assert "log into an X11 session" in message


def test_a_capture_of_one_other_colour_is_reported_too(wayland: None) -> None:
    with ScreenCapture(mss_factory=lambda: OneColourMss(GREY), window_info=False) as cap, \
            pytest.raises(CaptureError, match="all one colour, most likely because"):
        cap.capture(1)


def test_a_capture_with_anything_on_it_is_kept_on_wayland(wayland: None) -> None:
    with ScreenCapture(mss_factory=lambda: OneColourMss(dot=(100, 50)), window_info=False) as cap:
        obs = cap.capture(1)
        assert obs.image.getpixel((100, 50)) == (255, 255, 255)
        # a blank *region* is ordinary (an empty area of a window), even on Wayland
        from gui_agent.geometry import Box

        assert cap.capture(1, region=Box(0, 0, 40, 40)).image.getextrema() == ((0, 0),) * 3


def test_the_same_black_capture_on_x11_is_an_ordinary_screen(x11: None) -> None:
    with ScreenCapture(mss_factory=OneColourMss, window_info=False) as cap:
        assert cap.capture(1).image.size == (320, 200)


@pytest.fixture
def black_live_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    """The live desktop's capture (mss) shows black; the display 'opens'."""
    monkeypatch.setattr(capture_module, "_default_mss", OneColourMss)
    monkeypatch.setattr(capture_module.ScreenCapture, "_open_xlib", lambda self, name: None)
    monkeypatch.setattr(display, "display_available", lambda: True)
    monkeypatch.setattr("gui_agent.display_available", lambda: True)   # the public name, once loaded


def test_run_says_once_what_it_can_reach_then_reports_the_black_screen(
        wayland: None, black_live_screen: None, tmp_path, capsys) -> None:
    code = main(["run", "--dry-run", "--runs-dir", str(tmp_path), 'click "OK"'])
    out, err = capsys.readouterr()
    assert code == 1
    assert err.count("gui-agent: note: this is a Wayland session") == 1
    assert "only X11 windows" in err and "log into an X11 session" in err
    assert "FAILED" in out and "the screenshot is all black, most likely because this is a " \
                                "Wayland session" in out
    assert "could not find" not in out  # nothing was planned or grounded on the black screen


def test_run_on_x11_says_nothing_about_wayland(x11: None, black_live_screen: None, tmp_path,
                                               capsys) -> None:
    code = main(["run", "--dry-run", "--runs-dir", str(tmp_path), 'click "OK"'])
    out, err = capsys.readouterr()
    assert code == 1
    assert "Wayland" not in out + err
    assert "could not find" in out  # planned on the screen it saw


def test_screenshot_on_wayland_refuses_a_black_screen(wayland: None, black_live_screen: None,
                                                      tmp_path, capsys) -> None:
    target = tmp_path / "shot.png"
    assert main(["screenshot", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gui-agent: error: the screenshot is all black, most likely because")
    assert not target.exists()
