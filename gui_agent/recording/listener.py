"""Global mouse and keyboard listeners (pynput) that hand each input on as a :class:`RawEvent`.

On X11 pynput listens through the RECORD extension (Xvfb has it unless started with
``-extension RECORD``); input from XTest (xdotool, pyautogui) is heard like a person's. Which
input is gui-agent's own is decided by :func:`gui_agent.control.injection.is_injecting`, at the
moment the event is heard; pynput's own ``injected`` flag is not used (on Windows it marks every
synthetic event, whoever sent it).

Mouse moves are passed on only while a button is held (that is all a drag needs), so the
callbacks stay cheap.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from ..control.injection import injecting, is_injecting
from ..errors import DisplayError
from .events import RawEvent

log = logging.getLogger(__name__)

_SIDED = ("alt", "ctrl", "shift", "cmd")
_KEYSYMS = {0xFE20: "tab"}            # ISO_Left_Tab: what Shift+Tab sends on X11
_MEDIA = {"media_volume_up": "volumeup", "media_volume_down": "volumedown",
          "media_volume_mute": "volumemute", "media_play_pause": "playpause",
          "media_next": "nexttrack", "media_previous": "prevtrack"}


def key_name(name: str) -> str | None:
    """pynput's Key name -> gui-agent's key name; None for keys to ignore (AltGr)."""
    from ..control.keys import normalize_key
    from ..errors import ControlError

    if name == "alt_gr":
        return None
    name = _MEDIA.get(name, name)
    for side in _SIDED:
        if name in (f"{side}_l", f"{side}_r"):
            name = side
    try:
        return normalize_key(name)
    except ControlError:
        return name


def key_fields(key: Any) -> tuple[str | None, str | None, str] | None:
    """(key name, typed character, pairing code) of a pynput key; None to ignore it."""
    name = getattr(key, "name", None)
    value = getattr(key, "value", None)
    if name is not None and value is not None:           # a pynput.keyboard.Key member
        if name == "space":
            return None, " ", "space"
        mapped = key_name(name)
        return (mapped, None, name) if mapped else None
    char = getattr(key, "char", None)
    vk = getattr(key, "vk", None)
    code = str(vk) if vk is not None else (char or "").lower()
    if char:
        return None, char, code
    if vk in _KEYSYMS:
        return _KEYSYMS[vk], None, code
    return (f"vk{vk}" if vk is not None else "unknown"), None, code


class InputListener:
    """Starts pynput's listeners; ``on_event`` runs on their threads (keep it quick)."""

    def __init__(self, on_event: Callable[[RawEvent], None]) -> None:
        self.on_event = on_event
        self._mouse: Any = None
        self._keyboard: Any = None
        self._buttons: set[str] = set()
        self._stopping = False

    def _emit(self, **fields: Any) -> None:
        if self._stopping:
            return
        raw = RawEvent(time=time.time(), injected=is_injecting(), **fields)
        try:
            self.on_event(raw)
        except Exception:  # a listener thread that dies stops recording silently: log instead
            log.exception("recording an input event failed")

    # -- pynput callbacks ------------------------------------------------------------
    def _on_move(self, x: float, y: float, injected: bool = False) -> None:
        if self._buttons:
            self._emit(kind="move", x=int(x), y=int(y))

    def _on_click(self, x: float, y: float, button: Any, pressed: bool, injected: bool = False) -> None:
        name = getattr(button, "name", str(button))
        if name not in ("left", "right", "middle"):
            return
        if pressed:
            self._buttons.add(name)
        else:
            self._buttons.discard(name)
        self._emit(kind="press" if pressed else "release", x=int(x), y=int(y), button=name)

    def _on_scroll(self, x: float, y: float, dx: float, dy: float, injected: bool = False) -> None:
        self._emit(kind="scroll", x=int(x), y=int(y), dx=int(dx), dy=int(dy))

    def _on_key(self, key: Any, pressed: bool) -> None:
        fields = key_fields(key)
        if fields is None:
            return
        name, char, code = fields
        self._emit(kind="key_down" if pressed else "key_up", key=name, char=char, code=code)

    def _on_press(self, key: Any, injected: bool = False) -> None:
        self._on_key(key, True)

    def _on_release(self, key: Any, injected: bool = False) -> None:
        self._on_key(key, False)

    # -- life cycle ------------------------------------------------------------------
    def start(self, timeout: float = 5.0) -> None:
        """Start both listeners and wait until they hear input; DisplayError if they cannot."""
        if sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
            raise DisplayError("cannot record: no display (DISPLAY is not set); record on a running "
                               "X server, e.g. DISPLAY=:0")
        try:
            from pynput import keyboard, mouse
        except Exception as exc:  # pynput raises ImportError when no backend loads
            raise DisplayError(f"cannot record: pynput cannot listen here ({exc})") from exc
        self._stopping = False
        self._mouse = mouse.Listener(on_move=self._on_move, on_click=self._on_click,
                                     on_scroll=self._on_scroll)
        self._keyboard = keyboard.Listener(on_press=self._on_press, on_release=self._on_release)
        for listener in (self._mouse, self._keyboard):
            listener.daemon = True
            listener.start()
        for listener in (self._mouse, self._keyboard):
            waiter = threading.Thread(target=listener.wait, daemon=True, name="recorder-wait")
            waiter.start()
            waiter.join(timeout)
            if waiter.is_alive() or not listener.is_alive():
                self.stop()
                raise DisplayError("cannot record: the input listener did not start. On X11 it "
                                   "needs the RECORD extension (`xdpyinfo | grep RECORD`; Xvfb has "
                                   "it unless started with -extension RECORD)")

    def stop(self) -> None:
        self._stopping = True
        listeners = [x for x in (self._mouse, self._keyboard) if x is not None]
        self._mouse = self._keyboard = None
        for listener in listeners:
            try:
                listener.stop()
            except Exception as exc:
                log.debug("stopping a listener: %s", exc)
        for listener in listeners:
            if listener is not threading.current_thread():
                listener.join(0.3)
        if any(x.is_alive() for x in listeners) and sys.platform.startswith("linux"):
            _wake_x11_listeners()
            for listener in listeners:
                listener.join(1.0)


def _wake_x11_listeners() -> None:
    """pynput's RECORD loop notices stop() only at its next event: send one of each kind,
    harmless (a key with no symbol, a zero-length pointer move) and marked as our own."""
    from Xlib import X
    from Xlib import display as xdisplay
    from Xlib.ext.xtest import fake_input

    try:
        conn = xdisplay.Display()
    except Exception as exc:
        log.debug("cannot wake the listeners: %s", exc)
        return
    try:
        with injecting():
            unbound = [k for k in range(255, 7, -1) if conn.keycode_to_keysym(k, 0) == 0]
            if unbound:
                fake_input(conn, X.KeyPress, unbound[0])
                fake_input(conn, X.KeyRelease, unbound[0])
            pointer = conn.screen().root.query_pointer()
            fake_input(conn, X.MotionNotify, x=pointer.root_x, y=pointer.root_y)
            conn.sync()
    finally:
        conn.close()
