"""Linux: the AT-SPI accessibility tree, through libatspi (PyGObject's ``gi.repository.Atspi``).

The applications of the session register on the accessibility bus (GTK3 does when the bus is
there; Qt5 when ``QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1``). A read walks each showing window,
only into showing nodes, within a time budget, and keeps per window what it read while the
window's pixels stay the same (so an unchanged dialog costs nothing to read again), once they
have stayed so for TREE_LAG_S (an application updates its tree after it draws). Elements
under another window (X11 stacking order) are left out. Where there is no session bus, no
libatspi or nothing answers, :meth:`AtspiSource.read` says so once in the log and returns None:
the agent then works from pixels alone.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from PIL import Image

from ..geometry import Box, Point
from ..parsing.elements import Accessible, Element, ElementKind, ScreenParse, Window
from ..screen.observation import MonitorGeometry
from .atspi_nodes import AtspiHandle, clean_name, labelled_by, node_states, text_of, toggle_cell
from .roles import LABELLED, TEXT_ROLES, WINDOW_ROLES, is_checked, kind_of
from .stacking import Stacking, X11Stacking

log = logging.getLogger(__name__)
K = ElementKind

DEFAULT_BUDGET_S = 1.0        # at most this long per read (then the elements read so far)
CALL_TIMEOUT_MS = 800         # one D-Bus call to an application (a hung one must not hang us)
STARTUP_TIMEOUT_MS = 3000
MAX_NODES = 4000              # per read
MAX_CHILDREN = 400            # a node with more (a big table's cells) is not walked into
CACHE_SECONDS = 10.0          # a window's read is kept this long while its pixels do not change
# An application updates its tree a moment after it draws (a browser's page: up to half a
# second): a read made sooner than this after the window's pixels last changed may be of the
# old tree, so it is not kept; a later read of the same pixels walks the tree again.
TREE_LAG_S = 1.0
DRAWN_CONTRAST = 12           # grey levels: less than this all over an element's box is blank
_POPUP_KINDS = frozenset({K.MENU, K.MENU_ITEM})


@dataclass(frozen=True)
class _Win:
    node: Any
    key: str                  # stable while the window lives (process + object path)
    title: str
    role: str
    box: Box                  # screen coordinates
    active: bool
    pid: int | None
    modal: bool = False


@dataclass(frozen=True)
class _Read:
    """One window's elements as read, with the pixels they were read on."""

    box: Box
    digest: str
    elements: tuple[Element, ...]
    at: float


def bus_missing(env: dict[str, str] | None = None) -> str | None:
    """Why no accessibility bus can be reached without starting one (None: it may be there).
    Without a session bus libdbus would launch a stray one through X11; that is not done."""
    env = dict(os.environ) if env is None else env
    if env.get("DBUS_SESSION_BUS_ADDRESS"):
        return None
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime and os.path.exists(os.path.join(runtime, "bus")):
        return None
    return ("there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set): the "
            "accessibility tree needs the desktop session's bus (run headless apps inside "
            "`dbus-run-session`)")


class AtspiSource:
    """The AT-SPI tree of the windows on the screen (see the module docstring)."""

    name = "at-spi"

    def __init__(self, budget: float = DEFAULT_BUDGET_S, stacking: X11Stacking | None = None) -> None:
        self.budget = budget
        self._atspi: Any = None
        self._unavailable: str | None = None
        self._stacking = stacking or X11Stacking()
        self._cache: dict[str, _Read] = {}
        self._changed: dict[str, tuple[str, float]] = {}   # window -> (its pixels' digest, since when)
        self._said_empty = False
        self._own_pid = os.getpid()
        self._context: Any = None

    # -- availability ----------------------------------------------------------------------
    def _module(self) -> Any:
        """libatspi, initialised; None (said once in the log) when there is no tree to read."""
        if self._atspi is not None or self._unavailable is not None:
            return self._atspi
        reason = bus_missing()
        loaded = None if reason is not None else _libatspi()
        if isinstance(loaded, str):
            reason, loaded = loaded, None
        if loaded is not None:
            atspi, self._context = loaded
            try:
                atspi.get_desktop(0).get_child_count()
            except Exception as exc:  # GLib.Error: the bus does not answer
                reason = f"the accessibility bus does not answer ({exc})"
        if reason is not None:
            self._unavailable = reason
            log.info("accessibility tree unavailable, using pixels alone: %s", reason)
            return None
        self._atspi = loaded[0] if loaded is not None else None
        return self._atspi

    def available(self) -> bool:
        return self._module() is not None

    # -- reading -----------------------------------------------------------------------------
    def read(self, monitor: MonitorGeometry, image: Image.Image) -> ScreenParse | None:
        atspi = self._module()
        if atspi is None:
            return None
        deadline = time.perf_counter() + self.budget
        _pump(self._context)
        try:
            windows = list(self._windows(atspi))
        except Exception as exc:  # the registry went away
            log.warning("cannot read the accessibility tree: %s", exc)
            return None
        stacking = self._stacking.read()
        placed = sorted(((_index(stacking, w), w) for w in windows),
                        key=lambda iw: (iw[0] is None, iw[0] or 0))
        matched = {i for i, _ in placed if i is not None}
        size = image.size
        gray = np.asarray(image.convert("L"))
        elements: list[Element] = []
        shown: list[Window] = []
        seen: set[str] = set()
        for index, win in placed:
            box = _to_image(win.box, monitor, size)
            if box is None:
                continue
            seen.add(win.key)
            found = self._window_elements(win, box, monitor, image, deadline)
            visible = [e for e in found
                       if not _covered(e, monitor, stacking, index, matched, win.pid) and drawn(gray, e.box)]
            elements.extend(visible)
            shown.append(Window(win.title, win.role, box, win.active, win.modal))
        for key in [k for k in self._cache if k not in seen]:
            del self._cache[key]
        for key in [k for k in self._changed if k not in seen]:
            del self._changed[key]
        if not windows and not self._said_empty:
            self._said_empty = True
            log.info("the accessibility bus lists no application windows: GTK apps need the bus "
                     "in their session, Qt apps also QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1; "
                     "Chromium/Electron --force-renderer-accessibility")
        return ScreenParse(tuple(elements), size[0], size[1], tuple(shown))

    def window_titles(self) -> list[str]:
        """The titles of the showing windows the tree lists (empty without a tree)."""
        atspi = self._module()
        if atspi is None:
            return []
        _pump(self._context)
        try:
            return [w.title for w in self._windows(atspi)]
        except Exception as exc:  # the registry went away
            log.debug("cannot list the tree's windows: %s", exc)
            return []

    def _windows(self, atspi: Any) -> Iterator[_Win]:
        desktop = atspi.get_desktop(0)
        for i in range(desktop.get_child_count()):
            app = desktop.get_child_at_index(i)
            if app is None:
                continue
            try:
                pid = app.get_process_id()
                if pid == self._own_pid:
                    continue    # our own windows (the app): asking them would wait on ourselves
                for j in range(app.get_child_count()):
                    node = app.get_child_at_index(j)
                    if node is None:
                        continue
                    states = node_states(node.get_state_set())
                    role = node.get_role_name()
                    if "showing" not in states or role not in WINDOW_ROLES:
                        continue
                    ext = node.get_extents(atspi.CoordType.SCREEN)
                    if ext.width <= 1 or ext.height <= 1:
                        continue
                    yield _Win(node, f"{pid}:{node.path}", clean_name(node.get_name()),
                               role, Box(ext.x, ext.y, ext.width, ext.height),
                               "active" in states, pid, "modal" in states)
            except Exception as exc:  # GLib.Error: the application went away
                log.debug("skipping an application of the tree: %s", exc)

    def _window_elements(self, win: _Win, box: Box, monitor: MonitorGeometry, image: Image.Image,
                         deadline: float) -> tuple[Element, ...]:
        digest = hashlib.blake2b(image.crop(box.corners).tobytes(), digest_size=12).hexdigest()
        kept = self._cache.get(win.key)
        now = time.monotonic()
        if kept is not None and kept.digest == digest and kept.box == box \
                and now - kept.at < CACHE_SECONDS:
            return tuple(replace(e, accessible=replace(e.accessible, window=win.title,
                                                       window_active=win.active))
                         if e.accessible is not None else e for e in kept.elements)
        found, complete = self._walk(win, monitor, image.size, deadline)
        since = self._changed.get(win.key)
        if since is None or since[0] != digest:
            self._changed[win.key] = since = (digest, now)
        if complete and now - since[1] >= TREE_LAG_S:
            self._cache[win.key] = _Read(box, digest, found, now)
        else:
            log.info("the accessibility tree of %r was read in part (time budget %.1f s)",
                     win.title, self.budget)
        return found

    def _walk(self, win: _Win, monitor: MonitorGeometry, size: tuple[int, int],
              deadline: float) -> tuple[tuple[Element, ...], bool]:
        """The elements of one window, depth first in the tree's order; complete or not."""
        out: list[Element] = []
        stack: list[tuple[Any, int, str]] = [(win.node, 0, "")]
        visited = 0
        while stack:
            if time.perf_counter() > deadline or visited >= MAX_NODES:
                return tuple(out), False
            node, depth, parent = stack.pop()
            visited += 1
            try:
                states = node_states(node.get_state_set())
                if depth > 0 and "showing" not in states:
                    continue
                role = node.get_role_name()
                kind = kind_of(role, states, parent)
                if kind is not None:
                    element = self._element(node, role, kind, states, win, monitor, size)
                    if element is not None:
                        out.append(element)
                count = node.get_child_count()
                if count > MAX_CHILDREN:
                    continue
                children = [node.get_child_at_index(i) for i in range(count)]
            except Exception as exc:  # GLib.Error: gone meanwhile
                log.debug("skipping a node: %s", exc)
                continue
            stack.extend((c, depth + 1, role) for c in reversed(children) if c is not None)
        return tuple(out), True

    def _element(self, node: Any, role: str, kind: ElementKind, states: frozenset[str],
                 win: _Win, monitor: MonitorGeometry, size: tuple[int, int]) -> Element | None:
        from gi.repository import Atspi

        ext = node.get_extents(Atspi.CoordType.SCREEN)
        on_screen = Box(ext.x, ext.y, ext.width, ext.height)
        if kind not in _POPUP_KINDS and not win.box.contains(on_screen.center):
            return None          # scrolled out of its window (a menu may reach beyond it)
        box = _to_image(on_screen, monitor, size)
        if box is None or box.width < 2 or box.height < 2:
            return None
        name = clean_name(node.get_name())
        value = text_of(node) if kind == K.TEXT_FIELD or role in TEXT_ROLES else None
        label = ""
        if kind in LABELLED:
            label = name or labelled_by(node)
            text = clean_name(value or "") if kind == K.TEXT_FIELD else name
        else:
            text = name or clean_name(value or "")
            if not text and kind in (K.CHECKBOX, K.RADIO, K.BUTTON):
                label = labelled_by(node)
        if kind == K.TEXT and not text:
            if not toggle_cell(node, role):
                return None      # an empty label or display names nothing
            kind = K.CHECKBOX    # a list's check box column (a toggle cell: no text, an action)
        info = Accessible(role, states, value, clean_name(node.get_description()), win.title,
                          win.active, AtspiHandle(node))
        checked = "checked" in states if kind == K.CHECKBOX else is_checked(kind, role, states)
        return Element(kind, box, text, 1.0, "a11y", checked, label, info)


def drawn(gray: np.ndarray, box: Box) -> bool:
    """Whether the screen shows anything where the tree puts an element: a frame, a face, a
    letter. Blank there, the tree is not (yet) of this screen (a browser reports a new page's
    places a moment after drawing it; the element is still where the old page had it)."""
    b = box.expand(1).clip(gray.shape[1], gray.shape[0])
    patch = gray[b.top:b.bottom, b.left:b.right]
    if patch.size == 0:
        return False
    return bool((np.abs(patch.astype(np.int16) - int(np.median(patch))) > DRAWN_CONTRAST).any())


@functools.cache
def _libatspi() -> tuple[Any, Any] | str:
    """(libatspi, the main context its bus messages go to), loaded once per process (libatspi
    keeps one connection per process); or why it cannot be loaded. Its messages go to a context
    of its own, taken by each read (:func:`_pump`): never the one a Qt or GTK app in this process
    runs on another thread."""
    try:
        import gi

        gi.require_version("Atspi", "2.0")
        from gi.repository import Atspi, GLib
    except (ImportError, ValueError) as exc:
        return (f"libatspi cannot be loaded through PyGObject ({exc}); install it with "
                "installer/setup.sh (Debian: gir1.2-atspi-2.0 and pip 'PyGObject<3.51')")
    context = GLib.MainContext.new()
    Atspi.set_main_context(context)
    Atspi.set_timeout(CALL_TIMEOUT_MS, STARTUP_TIMEOUT_MS)
    return Atspi, context


def _index(stacking: Stacking | None, win: _Win) -> int | None:
    return stacking.index_of(win.box, win.pid) if stacking is not None else None


def _covered(e: Element, monitor: MonitorGeometry, stacking: Stacking | None, index: int | None,
             matched: set[int], pid: int | None) -> bool:
    """Whether an element is hidden under a window above its own. An application's own popup
    (a menu, a drop-down's list: no window of the tree) hides its other elements, not the items
    it shows."""
    if stacking is None or index is None:
        return False
    s = monitor.scale
    centre = Point(round(monitor.left + e.box.center.x / s), round(monitor.top + e.box.center.y / s))
    for j in range(index + 1, len(stacking.toplevels)):
        top = stacking.toplevels[j]
        if not top.box.contains(centre):
            continue
        own_popup = j not in matched and top.pid == pid and e.kind in _POPUP_KINDS
        if not own_popup:
            return True
    return False


def _to_image(box: Box, monitor: MonitorGeometry, size: tuple[int, int]) -> Box | None:
    """A box in screen coordinates as image pixels of ``monitor``, clipped; None when it is
    not on that monitor."""
    s = monitor.scale
    x0, y0 = (box.left - monitor.left) * s, (box.top - monitor.top) * s
    x1, y1 = (box.right - monitor.left) * s, (box.bottom - monitor.top) * s
    x0, y0 = max(0.0, x0), max(0.0, y0)
    x1, y1 = min(float(size[0]), x1), min(float(size[1]), y1)
    if x1 - x0 < 1 or y1 - y0 < 1:
        return None
    return Box.from_corners(x0, y0, x1, y1)


def _pump(context: Any) -> None:
    """Let libatspi take the events the applications sent since the last read (its caches
    follow them); never waits."""
    if context is None:
        return
    for _ in range(1000):
        if not context.iteration(False):
            break
