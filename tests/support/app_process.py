"""The desktop app in its own process on the test display, for end-to-end tests.

``app_process`` starts it (``python -m ui``, xcb) at 400,60 860x640 writing an events file;
``wait_event`` waits for one of its events (failing with the app's log when it exits or the
wait runs out); ``app_env`` keeps its settings, history and runs under the test's tmp_path.
The playground beside it takes ``PLAYGROUND`` (0,0)-(1024,700).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gui_agent.geometry import Point
from tests.support.paths import REPO
from ui.app_events import read_events

PLAYGROUND = (0, 0, 1024, 700)


def wait_event(path: Path, kind: str, timeout: float, app: subprocess.Popen, log: Path) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [e for e in read_events(path) if e["event"] == kind]
        if found:
            return found[-1]
        if app.poll() is not None:
            pytest.fail(f"the app exited ({app.returncode}) before {kind!r}:\n{log.read_text()[-3000:]}")
        time.sleep(0.05)
    pytest.fail(f"no {kind!r} event within {timeout:.0f} s; events: {read_events(path)}\n"
                f"{log.read_text()[-3000:]}")


@contextmanager
def app_process(events: Path, log: Path, env: dict[str, str], *args: str) -> Iterator[subprocess.Popen]:
    """The app (`python -m ui`) at 400,60 860x640 writing ``events``; stopped when the block ends."""
    with log.open("w") as out:
        app = subprocess.Popen([sys.executable, "-m", "ui", "--pos", "400,60", "--size", "860x640", *args,
                                "--events-file", str(events)], env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        yield app
    finally:
        app.terminate()
        try:
            app.wait(10)
        except subprocess.TimeoutExpired:
            app.kill()


def app_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The app on the test display, with its settings, history and runs under tmp_path."""
    return dict(os.environ, QT_QPA_PLATFORM="xcb", QT_FONT_DPI="96", QT_ACCESSIBILITY="0",
                GUI_AGENT_DATA_DIR=str(tmp_path / "data"),
                GUI_AGENT_CONFIG_DIR=str(tmp_path / "config"),
                GUI_AGENT_RUNS_DIR=str(tmp_path / "runs"),
                PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p),
                **extra)


def centre(rect: list[int]) -> Point:
    x, y, w, h = rect
    return Point(x + w // 2, y + h // 2)
