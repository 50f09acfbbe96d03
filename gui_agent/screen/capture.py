"""Screenshots with mss, as Observations whose pixels map exactly to pyautogui coordinates.

Units: mss reports monitors in the platform's screen units (points on macOS, pixels
on X11 and on DPI-aware Windows) and returns *physical* pixels. pyautogui takes the
same screen units, so by default a monitor's logical (input) size is the size mss
reports, and ``scale`` = captured pixels / logical units (2.0 on Retina, 1.0 on X11).
A ``logical_size_provider`` can say otherwise (tests, platforms where the two differ);
then mss units are converted to logical ones by the ratio of the two sizes.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from PIL import Image

from ..display import wayland_limits
from ..errors import CaptureError, DisplayError, GuiAgentError
from ..geometry import Box, Point
from .observation import ActiveWindow, MonitorGeometry, Observation

log = logging.getLogger(__name__)

MssMonitor = Mapping[str, Any]
LogicalSizeProvider = Callable[[int, MssMonitor], tuple[int, int]]
MssFactory = Callable[[], Any]

_PROBE = 64  # side of the tiny grab that measures a monitor's scale, in mss units
_UNIFORM = 2  # a capture whose channels all vary by at most this much shows nothing


def mss_logical_size(index: int, monitor: MssMonitor) -> tuple[int, int]:
    """Default provider: the size mss reports is the size pyautogui works in."""
    return int(monitor["width"]), int(monitor["height"])


def _default_mss() -> Any:
    import mss

    return mss.MSS()


class _PerThread(threading.local):
    sct: Any = None
    display: str | None = None
    xlib: Any = None
    xlib_display: str | None = None


class ScreenCapture:
    """Captures monitors or regions; one mss instance per thread, created on first use.

    ``mss_factory`` and ``logical_size_provider`` exist for tests and unusual platforms;
    ``window_info=False`` skips the cursor / active-window look-up (two X round trips).
    """

    def __init__(self, *, mss_factory: MssFactory | None = None,
                 logical_size_provider: LogicalSizeProvider | None = None,
                 window_info: bool = True) -> None:
        self._factory = mss_factory or _default_mss
        self._needs_display = mss_factory is None
        self._logical = logical_size_provider or mss_logical_size
        self.window_info = window_info
        self._local = _PerThread()
        self._lock = threading.Lock()
        self._open: list[Any] = []
        self._scales: dict[int, float] = {}

    # -- mss instances ---------------------------------------------------------------
    def _sct(self) -> Any:
        linux = sys.platform.startswith("linux")
        display = os.environ.get("DISPLAY") if linux else None
        local = self._local
        if local.sct is not None and local.display == display and self._server_alive():
            return local.sct
        if local.sct is not None:
            self._drop(local.sct)
        self._close_xlib()
        if self._needs_display and linux and not display:
            raise DisplayError("no display: DISPLAY is not set; set DISPLAY to a running X "
                               "server or run with --headless")
        try:
            sct = self._factory()
        except GuiAgentError:
            raise
        except Exception as exc:
            raise DisplayError(f"cannot open display {display or ''} for screenshots: {exc}. "
                               "Check that the X server is running, or run with --headless"
                               ) from exc
        with self._lock:
            self._open.append(sct)
            self._scales.clear()
        local.sct, local.display = sct, display
        if self._needs_display and display:
            self._open_xlib(display)  # opened with mss: its liveness stands for mss's
        return sct

    def _server_alive(self) -> bool:
        """False when the X server behind this thread's connections is gone or was restarted.

        mss keeps working on a dead connection (stale shared-memory frames), so the Xlib
        connection opened next to it is probed instead: one round trip, ~0.1 ms.
        """
        conn = self._local.xlib
        if conn is None:
            return True
        try:
            conn.get_input_focus()
        except Exception as exc:
            log.debug("X connection lost (%s): reconnecting", exc)
            return False
        return True

    def _drop(self, sct: Any) -> None:
        with self._lock:
            if sct in self._open:
                self._open.remove(sct)
        try:
            sct.close()
        except Exception as exc:  # a dead connection cannot be closed cleanly
            log.debug("closing mss: %s", exc)
        if self._local.sct is sct:
            self._local.sct = None

    def close(self) -> None:
        """Close every mss instance this object opened (in any thread)."""
        with self._lock:
            instances, self._open = self._open, []
        for sct in instances:
            try:
                sct.close()
            except Exception as exc:
                log.debug("closing mss: %s", exc)
        self._local.sct = None
        self._close_xlib()

    def __enter__(self) -> ScreenCapture:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _grab(self, region: Mapping[str, int]) -> Any:
        """Grab with one reconnect: a display restarted under the same name breaks the old one."""
        for attempt in (1, 2):
            sct = self._sct()
            try:
                return sct.grab(dict(region))
            except GuiAgentError:
                raise
            except Exception as exc:
                self._drop(sct)
                if attempt == 2:
                    raise CaptureError(f"screenshot of {dict(region)} failed: {exc}. Is the "
                                       "display still running?") from exc
                log.debug("grab failed (%s); reconnecting", exc)
        raise AssertionError("unreachable")

    def _mss_monitors(self) -> list[MssMonitor]:
        for attempt in (1, 2):
            sct = self._sct()
            try:
                monitors = list(sct.monitors)
                break
            except GuiAgentError:
                raise
            except Exception as exc:
                self._drop(sct)
                if attempt == 2:
                    raise CaptureError(f"cannot list the monitors: {exc}") from exc
        if len(monitors) < 2:
            raise CaptureError("the display reports no monitor to capture")
        return monitors

    # -- geometry --------------------------------------------------------------------
    def _unit(self, index: int, mon: MssMonitor) -> tuple[float, tuple[int, int]]:
        """(logical units per mss unit, logical size) of one monitor."""
        lw, lh = self._logical(index, mon)
        if lw <= 0 or lh <= 0 or mon["width"] <= 0:
            raise CaptureError(f"monitor {index} has no area: {dict(mon)}")
        return lw / mon["width"], (int(lw), int(lh))

    def _measure_scale(self, index: int, mon: MssMonitor, unit: float) -> float:
        side_w, side_h = min(_PROBE, mon["width"]), min(_PROBE, mon["height"])
        shot = self._grab({"left": mon["left"], "top": mon["top"], "width": side_w,
                           "height": side_h})
        return shot.size[0] / (side_w * unit)

    def monitors(self) -> list[MonitorGeometry]:
        """Index 0: all monitors together; 1..n: each, as mss numbers them."""
        raw = self._mss_monitors()
        out: list[MonitorGeometry] = []
        for index, mon in enumerate(raw):
            unit, (lw, lh) = self._unit(index, mon)
            if index == 0:
                scale = 1.0
            elif index in self._scales:
                scale = self._scales[index]
            else:
                scale = self._scales[index] = self._measure_scale(index, mon, unit)
            out.append(MonitorGeometry(round(mon["left"] * unit), round(mon["top"] * unit),
                                       lw, lh, scale, index))
        if len(out) > 1:
            out[0] = MonitorGeometry(out[0].left, out[0].top, out[0].width, out[0].height,
                                     max(m.scale for m in out[1:]), 0)
        return out

    # -- capture ---------------------------------------------------------------------
    def capture(self, monitor: int = 1, region: Box | None = None) -> Observation:
        """Screenshot of monitor ``monitor`` (0 = all), or of ``region`` on it.

        ``region`` is in screen (pyautogui) coordinates and is clipped to the monitor.
        ``Observation.cursor`` is in screen coordinates too (not relative to the image).
        """
        raw = self._mss_monitors()
        if not 0 <= monitor < len(raw):
            raise CaptureError(f"monitor {monitor} does not exist: this display has monitors "
                               f"1..{len(raw) - 1} (0 = all of them together)")
        mon = raw[monitor]
        unit, (lw, lh) = self._unit(monitor, mon)
        bounds = Box(round(mon["left"] * unit), round(mon["top"] * unit), lw, lh)
        area = bounds if region is None else self._clip(region, bounds, monitor)
        grab = {"left": round(area.left / unit), "top": round(area.top / unit),
                "width": max(1, round(area.width / unit)),
                "height": max(1, round(area.height / unit))}
        shot = self._grab(grab)
        image = _to_rgb(shot)
        if region is None:
            refuse_blank_on_wayland(image)
        scale = self._scale(monitor, image.size, area, full=region is None)
        cursor, window = self._window_info() if self.window_info else (None, None)
        geometry = MonitorGeometry(area.left, area.top, area.width, area.height, scale, monitor)
        return Observation(image, geometry, time.time(), cursor, window)

    @staticmethod
    def _clip(region: Box, bounds: Box, monitor: int) -> Box:
        left, top = max(region.left, bounds.left), max(region.top, bounds.top)
        right, bottom = min(region.right, bounds.right), min(region.bottom, bounds.bottom)
        if right <= left or bottom <= top:
            raise CaptureError(f"region {region.corners} lies outside monitor {monitor} "
                               f"{bounds.corners} (left, top, right, bottom)")
        return Box(left, top, right - left, bottom - top)

    def _scale(self, monitor: int, size: tuple[int, int], area: Box, full: bool) -> float:
        measured = size[0] / area.width
        if abs(size[1] / area.height - measured) > 0.02 * measured:
            log.warning("monitor %d: horizontal and vertical scale differ (%dx%d pixels for "
                        "%dx%d units)", monitor, *size, area.width, area.height)
        if full:
            self._scales[monitor] = measured
            return measured
        known = self._scales.get(monitor)
        # A region's width in pixels is rounded; prefer the monitor's exact scale.
        if known is not None and abs(size[0] - area.width * known) <= 1:
            return known
        return measured

    # -- cursor and window title -----------------------------------------------------
    def _window_info(self) -> tuple[Point | None, ActiveWindow | None]:
        """Cursor (screen coordinates) and the active window; (None, None) when unknown."""
        if not sys.platform.startswith("linux"):
            return self._cursor_from_pyautogui(), None
        conn = self._xlib()
        if conn is None:
            return None, None
        cursor: Point | None = None
        window: ActiveWindow | None = None
        try:
            pointer = conn.screen().root.query_pointer()
            cursor = Point(int(pointer.root_x), int(pointer.root_y))
            window = _active_window(conn)
        except Exception as exc:  # never let window info break a capture
            log.debug("window info unavailable: %s", exc)
        return cursor, window

    def _xlib(self) -> Any:
        display = os.environ.get("DISPLAY")
        if self._local.xlib is None or self._local.xlib_display != display:
            self._close_xlib()
            if display:
                self._open_xlib(display)
        return self._local.xlib

    def _open_xlib(self, display: str) -> None:
        try:
            from Xlib import display as xdisplay

            self._local.xlib, self._local.xlib_display = xdisplay.Display(display), display
        except Exception as exc:
            log.debug("no Xlib connection to %s: %s", display, exc)

    def _close_xlib(self) -> None:
        conn, self._local.xlib = self._local.xlib, None
        if conn is not None:
            try:
                conn.close()
            except Exception as exc:  # a dead connection cannot be closed cleanly
                log.debug("closing Xlib display: %s", exc)

    @staticmethod
    def _cursor_from_pyautogui() -> Point | None:
        module = sys.modules.get("pyautogui")  # only when already loaded: importing is slow
        if module is None:
            return None
        try:
            x, y = module.position()
        except Exception as exc:
            log.debug("cursor position unavailable: %s", exc)
            return None
        return Point(int(x), int(y))

    def save_screenshot(self, path: str | Path, monitor: int = 1) -> Path:
        """Capture ``monitor`` and write it to ``path`` (format from the extension)."""
        target = Path(path)
        observation = self.capture(monitor)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            observation.image.save(target)
        except (OSError, ValueError) as exc:
            raise CaptureError(f"cannot write screenshot to {target}: {exc}") from exc
        return target


def refuse_blank_on_wayland(image: Image.Image, env: Mapping[str, str] | None = None) -> None:
    """In a Wayland session a screen all one colour (black, usually) is what gui-agent gets when
    it cannot see the windows: a CaptureError saying so, rather than a plan made on nothing."""
    limits = wayland_limits(env)
    if limits is None:
        return
    extrema = image.getextrema()
    if any(high - low > _UNIFORM for low, high in extrema):
        return
    colour = "black" if all(high <= 16 for _, high in extrema) else "one colour"
    raise CaptureError(f"the screenshot is all {colour}, most likely because {limits}")


def _to_rgb(shot: Any) -> Image.Image:
    """mss ScreenShot (BGRA) -> RGB image. ``raw`` avoids the copy ``bgra`` makes (~4 ms)."""
    data = getattr(shot, "raw", None)
    if data is None:
        data = shot.bgra
    try:
        return Image.frombytes("RGB", tuple(shot.size), bytes(data) if isinstance(data, memoryview)
                               else data, "raw", "BGRX")
    except ValueError as exc:
        raise CaptureError(f"screenshot data does not match its size {tuple(shot.size)}: {exc}"
                           ) from exc


def _active_window(conn: Any) -> ActiveWindow | None:
    """The window in _NET_ACTIVE_WINDOW (set by window managers), else None."""
    from Xlib import X

    root = conn.screen().root
    active = root.get_full_property(conn.intern_atom("_NET_ACTIVE_WINDOW"), X.AnyPropertyType)
    if active is None or not active.value or not active.value[0]:
        return None
    window = conn.create_resource_object("window", int(active.value[0]))
    geometry = window.get_geometry()
    origin = window.translate_coords(root, 0, 0)
    box = Box(-int(origin.x), -int(origin.y), int(geometry.width), int(geometry.height))
    return ActiveWindow(x11_window_title(conn, window), int(active.value[0]),
                        _is_dialog(conn, window), box)


def _is_dialog(conn: Any, window: Any) -> bool:
    """Transient for another window (ICCCM), or typed a dialog by its application (EWMH)."""
    if window.get_wm_transient_for():
        return True
    kinds = window.get_full_property(conn.intern_atom("_NET_WM_WINDOW_TYPE"), 0)
    dialog = conn.intern_atom("_NET_WM_WINDOW_TYPE_DIALOG")
    return kinds is not None and dialog in list(kinds.value)


def x11_window_title(conn: Any, window: Any) -> str | None:
    """An X11 window's title: _NET_WM_NAME (UTF-8) when set, else WM_NAME; None when it has none."""
    name = window.get_full_property(conn.intern_atom("_NET_WM_NAME"), 0)
    if name is not None and name.value:
        value = name.value
        return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    wm_name = window.get_wm_name()
    if isinstance(wm_name, bytes):
        return wm_name.decode("latin-1")
    return wm_name or None
