"""Real mouse and keyboard through pyautogui, with settings on the instance.

pyautogui keeps its settings in module globals and, on Linux, opens the X display
named by ``DISPLAY`` once, when it is imported (``pyautogui._pyautogui_x11._display``,
plus a key map of keycodes built from it). So:

* pyautogui is imported lazily, at the first call, so the engine can be imported
  before a (virtual) display is started;
* before every call the controller checks that pyautogui's connection is to the current
  ``DISPLAY`` and still alive (one X round trip); if not -- DISPLAY changed, or the
  server was restarted under the same name -- it reloads ``_pyautogui_x11`` (which
  reconnects and rebuilds the key map), closes the old connection, and resets
  ``pyautogui.FAILSAFE_POINTS`` to the corners of the new screen;
* no global pause: every call passes ``_pause=False`` (``pyautogui.PAUSE`` is never
  relied on or changed) and the agent waits for the screen to settle instead;
  ``pyautogui.FAILSAFE`` is set from the instance before every call.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from types import ModuleType
from typing import Any, TypeVar

from ..display import no_display_message
from ..errors import ControlError, DisplayError, GuiAgentError
from ..geometry import Point
from . import clipboard
from .app_registry import AppFinder, AppRegistry
from .base import (
    FailSafeTriggered,
    MouseButton,
    ScrollDirection,
    check_button,
    check_count,
    check_direction,
    check_duration,
    check_point,
    needs_clipboard,
)
from .injection import injecting
from .keys import is_mac, normalize_key, parse_hotkey
from .launcher import launch_app

log = logging.getLogger(__name__)
MULTI_CLICK_GAP_S = 0.03

T = TypeVar("T")
_LOCK = threading.RLock()  # pyautogui's module state and X connection are not thread-safe


def _display_key(name: str | None) -> tuple[str, str]:
    """':1.0' and ':1' name the same display: compare (host, number)."""
    host, _, rest = (name or "").rpartition(":")
    return host, rest.split(".", 1)[0]


def _x11_connection_ok(x11: ModuleType, display: str) -> bool:
    conn = getattr(x11, "_display", None)
    if conn is None or _display_key(conn.get_display_name()) != _display_key(display):
        return False
    try:
        conn.get_input_focus()  # a round trip: fails when the server has gone away
    except Exception as exc:
        log.debug("pyautogui's X connection is dead: %s", exc)
        return False
    return True


def _repoint_x11(pyautogui: ModuleType, display: str) -> None:
    """Reconnect pyautogui's X11 backend to ``display`` (see the module docstring)."""
    x11 = pyautogui.platformModule
    old = getattr(x11, "_display", None)
    log.info("connecting pyautogui to display %s", display)
    try:
        importlib.reload(x11)
    except Exception as exc:
        raise DisplayError(f"pyautogui cannot open display {display}: {exc}. "
                           "Is the X server running?") from exc
    if old is not None:
        try:
            old.close()
        except Exception as exc:  # the old server may be gone
            log.debug("closing pyautogui's old X connection: %s", exc)
    width, height = x11._size()
    pyautogui.FAILSAFE_POINTS[:] = [(0, 0), (0, height - 1), (width - 1, 0),
                                    (width - 1, height - 1)]


def load_pyautogui() -> ModuleType:
    """Import pyautogui for the current DISPLAY, reconnecting it if DISPLAY changed."""
    linux = sys.platform.startswith("linux")
    display = os.environ.get("DISPLAY")
    if linux and not display:
        raise DisplayError(no_display_message())
    try:
        import pyautogui
    except Exception as exc:  # Xlib errors, KeyError('DISPLAY'), missing backend
        raise DisplayError(f"cannot load pyautogui on display {display}: {exc}. Check the "
                           "display is running (or run with --headless)") from exc
    if linux and display and not _x11_connection_ok(pyautogui.platformModule, display):
        _repoint_x11(pyautogui, display)
    return pyautogui


class PyAutoGuiController:
    """Drives the real mouse and keyboard. Points are screen (pyautogui) coordinates.

    Text that pyautogui cannot type key by key (non-ASCII, or keys missing from the
    platform's key map) is pasted: clipboard + ctrl+v (cmd+v on macOS), and the previous
    clipboard is restored ``clipboard_settle_s`` later, once the application has read it.
    Applications are launched through ``apps``, the application registry (default: this
    platform's, with no allow list; pass ``AppRegistry.for_platform(settings.allow_apps)``).
    """

    def __init__(self, *, failsafe: bool = True, type_interval: float = 0.0,
                 clipboard_settle_s: float = 0.15, restore_clipboard: bool = True,
                 platform: str | None = None, apps: AppFinder | None = None) -> None:
        self.apps: AppFinder = apps if apps is not None else AppRegistry.for_platform(
            platform=platform)
        self.failsafe = failsafe
        self.type_interval = check_duration(type_interval)
        self.clipboard_settle_s = check_duration(clipboard_settle_s)
        self.restore_clipboard = restore_clipboard
        self.platform = platform or sys.platform

    # -- plumbing --------------------------------------------------------------------
    @contextmanager
    def _gui(self, what: str, inject: bool = True) -> Iterator[Any]:
        """pyautogui, ready for one call; pyautogui errors become gui-agent errors.

        Input sent inside is marked as gui-agent's own, so a recorder never records it.
        """
        with _LOCK, (injecting() if inject else nullcontext()):
            pyautogui = load_pyautogui()
            pyautogui.FAILSAFE = self.failsafe
            try:
                yield pyautogui
            except pyautogui.FailSafeException as exc:
                raise FailSafeTriggered(what) from exc
            except GuiAgentError:
                raise
            except pyautogui.PyAutoGUIException as exc:
                raise ControlError(f"{what} failed: {exc}") from exc
            except Exception as exc:
                if isinstance(exc, OSError) or type(exc).__module__.startswith("Xlib"):
                    raise ControlError(f"{what} failed: {exc}. Is the display still running?"
                                       ) from exc
                raise

    def _call(self, what: str, fn: Callable[[Any], T], inject: bool = True) -> T:
        with self._gui(what, inject) as pyautogui:
            return fn(pyautogui)

    def _checked_key(self, pyautogui: Any, key: str) -> str:
        if not pyautogui.isValidKey(key):
            raise ControlError(f"key {key!r} cannot be pressed on this platform ({sys.platform}): "
                               "pyautogui has no mapping for it")
        return key

    # -- mouse -----------------------------------------------------------------------
    def click(self, point: Point, button: MouseButton = "left", clicks: int = 1) -> None:
        p, b, n = check_point(point), check_button(button), check_count(clicks, "clicks")
        # Clicks of a double click sent in the same millisecond carry one X timestamp, and Qt
        # then sees two single clicks: leave a short gap, far inside any double-click interval.
        self._call(f"{b} click at ({p.x}, {p.y})", lambda g: g.click(
            x=p.x, y=p.y, clicks=n, interval=MULTI_CLICK_GAP_S if n > 1 else 0.0, button=b, _pause=False))

    def move(self, point: Point) -> None:
        p = check_point(point)
        self._call(f"move to ({p.x}, {p.y})", lambda g: g.moveTo(p.x, p.y, _pause=False))

    def drag(self, src: Point, dst: Point, duration: float = 0.3,
             button: MouseButton = "left") -> None:
        s, d = check_point(src, "src"), check_point(dst, "dst")
        b, secs = check_button(button), check_duration(duration)

        def run(g: Any) -> None:
            g.moveTo(s.x, s.y, _pause=False)
            g.dragTo(d.x, d.y, duration=secs, button=b, mouseDownUp=True, _pause=False)

        self._call(f"drag ({s.x}, {s.y}) -> ({d.x}, {d.y})", run)

    def scroll(self, direction: ScrollDirection, amount: int = 3,
               point: Point | None = None) -> None:
        d, n = check_direction(direction), check_count(amount, "amount")
        p = None if point is None else check_point(point)
        x, y = (None, None) if p is None else (p.x, p.y)
        clicks = n if d in ("up", "right") else -n

        def run(g: Any) -> None:
            if d in ("up", "down"):
                g.scroll(clicks, x=x, y=y, _pause=False)
            else:
                g.hscroll(clicks, x=x, y=y, _pause=False)

        self._call(f"scroll {d} {n}", run)

    def position(self) -> Point:
        x, y = self._call("read the mouse position", lambda g: g.position(), inject=False)
        return Point(int(x), int(y))

    def screen_size(self) -> tuple[int, int]:
        """Size of the primary screen in pyautogui coordinates."""
        w, h = self._call("read the screen size", lambda g: g.size(), inject=False)
        return int(w), int(h)

    # -- keyboard --------------------------------------------------------------------
    def type_text(self, text: str) -> None:
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        if not text:
            return
        with self._gui(f"type {len(text)} characters") as g:
            if needs_clipboard(text, g.isValidKey):
                self._paste(g, text)
            else:
                g.write(text, interval=self.type_interval, _pause=False)

    def _paste(self, g: Any, text: str) -> None:
        previous: str | None = None
        if self.restore_clipboard:
            try:
                previous = clipboard.paste()
            except ControlError as exc:
                log.debug("cannot read the clipboard to restore it later: %s", exc)
        try:
            clipboard.copy(text)
        except ControlError as exc:
            raise ControlError(f"cannot put text on the clipboard to type non-ASCII characters: "
                               f"{exc}") from exc
        g.hotkey("command" if is_mac(self.platform) else "ctrl", "v", _pause=False)
        if previous is None:
            return
        time.sleep(self.clipboard_settle_s)  # the app reads the clipboard asynchronously
        try:
            clipboard.copy(previous)
        except ControlError as exc:
            log.warning("could not restore the previous clipboard: %s", exc)

    def press(self, key: str, presses: int = 1) -> None:
        keys = parse_hotkey(key, self.platform)
        count = check_count(presses, "presses")
        if len(keys) > 1:
            for _ in range(count):
                self.hotkey(*keys)
            return
        with self._gui(f"press {keys[0]}") as g:
            g.press(self._checked_key(g, keys[0]), presses=count, interval=0.0, _pause=False)

    def hotkey(self, *keys: str) -> None:
        names = parse_hotkey(keys, self.platform)
        with self._gui(f"hotkey {'+'.join(names)}") as g:
            g.hotkey(*[self._checked_key(g, k) for k in names], _pause=False)

    def key_down(self, key: str) -> None:
        name = normalize_key(key, self.platform)
        with self._gui(f"key down {name}") as g:
            g.keyDown(self._checked_key(g, name), _pause=False)

    def key_up(self, key: str) -> None:
        name = normalize_key(key, self.platform)
        with self._gui(f"key up {name}") as g:
            g.keyUp(self._checked_key(g, name), _pause=False)

    # -- applications ----------------------------------------------------------------
    def launch(self, app: str) -> None:
        launch_app(app, self.apps)
