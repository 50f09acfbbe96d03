"""Real input on a real window: PyAutoGuiController drives a small Qt app under Xvfb.

The app (a subprocess, QT_QPA_PLATFORM=xcb) writes its state as JSON to a file on every
change; the tests act with real pyautogui input and wait for the state to show it.
"""

from __future__ import annotations

import json
import logging
import os
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gui_agent.control import FailSafeTriggered, PyAutoGuiController, StopHotkey
from gui_agent.display import VirtualDisplay, display_available, ensure_display
from gui_agent.errors import ConfigError, SafetyRefusal
from gui_agent.geometry import Box, Point
from gui_agent.screen import ScreenCapture
from tests.support.paths import REPO
from tests.support.requirements import require_tool

pytestmark = pytest.mark.e2e("xvfb", "input", "qt")
log = logging.getLogger(__name__)

PAD_RGB = (0, 128, 255)

APP = textwrap.dedent('''
    import json, os, sys
    from PySide6.QtCore import QPoint, Qt, QTimer
    from PySide6.QtGui import QColor, QPainter
    from PySide6.QtWidgets import QApplication, QLineEdit, QPushButton, QWidget

    STATE_FILE = sys.argv[1]
    state = {"ready": False, "text": "", "selected": "", "clicks": 0, "double_clicks": 0,
             "right_clicks": 0, "wheel_x": 0, "wheel_y": 0, "drag": None, "geometry": {},
             "pointer_in": False, "presses": []}

    def save():
        tmp = STATE_FILE + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(state, f)
        os.replace(tmp, STATE_FILE)

    class Pad(QWidget):
        """A flat blue area that reports double/right clicks, wheel turns and drags."""
        def __init__(self, parent):
            super().__init__(parent)
            self.pressed_at = None
        def paintEvent(self, event):
            QPainter(self).fillRect(self.rect(), QColor(0, 128, 255))
        def enterEvent(self, e):
            state["pointer_in"] = True
            save()
        def mousePressEvent(self, e):
            state["presses"].append([int(e.button().value), e.timestamp()])  # shown when a test fails
            save()
            if e.button() == Qt.RightButton:
                state["right_clicks"] += 1
                save()
            elif e.button() == Qt.LeftButton:
                self.pressed_at = e.globalPosition().toPoint()
        def mouseReleaseEvent(self, e):
            if e.button() == Qt.LeftButton and self.pressed_at is not None:
                end = e.globalPosition().toPoint()
                if (end - self.pressed_at).manhattanLength() > 5:
                    state["drag"] = [self.pressed_at.x(), self.pressed_at.y(), end.x(), end.y()]
                    save()
                self.pressed_at = None
        def mouseDoubleClickEvent(self, e):
            state["double_clicks"] += 1
            save()
        def wheelEvent(self, e):
            state["wheel_x"] += e.angleDelta().x()
            state["wheel_y"] += e.angleDelta().y()
            save()

    app = QApplication(sys.argv)
    win = QWidget()
    win.setWindowTitle("gui-agent e2e")
    win.setFixedSize(600, 400)
    entry = QLineEdit(win); entry.setGeometry(20, 20, 400, 30)
    button = QPushButton("Press", win); button.setGeometry(440, 20, 120, 30)
    pad = Pad(win); pad.setGeometry(20, 80, 560, 300)

    def on_text(text):
        state["text"] = text
        save()
    def on_selection():
        state["selected"] = entry.selectedText()
        save()
    def on_click():
        state["clicks"] += 1
        save()
    entry.textChanged.connect(on_text)
    entry.selectionChanged.connect(on_selection)
    button.clicked.connect(on_click)

    def box(w):
        p = w.mapToGlobal(QPoint(0, 0))
        return [p.x(), p.y(), w.width(), w.height()]
    def ready():
        state["geometry"] = {"entry": box(entry), "button": box(button), "pad": box(pad)}
        state["window_id"] = int(win.winId())
        state["ready"] = True
        save()

    win.move(100, 80)
    win.show()
    win.activateWindow()
    entry.setFocus()
    QTimer.singleShot(300, ready)
    sys.exit(app.exec())
''')


class App:
    """The running app: its state file, and helpers to wait for a state."""

    def __init__(self, proc: subprocess.Popen, state_file: Path) -> None:
        self.proc, self.state_file = proc, state_file

    def state(self) -> dict[str, Any]:
        try:
            return json.loads(self.state_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], what: str,
                 timeout: float = 5.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.state()
            if state and predicate(state):
                return state
            if self.proc.poll() is not None:
                pytest.fail(f"the app exited ({self.proc.returncode}) while waiting for {what}")
            time.sleep(0.02)
        pytest.fail(f"timed out waiting for {what}; app state: {self.state()}")

    def box(self, name: str) -> Box:
        return Box(*self.state()["geometry"][name])


@pytest.fixture
def app(xvfb: str, tmp_path: Path) -> Iterator[App]:
    script = tmp_path / "app.py"
    script.write_text(APP, encoding="utf-8")
    state_file = tmp_path / "state.json"
    env = dict(os.environ, QT_QPA_PLATFORM="xcb", DISPLAY=xvfb)
    proc = subprocess.Popen([sys.executable, str(script), str(state_file)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    running = App(proc, state_file)
    try:
        running.wait_for(lambda s: s.get("ready"), "the app window", timeout=20)
        _wait_until_drawn(running, xvfb)
        # input reaches the window: the pointer moved onto the pad is seen by the app
        PyAutoGuiController(failsafe=False).move(running.box("pad").center.offset(0, 40))
        running.wait_for(lambda s: s["pointer_in"], "the pointer to enter the window")
        yield running
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        output = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
        if output.strip():
            log.info("app output: %s", output)


def _wait_until_drawn(app: App, display: str, timeout: float = 10.0) -> None:
    """Wait until the X server shows the pad's colour over the whole pad.

    Qt reports its geometry before the window is mapped and painted; under load input sent
    in between lands on the root window (CI saw a double click vanish that way).
    """
    pad = app.box("pad")
    probes = [pad.center, Point(pad.left + 3, pad.top + 3), Point(pad.right - 4, pad.bottom - 4)]
    assert os.environ.get("DISPLAY") == display
    capture = ScreenCapture()
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            obs = capture.capture()
            if all(obs.image.getpixel((obs.to_image(p).x, obs.to_image(p).y)) == PAD_RGB for p in probes):
                time.sleep(0.05)  # one more frame for the input side to settle
                return
            time.sleep(0.05)
    finally:
        capture.close()
    pytest.fail(f"the app window never appeared on screen over {pad}")


@pytest.fixture
def gui(xvfb: str) -> Iterator[PyAutoGuiController]:
    controller = PyAutoGuiController()
    yield controller
    PyAutoGuiController(failsafe=False).move(Point(640, 400))  # never leave it in a corner


def test_click_and_type_ascii(app: App, gui: PyAutoGuiController) -> None:
    gui.click(app.box("button").center)
    app.wait_for(lambda s: s["clicks"] == 1, "one button click")
    gui.click(app.box("entry").center)
    gui.type_text("Hello, World! (1+1=2) ~`{}")
    app.wait_for(lambda s: s["text"] == "Hello, World! (1+1=2) ~`{}", "the typed text")
    assert gui.position() == app.box("entry").center


def test_select_all_and_type_non_ascii_through_the_clipboard(
        app: App, gui: PyAutoGuiController) -> None:
    import pyperclip

    require_tool("xclip", apt="xclip")

    pyperclip.copy("what was on the clipboard")
    gui.click(app.box("entry").center)
    gui.type_text("old text")
    app.wait_for(lambda s: s["text"] == "old text", "the ASCII text")
    gui.hotkey("Ctrl+A")
    app.wait_for(lambda s: s["selected"] == "old text", "select-all")
    gui.type_text("Zoë — 東京 ✓")
    app.wait_for(lambda s: s["text"] == "Zoë — 東京 ✓", "the non-ASCII text to replace it")
    assert pyperclip.paste() == "what was on the clipboard"


def test_press_and_key_down_up(app: App, gui: PyAutoGuiController) -> None:
    gui.click(app.box("entry").center)
    gui.type_text("abc")
    app.wait_for(lambda s: s["text"] == "abc", "abc")
    gui.press("backspace", presses=2)
    app.wait_for(lambda s: s["text"] == "a", "two backspaces")
    gui.key_down("shift")
    gui.press("b")
    gui.key_up("shift")
    app.wait_for(lambda s: s["text"] == "aB", "shift held around b")
    gui.press("Home")
    gui.press("shift end")  # a combo given to press() becomes a hotkey
    app.wait_for(lambda s: s["selected"] == "aB", "shift+end selection")


def test_double_right_click_scroll_and_drag(app: App, gui: PyAutoGuiController) -> None:
    pad = app.box("pad")
    gui.click(pad.center, clicks=2)
    app.wait_for(lambda s: s["double_clicks"] == 1, "a double click")
    gui.click(pad.center, button="right")
    app.wait_for(lambda s: s["right_clicks"] == 1, "a right click")
    gui.scroll("down", 3, pad.center)
    app.wait_for(lambda s: s["wheel_y"] == -360, "three wheel notches down")
    gui.scroll("up", 1)
    app.wait_for(lambda s: s["wheel_y"] == -240, "one notch back up")
    gui.scroll("right", 2, pad.center)
    app.wait_for(lambda s: s["wheel_x"] != 0, "a horizontal scroll")
    src, dst = pad.center.offset(-150, -80), pad.center.offset(120, 60)
    gui.drag(src, dst, duration=0.2)
    app.wait_for(lambda s: s["drag"] == [src.x, src.y, dst.x, dst.y], "a drag")
    assert gui.position() == dst


def test_capture_sees_the_window(app: App, gui: PyAutoGuiController,
                                 screen_1280x800: ScreenCapture) -> None:
    capture = screen_1280x800
    pad = app.box("pad")
    point = pad.center.offset(100, -50)
    gui.move(point)
    obs = capture.capture()
    assert obs.monitor.scale == 1.0 and obs.size == (1280, 800)
    assert obs.cursor == point
    probe = Point(pad.left + 5, pad.top + 5)
    pixel = obs.to_image(probe)
    assert obs.image.getpixel((pixel.x, pixel.y)) == PAD_RGB
    assert obs.to_screen(pixel) == probe
    region = capture.capture(region=Box(pad.left - 10, pad.top - 10, 40, 40))
    assert region.image.getpixel((10, 10)) == PAD_RGB
    assert region.image.getpixel((5, 5)) != PAD_RGB
    times = []
    for _ in range(20):
        start = time.perf_counter()
        capture.capture()
        times.append(time.perf_counter() - start)
    log.warning("capture 1280x800 (with cursor + window title): median %.2f ms, max %.2f ms",
                statistics.median(times) * 1e3, max(times) * 1e3)


def test_capture_reads_the_active_window(app: App, screen_1280x800: ScreenCapture) -> None:
    """Its title, its box, and whether it is a dialog (transient for another window)."""
    from Xlib import X, Xatom
    from Xlib import display as xdisplay

    assert screen_1280x800.capture().window_title is None  # no window manager, no title
    conn = xdisplay.Display(os.environ["DISPLAY"])
    root = conn.screen().root
    atom = conn.intern_atom("_NET_ACTIVE_WINDOW")
    window = conn.create_resource_object("window", app.state()["window_id"])
    try:  # play the window manager's part
        root.change_property(atom, Xatom.WINDOW, 32, [window.id])
        conn.sync()
        seen = screen_1280x800.capture().window
        assert seen is not None and seen.title == "gui-agent e2e" and seen.id == window.id
        assert not seen.dialog
        assert seen.box is not None and seen.box.contains(app.box("pad").center)
        window.change_property(Xatom.WM_TRANSIENT_FOR, Xatom.WINDOW, 32, [root.id])
        conn.sync()
        assert screen_1280x800.capture().window.dialog
    finally:
        window.delete_property(Xatom.WM_TRANSIENT_FOR)
        root.delete_property(atom)
        conn.sync()
        conn.close()
    assert X.AnyPropertyType == 0  # the constant the title look-up relies on


def test_failsafe_corner_stops_with_a_clear_error(xvfb: str, gui: PyAutoGuiController) -> None:
    PyAutoGuiController(failsafe=False).move(Point(0, 0))
    with pytest.raises(FailSafeTriggered) as info:
        gui.click(Point(300, 300))
    assert isinstance(info.value, SafetyRefusal)
    assert "corner" in str(info.value)
    assert gui.position() == Point(0, 0)  # nothing moved
    PyAutoGuiController(failsafe=False).move(Point(1279, 799))
    with pytest.raises(FailSafeTriggered):
        gui.type_text("x")


def test_unmapped_key_is_a_control_error(xvfb: str, gui: PyAutoGuiController) -> None:
    from gui_agent.errors import ControlError

    with pytest.raises(ControlError, match="volumeup"):
        gui.press("volumeup")  # in pyautogui's names, but no X keysym mapping


def _start_own(size: tuple[int, int], number: int | None = None) -> VirtualDisplay:
    """Another Xvfb: on ``number``, or (None) on the first display number that is free."""
    display = VirtualDisplay(size=size, display=number)
    display.start()
    return display


def test_controller_and_capture_follow_a_display_change(xvfb: str) -> None:
    gui, capture = PyAutoGuiController(), ScreenCapture()
    try:
        assert gui.screen_size() == (1280, 800)
        assert capture.capture().size == (1280, 800)
        other = _start_own((800, 600))
        try:
            assert os.environ["DISPLAY"] == other.name != xvfb
            assert gui.screen_size() == (800, 600)
            gui.move(Point(10, 20))
            assert gui.position() == Point(10, 20)
            assert capture.capture().size == (800, 600)
            import pyautogui

            assert (799, 599) in pyautogui.FAILSAFE_POINTS
        finally:
            other.stop()
        assert os.environ["DISPLAY"] == xvfb
        assert gui.screen_size() == (1280, 800)
        assert capture.capture().size == (1280, 800)
        # The same display number restarted with another size: old connections are dead.
        first = _start_own((640, 480))
        number = int(first.name.lstrip(":"))
        assert gui.screen_size() == (640, 480)
        assert capture.capture().size == (640, 480)
        first.stop()
        second = _start_own((1024, 768), number)
        try:
            assert gui.screen_size() == (1024, 768)
            assert capture.capture().size == (1024, 768)
        finally:
            second.stop()
    finally:
        capture.close()


def test_virtual_display_sets_and_restores_the_environment(xvfb: str, tmp_path: Path,
                                                           monkeypatch) -> None:
    monkeypatch.delenv("XAUTHORITY", raising=False)
    before = os.environ["DISPLAY"]
    display = _start_own((320, 240))
    try:
        xauth = Path(os.environ["XAUTHORITY"])
        assert xauth.is_file()
        from Xlib.xauth import Xauthority

        assert [e[3] for e in Xauthority(str(xauth)).entries] == [b"gui-agent-none"]
        assert display.active and display_available()
    finally:
        display.stop()
    assert os.environ["DISPLAY"] == before
    assert "XAUTHORITY" not in os.environ and not xauth.exists()
    display.stop()  # idempotent


def test_a_virtual_display_does_not_reset_when_its_last_client_leaves(xvfb: str) -> None:
    # By default Xvfb resets when its last client disconnects: what was on the root window
    # (the accessibility bus address) is dropped, and a client connecting meanwhile (an app
    # started by a batch worker) is refused and aborts.
    require_tool("xprop", apt="x11-utils")
    display = _start_own((320, 240))
    try:
        env = {**os.environ, "DISPLAY": display.name or ""}
        subprocess.run(["xprop", "-root", "-f", "_GUI_AGENT_MARK", "8s", "-set", "_GUI_AGENT_MARK",
                        "kept"], env=env, check=True, timeout=20)
        read = subprocess.run(["xprop", "-root", "_GUI_AGENT_MARK"], env=env, check=True,
                              capture_output=True, text=True, timeout=20)
        assert '"kept"' in read.stdout, read.stdout
    finally:
        display.stop()


def test_ensure_display_headless_starts_and_stops(xvfb: str) -> None:
    before = os.environ["DISPLAY"]
    with ensure_display(headless=True, size=(640, 480)) as name:
        assert name and name != before
        assert ScreenCapture().capture().size == (640, 480)
    assert os.environ["DISPLAY"] == before
    with ensure_display(headless=None) as name:  # a display exists: it is used
        assert name == before


def test_stop_hotkey_fires_on_the_real_key_combination(xvfb: str,
                                                       gui: PyAutoGuiController) -> None:
    calls: list[int] = []
    with StopHotkey("<ctrl>+<alt>+<esc>", on_stop=lambda: calls.append(1)) as hotkey:
        assert hotkey.active
        gui.hotkey("ctrl", "alt", "esc")
        assert hotkey.event.wait(3), "the stop hotkey was not heard"
    assert calls == [1] and hotkey.pressed and not hotkey.active
    with pytest.raises(ConfigError, match="invalid stop hotkey"):
        StopHotkey("<ctrl>+<nosuchkey>").start()


def test_display_started_after_import_is_used(xvfb: str, tmp_path: Path) -> None:
    """`gui-agent run --headless`: the engine is imported first, the display started later."""
    code = textwrap.dedent('''
        import os, sys
        from gui_agent.control import PyAutoGuiController
        from gui_agent.display import VirtualDisplay
        from gui_agent.geometry import Point
        from gui_agent.screen import ScreenCapture
        assert "DISPLAY" not in os.environ
        gui = PyAutoGuiController()
        with VirtualDisplay(size=(640, 480)):
            gui.move(Point(5, 6))
            assert gui.position() == Point(5, 6), gui.position()
            assert gui.screen_size() == (640, 480), gui.screen_size()
            assert ScreenCapture().capture().size == (640, 480)
        assert "DISPLAY" not in os.environ
        print("ok")
    ''')
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "XAUTHORITY")}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=60, cwd=REPO)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_the_clipboard_says_nothing_when_its_virtual_display_stops(tmp_path: Path) -> None:
    # The demo ended with "X connection to :0 broken": pyperclip's xclip, still serving the
    # pasted text, wrote it into the user's terminal when the demo's Xvfb was stopped.
    require_tool("xclip", apt="xclip")
    script = textwrap.dedent("""
        from gui_agent.control import clipboard
        from gui_agent.display import VirtualDisplay
        with VirtualDisplay(size=(320, 200)):
            clipboard.copy("Zoë — 東京")
            assert clipboard.paste() == "Zoë — 東京", clipboard.paste()
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr   # run() read its output to the end: xclip's too
    assert "X connection" not in done.stderr + done.stdout
