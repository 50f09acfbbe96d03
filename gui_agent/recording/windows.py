"""The window an input event went to: its title and geometry, where the platform tells us.

On X11 (through Xlib): the window manager's ``_NET_ACTIVE_WINDOW`` when there is one; without a
window manager (Xvfb) the top-level window under the pointer for mouse events, and the one
holding the keyboard focus for keys. Elsewhere: unknown (None).
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from typing import Any

from ..screen.capture import x11_window_title
from .events import WindowInfo

log = logging.getLogger(__name__)


class WindowProbe:
    """Looks windows up on its own X connection (thread-safe: one lock around it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn: Any = None
        self._failed = False

    def _connection(self) -> Any:
        if self._conn is None and not self._failed:
            if not sys.platform.startswith("linux") or not os.environ.get("DISPLAY"):
                self._failed = True
                return None
            try:
                from Xlib import display as xdisplay

                self._conn = xdisplay.Display()
            except Exception as exc:
                log.debug("no window information: %s", exc)
                self._failed = True
        return self._conn

    def info(self, *, pointer: bool) -> WindowInfo | None:
        """The active window, else the top-level window under the pointer (``pointer``) or
        holding the keyboard focus."""
        with self._lock:
            conn = self._connection()
            if conn is None:
                return None
            try:
                return self._info(conn, pointer)
            except Exception as exc:  # a window closing under us is normal
                log.debug("window information unavailable: %s", exc)
                return None

    def _info(self, conn: Any, pointer: bool) -> WindowInfo | None:
        from Xlib import X

        root = conn.screen().root
        window = None
        active = root.get_full_property(conn.intern_atom("_NET_ACTIVE_WINDOW"), X.AnyPropertyType)
        if active is not None and active.value and active.value[0]:
            window = conn.create_resource_object("window", int(active.value[0]))
        elif pointer:
            window = root.query_pointer().child or None
        else:
            window = self._top_level(conn, root, conn.get_input_focus().focus)
        if window is None or window in (X.NONE, X.PointerRoot) or isinstance(window, int):
            return None
        title = x11_window_title(conn, window) or self._childx11_window_title(conn, window)
        geometry = window.get_geometry()
        origin = window.translate_coords(root, 0, 0)
        box = (-int(origin.x), -int(origin.y), int(geometry.width), int(geometry.height))
        return WindowInfo(title, box)

    @staticmethod
    def _top_level(conn: Any, root: Any, window: Any) -> Any:
        if window is None or isinstance(window, int):
            return None
        while True:
            tree = window.query_tree()
            if tree.parent is None or tree.parent.id == root.id or tree.parent.id == 0:
                return window
            window = tree.parent

    @staticmethod
    def _child_title(conn: Any, window: Any) -> str | None:
        """A reparenting window manager's frame has no title; its client child does."""
        for child in window.query_tree().children[:8]:
            title = x11_window_title(conn, child)
            if title:
                return title
        return None

    def close(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception as exc:
                log.debug("closing the window probe: %s", exc)
