"""Shared fixtures.

``xvfb``: one Xvfb screen (1280x800x24) for the whole test session, started through
``gui_agent.display.VirtualDisplay``. While it runs, ``DISPLAY`` and ``XAUTHORITY`` (an
empty file when none existed) are set in ``os.environ``; both are restored at the end.
Tests that need it are skipped when the Xvfb binary is missing. Set
``GUI_AGENT_TEST_DISPLAY=N`` to pin the display number (default: the first free one).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

XVFB_SIZE = (1280, 800)


def pytest_configure(config: pytest.Config) -> None:
    """Keep the suite off the user's own data, config and memory; memory off unless a test opts in.

    Subprocesses (the CLI, batch workers) inherit these variables.
    """
    import tempfile

    root = tempfile.mkdtemp(prefix="gui-agent-tests-")
    os.environ.setdefault("GUI_AGENT_DATA_DIR", os.path.join(root, "data"))
    os.environ.setdefault("GUI_AGENT_CONFIG_DIR", os.path.join(root, "config"))
    os.environ["GUI_AGENT_USE_MEMORY"] = "0"
    os.environ.pop("GUI_AGENT_MEMORY", None)


@pytest.fixture(scope="session")
def xvfb() -> Iterator[str]:
    """The display name (':N') of a session-wide 1280x800x24 Xvfb, set as DISPLAY."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    from gui_agent.display import VirtualDisplay

    pinned = os.environ.get("GUI_AGENT_TEST_DISPLAY")
    number = int(pinned.lstrip(":")) if pinned else None
    with VirtualDisplay(size=XVFB_SIZE, depth=24, display=number) as display:
        assert display.name is not None
        yield display.name


@pytest.fixture
def screen_1280x800(xvfb: str) -> Iterator[object]:
    """A ScreenCapture of the session Xvfb (1280x800), closed after the test."""
    from gui_agent.screen.capture import ScreenCapture

    capture = ScreenCapture()
    try:
        yield capture
    finally:
        capture.close()
