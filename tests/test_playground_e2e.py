"""End-to-end: the playground in its own process on Xvfb, driven by real pyautogui input.

This checks the app and its launcher (not the agent): targets are clicked at the boxes the
app itself publishes in ``state["targets"]``, and outcomes are read from the state file.
Screenshots of every screen (light and dark) are saved to /tmp/playground-shots/.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gui_agent.playground import PlaygroundProcess, launch_playground
from gui_agent.playground.state import find_target, target_center

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

SHOTS = Path("/tmp/playground-shots")
OWN_DISPLAYS = range(70, 80)


def _start_own_xvfb() -> tuple[str, subprocess.Popen]:
    for number in OWN_DISPLAYS:
        if Path(f"/tmp/.X{number}-lock").exists() or Path(f"/tmp/.X11-unix/X{number}").exists():
            continue
        proc = subprocess.Popen(
            ["Xvfb", f":{number}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and proc.poll() is None:
            if Path(f"/tmp/.X11-unix/X{number}").exists():
                return f":{number}", proc
            time.sleep(0.05)
        proc.kill()
        proc.wait()
    pytest.fail(f"could not start Xvfb on any of :{OWN_DISPLAYS.start}-:{OWN_DISPLAYS.stop - 1}")


def _display_of(value: Any) -> str | None:
    """Read a display name from whatever the shared ``xvfb`` fixture yields."""
    for candidate in (value, getattr(value, "display", None), getattr(value, "name", None)):
        if isinstance(candidate, int):
            return f":{candidate}"
        if isinstance(candidate, str) and candidate.startswith(":"):
            return candidate
    return None


@pytest.fixture(scope="module")
def display(request: pytest.FixtureRequest, tmp_path_factory) -> Iterator[str]:
    """The shared ``xvfb`` fixture's display if the suite has one, else our own Xvfb."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    shared = None
    with contextlib.suppress(pytest.FixtureLookupError):
        shared = _display_of(request.getfixturevalue("xvfb"))
    own: subprocess.Popen | None = None
    if shared is None:
        name, own = _start_own_xvfb()
    else:
        name = shared
    xauth = tmp_path_factory.mktemp("xauth") / "Xauthority"
    xauth.touch()
    saved = {k: os.environ.get(k) for k in ("DISPLAY", "XAUTHORITY")}
    os.environ.update(DISPLAY=name, XAUTHORITY=str(xauth))
    try:
        yield name
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        if own is not None:
            own.terminate()
            own.wait(timeout=10)


@pytest.fixture(scope="module")
def gui(display: str):
    """pyautogui bound to ``display`` (it binds to $DISPLAY once, at import)."""
    import pyautogui
    from pyautogui import _pyautogui_x11 as x11
    from Xlib.display import Display

    previous = x11._display
    x11._display = Display(display)
    saved_pause = pyautogui.PAUSE
    pyautogui.PAUSE = 0
    try:
        yield pyautogui
    finally:
        pyautogui.PAUSE = saved_pause
        x11._display.close()
        x11._display = previous


def shoot(display: str, name: str) -> Path:
    import mss
    from PIL import Image

    SHOTS.mkdir(parents=True, exist_ok=True)
    with mss.MSS(display=display) as grabber:
        raw = grabber.grab(grabber.monitors[1])
        image = Image.frombytes("RGB", raw.size, raw.rgb)
    path = SHOTS / f"{name}.png"
    image.save(path)
    return path


def grab_bytes(display: str) -> bytes:
    import mss

    with mss.MSS(display=display) as grabber:
        return bytes(grabber.grab(grabber.monitors[1]).rgb)


class Driver:
    """Clicks what the app says is on screen, then waits for the state to change."""

    def __init__(self, app: PlaygroundProcess, gui, display: str) -> None:
        self.app, self.gui, self.display = app, gui, display

    def target(self, text: str, kind: str | None = None, index: int = 0, window: str | None = None):
        def present(state: dict) -> bool:
            targets = [t for t in state["targets"] if window is None or t["window"] == window]
            try:
                find_target(targets, text, kind, index)
            except KeyError:
                return False
            return True

        state = self.app.wait_for(present, timeout=5)
        targets = [t for t in state["targets"] if window is None or t["window"] == window]
        return find_target(targets, text, kind, index)

    def click(self, text: str, kind: str | None = None, index: int = 0, window: str | None = None):
        x, y = target_center(self.target(text, kind, index, window))
        self.gui.click(x, y)

    def type_into(self, field: str, text: str, window: str | None = None) -> None:
        self.click(field, "field", window=window)
        self.gui.hotkey("ctrl", "a")
        self.gui.write(text)

    def wait(self, predicate, timeout: float = 5) -> dict:
        return self.app.wait_for(predicate, timeout=timeout)

    def settle(self, timeout: float = 3.0) -> None:
        """Wait until two consecutive frames are identical (what the agent does too)."""
        deadline = time.monotonic() + timeout
        previous = grab_bytes(self.display)
        while time.monotonic() < deadline:
            time.sleep(0.1)
            current = grab_bytes(self.display)
            if current == previous:
                return
            previous = current
        raise AssertionError("the screen did not settle")


@pytest.fixture
def launch(display: str, tmp_path: Path):
    started: list[PlaygroundProcess] = []

    def start(**kwargs) -> PlaygroundProcess:
        app = launch_playground(
            tmp_path / f"state{len(started)}.json",
            display=display,
            save_dir=tmp_path / "saved",
            **kwargs,
        )
        started.append(app)
        app.wait_ready(timeout=30)
        return app

    yield start
    for app in started:
        app.close()


def test_launcher_reports_ready_window_geometry(launch) -> None:
    app = launch(pos=(20, 30), size=(900, 640))
    state = app.state()
    assert state["ready"] is True and state["running"] is True
    assert state["window"] == {
        "title": "gui-agent playground",
        "x": 20,
        "y": 30,
        "width": 900,
        "height": 640,
    }
    assert find_target(state["targets"], "Login", "tab")["selected"] is True
    app.close()
    assert app.returncode is not None


def test_full_tour_with_real_input(launch, gui, display: str, tmp_path: Path) -> None:
    app = launch(theme="light")
    d = Driver(app, gui, display)
    d.settle()
    shoot(display, "light-login")

    d.type_into("Username", "ann")
    d.type_into("Password", "hunter2")
    d.click("Remember me", "checkbox")
    d.click("Log in", "button")
    state = d.wait(lambda s: s["login"]["status"] == "Welcome, ann!")
    assert state["login"]["password_length"] == 7 and state["login"]["remember_me"] is True
    assert "hunter2" not in app.state_file.read_text()
    d.settle()
    assert grab_bytes(display) == grab_bytes(display), "an idle app must give identical frames"
    shoot(display, "light-login-done")

    d.click("Settings", "tab")
    d.wait(lambda s: s["current_tab"] == "Settings")
    d.click("Open settings…", "button")
    d.wait(lambda s: s["dialog"] == "Settings")
    d.type_into("Name", "Ann Lee", window="Settings")
    d.type_into("Email", "ann@example.com", window="Settings")
    d.click("Large", "radio")
    d.click("Auto-save", "checkbox")
    d.click("Color", "combo")
    d.click("Yellow", "list_item")
    d.wait(lambda s: s["settings"]["pending"]["color"] == "Yellow")
    d.settle()
    shoot(display, "light-settings-dialog")
    d.click("Advanced", "tab", window="Settings")
    d.wait(lambda s: s["settings"]["dialog_tab"] == "Advanced")
    x, y = target_center(d.target("Retries", "spinbox"))
    gui.tripleClick(x, y)
    gui.write("5")
    d.click("Verbose logging", "checkbox")
    d.settle()
    shoot(display, "light-settings-advanced")
    d.click("Apply", "button")
    state = d.wait(lambda s: s["settings"]["apply_count"] == 1)
    d.click("OK", "button")
    state = d.wait(lambda s: s["dialog"] is None)
    assert state["settings"]["applied"] == {
        "name": "Ann Lee",
        "email": "ann@example.com",
        "notifications": True,
        "auto_save": True,
        "line_numbers": True,
        "size": "Large",
        "color": "Yellow",
        "retries": 5,
        "verbose_logging": True,
    }
    d.settle()
    shoot(display, "light-settings")

    d.click("Items", "tab")
    d.click("Bananas", "list_item")
    d.wait(lambda s: s["items"]["selected"] == "Bananas")
    d.click("Delete", "button")
    d.wait(lambda s: s["dialog"] == "Confirm delete")
    assert d.target("Delete 'Bananas'?", "label")
    d.settle()
    shoot(display, "light-items-confirm")
    d.click("Yes", "button")
    d.wait(lambda s: s["items"]["list"] == ["Apples", "Cherries"] and s["dialog"] is None)
    d.type_into("New item", "Dates")
    d.click("Add", "button")
    d.wait(lambda s: s["items"]["list"] == ["Apples", "Cherries", "Dates"])
    d.settle()
    shoot(display, "light-items")

    d.click("Editor", "tab")
    d.click("Text", "text_area")
    gui.write("hello world")
    d.wait(lambda s: s["editor"]["text"] == "hello world")
    d.click("File", "menu")
    d.target("Save As…", "menu_item")
    d.settle()
    shoot(display, "light-editor-menu")
    d.click("Save As…", "menu_item")
    d.wait(lambda s: s["dialog"] == "Save as")
    d.type_into("File name", "notes.txt", window="Save as")
    d.settle()
    shoot(display, "light-editor-save-as")
    d.click("Save", "button", window="Save as")
    state = d.wait(lambda s: s["editor"]["saved_files"])
    saved = tmp_path / "saved" / "notes.txt"
    assert state["editor"]["saved_files"] == [{"path": str(saved), "content": "hello world"}]
    assert saved.read_text() == "hello world"
    d.settle()
    shoot(display, "light-editor")

    d.click("Contacts", "tab")
    d.click("Edit", "button", index=1)
    state = d.wait(lambda s: s["contacts"]["last_edit"] is not None)
    assert state["contacts"]["last_edit"] == {"name": "Bob", "index": 1}
    assert state["last_clicked"]["text"] == "Edit" and state["last_clicked"]["context"] == "Bob"
    d.settle()
    shoot(display, "light-contacts")

    d.click("Editor", "tab")
    d.click("File", "menu")
    d.click("Quit", "menu_item")
    state = d.wait(lambda s: s["running"] is False)
    assert state["events"][-1]["action"] == "quit"
    deadline = time.monotonic() + 10
    while app.returncode is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert app.returncode == 0, app.log_tail()


def test_dark_theme_screens(launch, gui, display: str) -> None:
    app = launch(theme="dark")
    d = Driver(app, gui, display)
    for tab in ("Login", "Settings", "Items", "Editor", "Contacts"):
        d.click(tab, "tab")
        d.wait(lambda s, tab=tab: s["current_tab"] == tab)
        d.settle()
        shoot(display, f"dark-{tab.lower()}")
    d.click("Settings", "tab")
    d.click("Open settings…", "button")
    d.wait(lambda s: s["dialog"] == "Settings")
    d.settle()
    shoot(display, "dark-settings-dialog")


def test_large_font_settings_dialog_fits(launch, gui, display: str) -> None:
    app = launch(font_scale=1.5)
    d = Driver(app, gui, display)
    d.click("Settings", "tab")
    d.click("Open settings…", "button")
    state = d.wait(lambda s: s["dialog"] == "Settings")
    d.settle()
    shoot(display, "light-large-font-settings-dialog")
    window = state["window"]
    for target in d.app.state()["targets"]:
        left, top, width, height = target["box"]
        assert left >= 0 and top >= 0, target
        assert left + width <= window["x"] + window["width"] + 1, target
        assert top + height <= window["y"] + window["height"] + 1, target
