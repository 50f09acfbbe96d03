"""Is there a display to see and drive, and a virtual one (Xvfb) when there is not.

``VirtualDisplay`` owns the environment while it runs: it sets ``DISPLAY`` (and an
``XAUTHORITY`` file without credentials when none exists: python-xlib, hence pyautogui,
wants one), hides ``WAYLAND_DISPLAY`` from the apps started on it, and puts all back on
exit. Capture (mss) and control (pyautogui) read ``DISPLAY`` when they are first used, and
re-connect when it changes, so the engine can be imported first and the display started later.

In a Wayland session only X11 (XWayland) windows can be seen and driven: ``wayland_limits``
says so, in words a user can act on.
"""

from __future__ import annotations

import logging
import os
import shutil
import struct
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .errors import DisplayError

log = logging.getLogger(__name__)

DEFAULT_SIZE = (1280, 800)
# Set to a virtual display's name while gui-agent's own Xvfb runs (inherited by subprocesses):
# what is captured there is that display, whatever the desktop session around it is.
VIRTUAL_DISPLAY_VAR = "GUI_AGENT_VIRTUAL_DISPLAY"
_NO_XVFB = "Xvfb is not installed, so no virtual display can be started: install it: apt-get install xvfb"


def _xauth_entry(family: int, *fields: bytes) -> bytes:
    return struct.pack(">H", family) + b"".join(struct.pack(">H", len(f)) + f for f in fields)


# Xvfb here runs without access control, so no cookie is needed. A truly empty authority
# file makes python-xlib print "no xauthority details available" to *stdout* on every
# connection; one entry that matches no host and names no real scheme keeps it quiet and
# is ignored by every client (libXau and python-xlib alike).
_PLACEHOLDER_XAUTH = _xauth_entry(256, b"gui-agent-placeholder", b"65535", b"gui-agent-none", b"")


def _is_linux() -> bool:
    return sys.platform.startswith("linux")


def _can_open(name: str) -> bool:
    try:
        from Xlib import display as xdisplay
    except ImportError:  # no python-xlib: assume the display works, later calls will say if not
        return True
    try:
        conn = xdisplay.Display(name)
    except Exception as exc:  # DisplayConnectionError, socket errors, bad names
        log.debug("cannot open display %s: %s", name, exc)
        return False
    conn.close()
    return True


def display_available() -> bool:
    """True when input and capture can work: DISPLAY is set and opens (Linux), or not Linux."""
    if not _is_linux():
        return True
    name = os.environ.get("DISPLAY")
    return bool(name) and _can_open(name)


def no_display_message(headless_hint: bool = True) -> str:
    """Why there is no display, and what to do (``--headless`` only where a command has it)."""
    name = os.environ.get("DISPLAY")
    state = "DISPLAY is not set" if not name else f"DISPLAY={name} cannot be opened"
    hint = " or run with --headless" if headless_hint else ""
    return f"no display: {state}; set DISPLAY to a running X server{hint}"


def wayland_session(env: Mapping[str, str] | None = None) -> bool:
    """True in a Wayland desktop session (XDG_SESSION_TYPE=wayland, or WAYLAND_DISPLAY set)."""
    env = os.environ if env is None else env
    return env.get("XDG_SESSION_TYPE", "").lower() == "wayland" or bool(env.get("WAYLAND_DISPLAY"))


def wayland_limits(env: Mapping[str, str] | None = None) -> str | None:
    """What gui-agent can reach in this Wayland session, and what to do; None when that does not
    apply: not Wayland, or the display is a virtual one gui-agent started (``--headless``)."""
    env = os.environ if env is None else env
    if not wayland_session(env):
        return None
    display = env.get("DISPLAY")
    if display and display == env.get(VIRTUAL_DISPLAY_VAR):
        return None
    if display:
        reach = (f"it sees and drives only X11 windows here (apps running under XWayland, "
                 f"DISPLAY={display}); native Wayland windows look black or are missing in its "
                 "screenshots and do not get its mouse and keyboard input")
    else:
        reach = ("there is no XWayland display (DISPLAY is not set), so it cannot see or drive "
                 "this desktop at all")
    return (f"this is a Wayland session: {reach}. To let it work on every window, log out and "
            "log into an X11 session (on the login screen, e.g. 'Ubuntu on Xorg' or "
            "'Plasma (X11)'); --headless runs it on a virtual display of its own instead.")


class VirtualDisplay:
    """An Xvfb server for as long as the context lasts (Linux only).

    ``display=None`` lets Xvfb pick the first free number. The server runs with ``-noreset``:
    by default Xvfb resets when its last client disconnects, which drops what was put on the
    root window (the accessibility bus address) and refuses a client that connects during the
    reset (an app started just as a screenshot tool disconnected aborts). The environment
    (``DISPLAY``, ``XAUTHORITY``) is set while active and restored afterwards; the
    server and any XAUTHORITY file made here are removed even when start fails midway.
    """

    def __init__(self, size: tuple[int, int] = DEFAULT_SIZE, depth: int = 24,
                 display: int | None = None, extra_args: Sequence[str] = ()) -> None:
        if depth not in (8, 16, 24, 32):
            raise DisplayError(f"colour depth must be 8, 16, 24 or 32, got {depth}")
        if len(size) != 2 or min(size) < 1:
            raise DisplayError(f"display size must be (width, height) > 0, got {size!r}")
        self.size = (int(size[0]), int(size[1]))
        self.depth = depth
        self.requested = display
        self.extra_args = tuple(extra_args)
        self.name: str | None = None
        self._server: Any = None
        self._saved_env: dict[str, str | None] | None = None
        self._own_xauth: Path | None = None

    @property
    def active(self) -> bool:
        return self._server is not None and self._server.is_alive()

    def start(self) -> str:
        """Start Xvfb, point DISPLAY at it; returns the display name (':N')."""
        if self._server is not None:
            raise DisplayError(f"virtual display {self.name} is already running")
        if not _is_linux():
            raise DisplayError("virtual displays need Linux with Xvfb; on macOS and Windows "
                               "run on the desktop itself (without --headless)")
        if shutil.which("Xvfb") is None:
            raise DisplayError(_NO_XVFB)
        self._saved_env = {k: os.environ.get(k) for k in
                           ("DISPLAY", "XAUTHORITY", VIRTUAL_DISPLAY_VAR, "WAYLAND_DISPLAY")}
        try:
            self._prepare_xauthority()
            self._start_server()
        except BaseException:
            self.stop()
            raise
        return self.name or ""

    def _prepare_xauthority(self) -> None:
        current = os.environ.get("XAUTHORITY")
        if current and Path(current).is_file():
            return
        fd, path = tempfile.mkstemp(prefix="gui-agent-xauth-")
        with os.fdopen(fd, "wb") as f:
            f.write(_PLACEHOLDER_XAUTH)
        self._own_xauth = Path(path)
        os.environ["XAUTHORITY"] = path

    def _start_server(self) -> None:
        from pyvirtualdisplay import Display

        extra = ["-noreset", *self.extra_args]
        if self.requested is not None:
            extra.append(f":{int(self.requested)}")
        server = Display(backend="xvfb", size=self.size, color_depth=self.depth,
                         extra_args=extra, manage_global_env=False)
        try:
            server.start()
        except Exception as exc:
            where = f" on :{self.requested}" if self.requested is not None else ""
            raise DisplayError(f"could not start Xvfb{where}: {exc}. Another X server may hold "
                               "that display number; pick another or leave it unset") from exc
        self._server = server
        self.name = f":{server.display}"
        os.environ["DISPLAY"] = self.name
        os.environ[VIRTUAL_DISPLAY_VAR] = self.name
        # Apps started now must open on this display, not as windows of a Wayland desktop.
        os.environ.pop("WAYLAND_DISPLAY", None)
        log.info("started Xvfb %s (%dx%dx%d)", self.name, *self.size, self.depth)

    def stop(self) -> None:
        """Stop the server, put the environment back, delete our XAUTHORITY file. Idempotent."""
        server, self._server = self._server, None
        if server is not None:
            try:
                server.stop()
            except Exception as exc:  # already dead: nothing left to stop
                log.debug("stopping Xvfb %s: %s", self.name, exc)
            log.info("stopped Xvfb %s", self.name)
        if self._saved_env is not None:
            for key, value in self._saved_env.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            self._saved_env = None
        if self._own_xauth is not None:
            self._own_xauth.unlink(missing_ok=True)
            self._own_xauth = None

    def __enter__(self) -> VirtualDisplay:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


@contextmanager
def ensure_display(headless: bool | None = None,
                   size: tuple[int, int] = DEFAULT_SIZE) -> Iterator[str | None]:
    """Make sure there is a display for the duration; yields its name (None off Linux).

    ``headless=True`` always starts a virtual display; ``None`` starts one only on Linux
    when no usable display exists; ``False`` uses the current display or raises.
    """
    if headless or (headless is None and _is_linux() and not display_available()):
        with VirtualDisplay(size=size) as virtual:
            yield virtual.name
        return
    if _is_linux() and not display_available():
        raise DisplayError(no_display_message())
    yield os.environ.get("DISPLAY")
