"""Wayland sessions with gui-agent's own Xvfb: its screen is what --headless and the batch see,
and the apps they start open on it, not on the person's Wayland desktop."""

from __future__ import annotations

import os

import pytest

from gui_agent import display
from gui_agent.display import VIRTUAL_DISPLAY_VAR
from gui_agent.screen import ScreenCapture
from tests.support.fake_mss import OneColourMss


def test_a_black_virtual_display_on_a_wayland_machine_is_fine(
        xvfb: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """--headless and the batch run on gui-agent's own Xvfb: its screen is what they see."""
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert display.wayland_limits() is None  # VirtualDisplay marked DISPLAY as its own
    with ScreenCapture(mss_factory=OneColourMss, window_info=False) as cap:
        cap.capture(1)


@pytest.mark.e2e("xvfb")
def test_apps_started_on_a_virtual_display_do_not_open_on_the_wayland_desktop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With WAYLAND_DISPLAY left set, Qt and GTK apps of a --headless run or a batch opened as
    windows of the person's Wayland desktop instead of on the Xvfb the agent watches."""
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    monkeypatch.setenv("XDG_SESSION_TYPE", "wayland")
    # the person's XWayland display: a number Xvfb never picks for itself here (it takes the
    # first free one, and :0 may well be free on a test machine)
    monkeypatch.setenv("DISPLAY", ":4242")
    monkeypatch.delenv(VIRTUAL_DISPLAY_VAR, raising=False)
    with display.VirtualDisplay(size=(320, 200)) as virtual:
        assert "WAYLAND_DISPLAY" not in os.environ
        assert display.wayland_limits() is None and virtual.name != ":4242"
        assert os.environ["DISPLAY"] == virtual.name
    assert os.environ["WAYLAND_DISPLAY"] == "wayland-0" and os.environ["DISPLAY"] == ":4242"
    assert VIRTUAL_DISPLAY_VAR not in os.environ
