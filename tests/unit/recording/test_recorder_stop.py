"""Stopping a recording at the press on an on-screen Stop button, as the listener hears it.

The listener hears input in the display server's order but, on a loaded machine, late: a click
made just before the press on Stop may be heard after the app already saw that press. It must
still be recorded, and the press on Stop and what follows it must not be.
"""

from __future__ import annotations

import time

import pytest
from PIL import Image

from gui_agent.geometry import Box
from gui_agent.recording.events import RawEvent
from gui_agent.recording.recorder import Recorder
from gui_agent.screen import MonitorGeometry, Observation

STOP = Box(1000, 700, 100, 40)          # the indicator's Stop button, in screen pixels
ON_STOP, ELSEWHERE = (1050, 720), (388, 50)


class SilentListener:
    """Stands in for pynput's listeners: the test hands events to the recorder itself."""

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


@pytest.fixture
def recording(tmp_path):
    """(recorder, hear): a started recorder on a still white screen; ``hear(kind, point)``
    passes it one input event as the listener would, stamped with the time it is heard."""
    still = Observation(Image.new("RGB", (1280, 800), "white"), MonitorGeometry(0, 0, 1280, 800, 1.0, 1))
    recorder = Recorder(tmp_path / "demo", "demo", grab=lambda: still, frame_interval=0.02,
                        settle_timeout=0.1, detect_secrets=False)
    hear = recorder.listener.on_event
    recorder.listener = SilentListener()
    recorder.start()

    def heard(kind: str, point: tuple[int, int]) -> None:
        hear(RawEvent(kind, time.time(), *point, button="left"))

    yield recorder, heard
    recorder.stop()


def click(hear, point) -> None:
    hear("press", point)
    hear("release", point)


def test_a_click_heard_after_stop_was_asked_but_before_the_press_on_stop_is_kept(recording):
    recorder, hear = recording
    recorder.stop_at_press("stopped in the app", [STOP])   # the app saw the press on Stop first
    assert not recorder.wait(0.2)                           # ... the listener has not heard it yet
    click(hear, ELSEWHERE)                                  # the click before it, heard late
    click(hear, ON_STOP)                                    # then the press on Stop
    assert recorder.wait(2.0) and recorder.stop_reason == "stopped in the app"
    click(hear, ELSEWHERE)                                  # after Stop: not recorded
    demo = recorder.finish()
    assert [(e.kind, e.point) for e in demo.events] == [("click", ELSEWHERE)]


def test_a_press_on_stop_heard_before_stop_was_asked_stops_there_at_once(recording):
    recorder, hear = recording
    click(hear, ELSEWHERE)
    hear("press", ON_STOP)                                  # the listener was quicker than the app
    time.sleep(0.1)
    recorder.stop_at_press("stopped in the app", [STOP])
    assert recorder.wait(0.05)
    hear("release", ON_STOP)
    demo = recorder.finish()
    assert [(e.kind, e.point) for e in demo.events] == [("click", ELSEWHERE)]


def test_with_no_press_on_stop_heard_it_stops_where_it_was_asked(recording):
    recorder, hear = recording
    click(hear, ELSEWHERE)
    time.sleep(0.1)
    recorder.stop_at_press("stopped", [STOP], timeout=0.3)   # Stop pressed from the keyboard, say
    click(hear, (500, 500))                                   # after the ask: not recorded
    assert recorder.wait(2.0) and recorder.stop_reason == "stopped"
    demo = recorder.finish()
    assert [(e.kind, e.point) for e in demo.events] == [("click", ELSEWHERE)]
