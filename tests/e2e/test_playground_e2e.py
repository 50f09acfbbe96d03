"""End-to-end: the playground in its own process on Xvfb, driven by real pyautogui input.

This checks the app and its launcher (not the agent): targets are clicked at the boxes the
app itself publishes in ``state["targets"]``, and outcomes are read from the state file.
Screenshots of every screen (light and dark) are saved to ``playground-shots<N>/`` in pytest's
temporary folder (``/tmp/pytest-of-$USER/pytest-<run>/`` by default).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gui_agent.playground import PlaygroundProcess, launch_playground
from gui_agent.playground.state import find_target, target_center

pytestmark = [pytest.mark.e2e("xvfb", "input", "qt"), pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def display(xvfb: str) -> str:
    """The session's Xvfb (DISPLAY and XAUTHORITY are set while it runs)."""
    return xvfb


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This run's folder for the screenshots (under pytest's temporary folder)."""
    return tmp_path_factory.mktemp("playground-shots")


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


def shoot(folder: Path, display: str, name: str) -> Path:
    import mss
    from PIL import Image

    with mss.MSS(display=display) as grabber:
        raw = grabber.grab(grabber.monitors[1])
        image = Image.frombytes("RGB", raw.size, raw.rgb)
    path = folder / f"{name}.png"
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

        state = self.app.wait_for(present, timeout=15)
        targets = [t for t in state["targets"] if window is None or t["window"] == window]
        return find_target(targets, text, kind, index)

    def click(self, text: str, kind: str | None = None, index: int = 0, window: str | None = None):
        x, y = target_center(self.target(text, kind, index, window))
        self.gui.click(x, y)

    def type_into(self, field: str, text: str, window: str | None = None) -> None:
        self.click(field, "field", window=window)
        self.gui.hotkey("ctrl", "a")
        self.gui.write(text)

    def wait(self, predicate, timeout: float = 15) -> dict:
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
        app.wait_ready(timeout=60)
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


def test_full_tour_with_real_input(launch, gui, display: str, shots: Path, tmp_path: Path) -> None:
    app = launch(theme="light")
    d = Driver(app, gui, display)
    d.settle()
    shoot(shots, display, "light-login")

    d.type_into("Username", "ann")
    d.type_into("Password", "hunter2")
    d.click("Remember me", "checkbox")
    d.click("Log in", "button")
    state = d.wait(lambda s: s["login"]["status"] == "Welcome, ann!")
    assert state["login"]["password_length"] == 7 and state["login"]["remember_me"] is True
    assert "hunter2" not in app.state_file.read_text()
    d.settle()
    assert grab_bytes(display) == grab_bytes(display), "an idle app must give identical frames"
    shoot(shots, display, "light-login-done")

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
    shoot(shots, display, "light-settings-dialog")
    d.click("Advanced", "tab", window="Settings")
    d.wait(lambda s: s["settings"]["dialog_tab"] == "Advanced")
    x, y = target_center(d.target("Retries", "spinbox"))
    gui.tripleClick(x, y)
    gui.write("5")
    d.click("Verbose logging", "checkbox")
    d.settle()
    shoot(shots, display, "light-settings-advanced")
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
    shoot(shots, display, "light-settings")

    d.click("Items", "tab")
    d.click("Bananas", "list_item")
    d.wait(lambda s: s["items"]["selected"] == "Bananas")
    d.click("Delete", "button")
    d.wait(lambda s: s["dialog"] == "Confirm delete")
    assert d.target("Delete 'Bananas'?", "label")
    d.settle()
    shoot(shots, display, "light-items-confirm")
    d.click("Yes", "button")
    d.wait(lambda s: s["items"]["list"] == ["Apples", "Cherries"] and s["dialog"] is None)
    d.type_into("New item", "Dates")
    d.click("Add", "button")
    d.wait(lambda s: s["items"]["list"] == ["Apples", "Cherries", "Dates"])
    d.settle()
    shoot(shots, display, "light-items")

    d.click("Editor", "tab")
    d.click("Text", "text_area")
    gui.write("hello world")
    d.wait(lambda s: s["editor"]["text"] == "hello world")
    d.click("File", "menu")
    d.target("Save As…", "menu_item")
    d.settle()
    shoot(shots, display, "light-editor-menu")
    d.click("Save As…", "menu_item")
    d.wait(lambda s: s["dialog"] == "Save as")
    d.type_into("File name", "notes.txt", window="Save as")
    d.settle()
    shoot(shots, display, "light-editor-save-as")
    d.click("Save", "button", window="Save as")
    state = d.wait(lambda s: s["editor"]["saved_files"])
    saved = tmp_path / "saved" / "notes.txt"
    assert state["editor"]["saved_files"] == [{"path": str(saved), "content": "hello world"}]
    assert saved.read_text() == "hello world"
    d.settle()
    shoot(shots, display, "light-editor")

    d.click("Contacts", "tab")
    d.click("Edit", "button", index=1)
    state = d.wait(lambda s: s["contacts"]["last_edit"] is not None)
    assert state["contacts"]["last_edit"] == {"name": "Bob", "index": 1}
    assert state["last_clicked"]["text"] == "Edit" and state["last_clicked"]["context"] == "Bob"
    d.settle()
    shoot(shots, display, "light-contacts")

    d.click("Editor", "tab")
    d.click("File", "menu")
    d.click("Quit", "menu_item")
    state = d.wait(lambda s: s["running"] is False)
    assert state["events"][-1]["action"] == "quit"
    deadline = time.monotonic() + 10
    while app.returncode is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert app.returncode == 0, app.log_tail()


def _text_contrast(image, state: dict, window: str) -> tuple[float, list[tuple[str, float, float]]]:
    """The median luminance of the window's area, and per text target of that window its
    background (median) and its brightest text stroke (99th percentile) luminance."""
    import numpy as np

    gray = np.asarray(image.convert("L"), dtype=float)
    targets = [t for t in state["targets"] if t["window"] == window and t["text"].strip()
               and t["kind"] in ("label", "button", "tab", "checkbox", "radio")]
    left = min(t["box"][0] for t in targets)
    top = min(t["box"][1] for t in targets)
    right = max(t["box"][0] + t["box"][2] for t in targets)
    bottom = max(t["box"][1] + t["box"][3] for t in targets)
    rows = []
    for t in targets:
        x, y, w, h = t["box"]
        crop = gray[max(y, 0):y + h, max(x, 0):x + w]
        if crop.size:
            name = f"{t['kind']} {t['text']!r}"
            rows.append((name, float(np.median(crop)), float(np.percentile(crop, 99))))
    return float(np.median(gray[top:bottom, left:right])), rows


def test_dark_theme_screens(launch, gui, display: str, shots: Path) -> None:
    """Every page and the settings dialog are dark (the area under the window's texts has a dark
    median), and every text on them is light on dark, readable: its strokes far brighter than its
    background (what a light-theme leftover, dark text on a dark page, would fail)."""
    from PIL import Image

    app = launch(theme="dark")
    assert app.state()["theme"] == "dark"
    d = Driver(app, gui, display)
    screens = []
    for tab in ("Login", "Settings", "Items", "Editor", "Contacts"):
        d.click(tab, "tab")
        d.wait(lambda s, tab=tab: s["current_tab"] == tab)
        d.settle()
        shot = shoot(shots, display, f"dark-{tab.lower()}")
        screens.append((tab, shot, app.state(), "gui-agent playground"))
    d.click("Settings", "tab")
    d.click("Open settings…", "button")
    d.wait(lambda s: s["dialog"] == "Settings")
    d.settle()
    shot = shoot(shots, display, "dark-settings-dialog")
    screens.append(("dialog", shot, app.state(), "Settings"))
    for name, path, state, window in screens:
        page, texts = _text_contrast(Image.open(path), state, window)
        assert page < 100, (name, page, path)               # a light page's median is above 200
        assert len(texts) >= 8, (name, texts)
        for text, background, strokes in texts:
            assert background < 110 and strokes - background >= 100, \
                (name, text, background, strokes)


def test_large_font_settings_dialog_fits(launch, gui, display: str, shots: Path) -> None:
    app = launch(font_scale=1.5)
    d = Driver(app, gui, display)
    d.click("Settings", "tab")
    d.click("Open settings…", "button")
    state = d.wait(lambda s: s["dialog"] == "Settings")
    d.settle()
    shoot(shots, display, "light-large-font-settings-dialog")
    window = state["window"]
    for target in d.app.state()["targets"]:
        left, top, width, height = target["box"]
        assert left >= 0 and top >= 0, target
        assert left + width <= window["x"] + window["width"] + 1, target
        assert top + height <= window["y"] + window["height"] + 1, target


def test_without_a_save_folder_its_temp_folder_goes_when_it_is_terminated(display: str, tmp_path: Path) -> None:
    app = launch_playground(tmp_path / "state.json", display=display)
    try:
        made = Path(app.wait_ready(timeout=60)["editor"]["save_dir"])
        assert made.is_dir() and made != tmp_path
    finally:
        app.close()                                      # SIGTERM, as the launcher stops it
    assert app.returncode == 0 and not made.exists()
    assert app.state()["running"] is False               # it ended as if its window was closed
