"""The tree travels with the observation and is read only when a step asks."""

from __future__ import annotations

import logging

from PIL import Image

from gui_agent.accessibility import TreeView
from gui_agent.accessibility.atspi import AtspiSource, bus_missing
from gui_agent.desktop import LiveDesktop
from gui_agent.parsing.elements import ScreenParse
from gui_agent.screen.observation import MonitorGeometry, Observation


class CountingSource:
    name = "counting"

    def __init__(self, available: bool = True) -> None:
        self.reads: list[MonitorGeometry] = []
        self._available = available

    def available(self) -> bool:
        return self._available

    def read(self, monitor, image):
        self.reads.append(monitor)
        return ScreenParse((), *image.size)


class StillCapture:
    def __init__(self) -> None:
        self.obs = Observation.from_image(Image.new("RGB", (64, 48), "white"))

    def capture(self, monitor: int = 1, region=None) -> Observation:
        return self.obs


def test_the_tree_is_read_once_and_only_when_asked():
    source = CountingSource()
    view = TreeView(source, MonitorGeometry(0, 0, 64, 48, 1.0, 1), Image.new("RGB", (64, 48)))
    assert source.reads == []
    first = view.read()
    assert view.read() is first and len(source.reads) == 1
    assert view.seconds >= 0.0


def test_a_live_desktop_attaches_its_tree_to_each_observation_and_none_without_one():
    from gui_agent.control.dry_run import DryRunController

    source = CountingSource()
    with_tree = LiveDesktop(DryRunController(), capture=StillCapture(), tree=source)
    obs = with_tree.observe()
    assert obs.accessibility is not None and source.reads == []      # not read yet
    assert obs.accessibility.read() == ScreenParse((), 64, 48)
    assert source.reads == [obs.monitor]
    without = LiveDesktop(DryRunController(), capture=StillCapture())
    assert without.observe().accessibility is None
    # a source with no tree to read (no bus) attaches nothing: the step is a pixel step
    absent = LiveDesktop(DryRunController(), capture=StillCapture(), tree=CountingSource(False))
    assert absent.observe().accessibility is None


def test_without_a_session_bus_there_is_no_tree_and_it_is_said_once(monkeypatch, caplog):
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/nonexistent-runtime-dir")
    assert "DBUS_SESSION_BUS_ADDRESS" in (bus_missing() or "")
    source = AtspiSource()
    image = Image.new("RGB", (64, 48))
    with caplog.at_level(logging.INFO, logger="gui_agent.accessibility.atspi"):
        assert not source.available()
        assert source.read(MonitorGeometry(0, 0, 64, 48, 1.0, 1), image) is None
        assert source.read(MonitorGeometry(0, 0, 64, 48, 1.0, 1), image) is None
    said = [r.message for r in caplog.records if "pixels alone" in r.message]
    assert len(said) == 1 and "dbus-run-session" in said[0]
    assert source.window_titles() == []


def test_a_session_bus_address_or_socket_means_there_may_be_a_tree(tmp_path):
    assert bus_missing({"DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"}) is None
    (tmp_path / "bus").write_text("")
    assert bus_missing({"XDG_RUNTIME_DIR": str(tmp_path)}) is None
    assert bus_missing({}) is not None


def test_settings_turn_the_tree_off(monkeypatch):
    from gui_agent.config import Settings
    from gui_agent.engine import Engine

    off = Engine.from_settings(Settings(accessibility=False), dry_run=True, use_memory=False)
    assert isinstance(off.desktop, LiveDesktop) and off.desktop.tree is None
    on = Engine.from_settings(Settings(), dry_run=True, use_memory=False)
    assert isinstance(on.desktop, LiveDesktop) and isinstance(on.desktop.tree, AtspiSource)
