"""A global key combination that stops the agent, heard even when another window has focus.

Listening needs a display and a pynput backend (on X11: the RECORD extension). Where
that is missing the hotkey is disabled with a warning instead of failing the run: the
fail-safe corner and the app's Stop button still work.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from ..errors import ConfigError

log = logging.getLogger(__name__)

DEFAULT_STOP_HOTKEY = "<ctrl>+<alt>+<esc>"


def _nudge_x11_record() -> None:
    """Wake pynput's X11 listener so that it sees it was stopped.

    Once it has received an event, pynput's RECORD loop only notices stop() at the next
    key event. A press and release of a keycode with no symbol bound wakes it; no
    application acts on a key without a symbol.
    """
    from Xlib import X
    from Xlib import display as xdisplay
    from Xlib.ext.xtest import fake_input

    from .injection import injecting

    conn = xdisplay.Display()
    try:
        unbound = [k for k in range(255, 7, -1) if conn.keycode_to_keysym(k, 0) == 0]
        if unbound:
            with injecting():   # not a key a recorder should keep
                fake_input(conn, X.KeyPress, unbound[0])
                fake_input(conn, X.KeyRelease, unbound[0])
                conn.sync()
    finally:
        conn.close()


class StopHotkey:
    """Sets ``event`` (and calls ``on_stop``) when ``combination`` is pressed anywhere.

    ``combination`` uses pynput's syntax: "<ctrl>+<alt>+<esc>", "<ctrl>+<shift>+q".
    """

    def __init__(self, combination: str = DEFAULT_STOP_HOTKEY,
                 on_stop: Callable[[], None] | None = None, *, ready_timeout_s: float = 3.0
                 ) -> None:
        self.combination = combination
        self.on_stop = on_stop
        self.ready_timeout_s = ready_timeout_s
        self.event = threading.Event()
        self._listener: Any = None

    @property
    def active(self) -> bool:
        """True while the listener thread is running."""
        return self._listener is not None and self._listener.is_alive()

    @property
    def pressed(self) -> bool:
        return self.event.is_set()

    def _fire(self) -> None:
        log.warning("stop hotkey %s pressed", self.combination)
        self.event.set()
        if self.on_stop is not None:
            try:
                self.on_stop()
            except Exception:  # the listener thread must survive a faulty callback
                log.exception("stop hotkey callback failed")

    def start(self) -> bool:
        """Start listening; returns False (with a warning) when it cannot listen here."""
        if self.active:
            return True
        if sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
            log.warning("stop hotkey %s disabled: no display (DISPLAY is not set)",
                        self.combination)
            return False
        try:
            from pynput import keyboard
        except Exception as exc:  # pynput raises ImportError when no backend can load
            log.warning("stop hotkey %s disabled: pynput cannot listen here: %s",
                        self.combination, exc)
            return False
        try:
            keyboard.HotKey.parse(self.combination)
        except ValueError as exc:
            raise ConfigError(f"invalid stop hotkey {self.combination!r}: {exc}; use pynput's "
                              "form, e.g. '<ctrl>+<alt>+<esc>'") from exc
        try:
            listener = keyboard.GlobalHotKeys({self.combination: self._fire})
            listener.daemon = True
            listener.start()
        except Exception as exc:
            log.warning("stop hotkey %s disabled: %s", self.combination, exc)
            return False
        if not self._wait_ready(listener):
            log.warning("stop hotkey %s disabled: the keyboard listener did not start "
                        "(on X11 it needs the RECORD extension)", self.combination)
            self._stop_listener(listener)
            return False
        self._listener = listener
        log.info("stop hotkey %s active", self.combination)
        return True

    def _wait_ready(self, listener: Any) -> bool:
        """listener.wait() blocks forever if the thread dies first: wait in a helper thread."""
        waiter = threading.Thread(target=listener.wait, daemon=True, name="stop-hotkey-wait")
        waiter.start()
        waiter.join(self.ready_timeout_s)
        return not waiter.is_alive() and listener.is_alive()

    @staticmethod
    def _stop_listener(listener: Any) -> None:
        try:
            listener.stop()
            if listener is threading.current_thread():
                return
            listener.join(0.2)
            if listener.is_alive() and sys.platform.startswith("linux"):
                _nudge_x11_record()
                listener.join(1.0)
        except Exception as exc:
            log.debug("stopping the hotkey listener: %s", exc)
        if listener.is_alive():
            log.debug("the hotkey listener thread is still running (daemon: it will not "
                      "keep the process alive)")

    def stop(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            self._stop_listener(listener)

    def __enter__(self) -> StopHotkey:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
