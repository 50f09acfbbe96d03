"""A desktop around a worker's display, as a person's session has one: a window manager, and a
D-Bus session with the accessibility bus that the applications' toolkits report to.

    desktop:
      window_manager: openbox    # decorations, focus and stacking on the worker's display
      accessibility: true        # a D-Bus session bus and the AT-SPI bus; GTK apps bridge to it
                                 # by themselves, Qt apps are told to (QT_LINUX_ACCESSIBILITY_ALWAYS_ON)

Each worker starts its own (its own display, its own bus), before its first application, and
stops it after its last; the worker's agent reads the tree through that bus unless the batch
runs with ``--no-a11y`` (the applications stay the same: only the agent's view changes).
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from yaml.nodes import Node

from .yaml_nodes import NodeReader

if TYPE_CHECKING:
    from ..accessibility.atspi import AtspiSource

log = logging.getLogger(__name__)

# The session bus starts the accessibility bus on the first request (at-spi2-core's service);
# started by hand before the first Qt application instead, Qt's bridge often missed it.
A11Y_BUS_SERVICES = ("/usr/share/dbus-1/services/org.a11y.Bus.service",
                     "/usr/local/share/dbus-1/services/org.a11y.Bus.service")
# What applications started in an accessible session are told (Qt bridges only when asked).
ACCESSIBLE_ENV = {"QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1", "QT_ACCESSIBILITY": "1"}
_START_TIMEOUT = 15.0
TREE_WAIT_S = 10.0


class SessionError(RuntimeError):
    """The desktop session could not start; the message says what and how to fix it."""


@dataclass(frozen=True)
class DesktopSpec:
    window_manager: str | None = None
    accessibility: bool = False


def read_desktop(reader: NodeReader, node: Node) -> DesktopSpec:
    """The suite's ``desktop:`` mapping (its window manager must be installed)."""
    keys = reader.mapping(node, "desktop", ("window_manager", "accessibility"))
    wm = None
    if "window_manager" in keys:
        wm = reader.string(keys["window_manager"][1], "desktop window_manager")
        if shutil.which(wm) is None:
            raise reader.error(keys["window_manager"][1], f"window manager {wm!r} not found: "
                                                          f"apt-get install {wm}")
    accessible = False
    if "accessibility" in keys:
        value = reader.value(keys["accessibility"][1])
        if not isinstance(value, bool):
            raise reader.error(keys["accessibility"][1], "desktop accessibility must be true or false")
        accessible = value
        if accessible and shutil.which("dbus-daemon") is None:
            raise reader.error(keys["accessibility"][1], "dbus-daemon not found: apt-get install dbus")
        if accessible and not any(os.path.exists(p) for p in A11Y_BUS_SERVICES):
            raise reader.error(keys["accessibility"][1], "the accessibility bus is not installed: "
                                                         "apt-get install at-spi2-core")
    return DesktopSpec(wm, accessible)


class DesktopSession:
    """Starts what a :class:`DesktopSpec` asks for on the current display; ``stop`` ends it and
    puts the environment back."""

    def __init__(self, spec: DesktopSpec, log_dir: Path) -> None:
        self.spec = spec
        self.log_dir = log_dir
        self._procs: list[subprocess.Popen] = []
        self._saved: dict[str, str | None] = {}
        self._tree: AtspiSource | None = None

    def wait_for_tree_window(self, title: str, timeout: float = TREE_WAIT_S) -> bool:
        """Until the accessibility tree lists a window whose title holds ``title`` (an app is
        on the bus a moment after its window shows); False after ``timeout`` or without a
        tree. Apps whose toolkit has no bridge never show up: the agent then sees their pixels."""
        if not self.spec.accessibility:
            return False
        if self._tree is None:
            from ..accessibility.atspi import AtspiSource

            self._tree = AtspiSource()
        deadline = time.monotonic() + timeout
        while not any(title in t for t in self._tree.window_titles()):
            if time.monotonic() > deadline:
                log.warning("no window titled %r in the accessibility tree after %.0f s (is the "
                            "application's accessibility bridge off?)", title, timeout)
                return False
            time.sleep(0.1)
        return True

    def start(self) -> None:
        if not (self.spec.accessibility or self.spec.window_manager):
            return
        self.log_dir.mkdir(parents=True, exist_ok=True)
        try:
            if self.spec.accessibility:
                self._start_bus()
            if self.spec.window_manager:
                self._start_window_manager(self.spec.window_manager)
        except BaseException:
            self.stop()
            raise

    def _setenv(self, name: str, value: str | None) -> None:
        self._saved.setdefault(name, os.environ.get(name))
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value

    def _spawn(self, argv: list[str], name: str, **kwargs: object) -> subprocess.Popen:
        out = (self.log_dir / f"{name}.log").open("w", encoding="utf-8")
        kwargs.setdefault("stdout", out)
        # Its own process group: what it starts in turn (the bus starts the accessibility bus
        # and its registry) is stopped with it.
        proc = subprocess.Popen(argv, stderr=out, stdin=subprocess.DEVNULL,  # type: ignore[call-overload]
                                start_new_session=True, **kwargs)
        self._procs.append(proc)
        return proc

    def _start_bus(self) -> None:
        bus = self._spawn(["dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address"],
                          "dbus", stdout=subprocess.PIPE, text=True)
        address = _first_line(bus, _START_TIMEOUT)
        if not address:
            raise SessionError("the D-Bus session bus did not start (see dbus.log)")
        self._setenv("DBUS_SESSION_BUS_ADDRESS", address)
        self._setenv("NO_AT_BRIDGE", None)   # GTK must report to the bus
        for name, value in ACCESSIBLE_ENV.items():
            self._setenv(name, value)
        log.info("D-Bus session %s (the accessibility bus starts on the first request)", address)

    def _start_window_manager(self, wm: str) -> None:
        proc = self._spawn([wm], "window-manager")
        deadline = time.monotonic() + _START_TIMEOUT
        while not _window_manager_running():
            if proc.poll() is not None:
                raise SessionError(f"the window manager {wm} exited with status {proc.returncode} "
                                   "(see window-manager.log)")
            if time.monotonic() > deadline:
                raise SessionError(f"the window manager {wm} did not start within "
                                   f"{_START_TIMEOUT:g} s")
            time.sleep(0.1)
        log.info("window manager %s running", wm)

    def stop(self) -> None:
        for proc in reversed(self._procs):
            _stop_group(proc)
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        self._procs.clear()
        for name, value in self._saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self._saved.clear()


def _stop_group(proc: subprocess.Popen) -> None:
    """Stop a process and its process group (SIGTERM, then SIGKILL after 5 s)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            continue


def _first_line(proc: subprocess.Popen, timeout: float) -> str:
    """The first line a process prints (its bus address), waiting at most ``timeout``."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    return proc.stdout.readline().strip() if ready else ""


def _window_manager_running() -> bool:
    """Whether a window manager manages the display (EWMH _NET_SUPPORTING_WM_CHECK is set)."""
    try:
        from Xlib import display as xdisplay
    except ImportError:
        return True
    try:
        conn = xdisplay.Display()
    except Exception:  # the display cannot be opened: nothing to wait for here
        return True
    try:
        root = conn.screen().root
        prop = root.get_full_property(conn.intern_atom("_NET_SUPPORTING_WM_CHECK"), 0)
        return prop is not None and len(prop.value) > 0
    finally:
        conn.close()
