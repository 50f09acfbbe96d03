"""Which windows lie above which: an accessibility tree lists every window, the covered ones
too, so an element under another window must not be offered as a target.

On X11 the root window's children are the top-level windows in stacking order, bottom to top
(with a window manager: its frames, the applications' windows inside them; menus and tooltips
are override-redirect children of the root). Each is matched to the accessibility tree's
windows by the process id it carries (``_NET_WM_PID``) and its place on the screen.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from typing import Any

from ..geometry import Box, Point

log = logging.getLogger(__name__)
_MATCH_IOU = 0.3          # an X window and a tree window this alike are the same window


@dataclass(frozen=True)
class TopLevel:
    """A top-level X window: where it is (screen coordinates) and its process, when known."""

    box: Box
    pid: int | None
    tooltip: bool = False      # a tooltip hides nothing: it goes when the pointer moves


class Stacking:
    """The top-level windows, bottom to top; ``covered`` tells whether a point of a tree window
    is hidden under a window stacked above it."""

    def __init__(self, toplevels: list[TopLevel]) -> None:
        self.toplevels = toplevels

    def index_of(self, box: Box, pid: int | None) -> int | None:
        """The stacking index of the X window that shows a tree window (None: not found)."""
        best, best_iou = None, _MATCH_IOU
        for i, top in enumerate(self.toplevels):
            if pid is not None and top.pid is not None and top.pid != pid:
                continue
            iou = top.box.iou(box)
            if iou > best_iou or (iou == best_iou and best is not None):
                best, best_iou = i, iou
        return best

    def covered(self, point: Point, index: int | None) -> bool:
        """Whether ``point`` (screen coordinates) of the window at ``index`` is under another."""
        if index is None:
            return False
        return any(top.box.contains(point) and not top.tooltip for top in self.toplevels[index + 1:])


class X11Stacking:
    """Reads the stacking order from the X server (python-xlib); None when it cannot."""

    def __init__(self) -> None:
        self._conn: Any = None
        self._failed = False
        self._known: dict[int, tuple[int | None, bool]] = {}

    def read(self) -> Stacking | None:
        if self._failed:
            return None
        try:
            return Stacking(self._toplevels())
        except Exception as exc:  # no X server, a window gone meanwhile: no order
            log.debug("cannot read the X stacking order: %s", exc)
            self.close()
            return None

    def _connection(self) -> Any:
        if self._conn is None:
            try:
                from Xlib import display as xdisplay
            except ImportError:
                self._failed = True
                raise
            self._conn = xdisplay.Display()
        return self._conn

    def _toplevels(self) -> list[TopLevel]:
        from Xlib import X

        conn = self._connection()
        out: list[TopLevel] = []
        for window in conn.screen().root.query_tree().children:
            try:
                attrs = window.get_attributes()
                if attrs.map_state != X.IsViewable or attrs.win_class == X.InputOnly:
                    continue
                geometry = window.get_geometry()
            except Exception:  # destroyed while we looked (BadWindow)
                continue
            if geometry.width <= 1 or geometry.height <= 1:
                continue
            box = Box(geometry.x, geometry.y, geometry.width + 2 * geometry.border_width,
                      geometry.height + 2 * geometry.border_width)
            pid, tooltip = self._facts(conn, window)
            out.append(TopLevel(box, pid, tooltip))
        return out

    def _facts(self, conn: Any, window: Any) -> tuple[int | None, bool]:
        """(process, is a tooltip) of a top-level window, from its own properties or its
        client's (inside a window manager's frame). Remembered per window id."""
        if window.id in self._known:
            return self._known[window.id]
        pid_atom = conn.intern_atom("_NET_WM_PID")
        type_atom = conn.intern_atom("_NET_WM_WINDOW_TYPE")
        tooltip_atom = conn.intern_atom("_NET_WM_WINDOW_TYPE_TOOLTIP")
        pid, tooltip = None, False
        queue, seen = [(window, 0)], 0
        while queue and pid is None and seen < 64:
            current, depth = queue.pop(0)
            seen += 1
            try:
                prop = current.get_full_property(pid_atom, 0)
                if prop is not None and len(prop.value):
                    pid = int(prop.value[0])
                    kind = current.get_full_property(type_atom, 0)
                    tooltip = kind is not None and tooltip_atom in list(kind.value)
                elif depth < 2:
                    queue.extend((c, depth + 1) for c in current.query_tree().children)
            except Exception:  # a window gone meanwhile
                continue
        if len(self._known) > 512:
            self._known.clear()
        self._known[window.id] = (pid, tooltip)
        return pid, tooltip

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):   # already closed
                conn.close()
