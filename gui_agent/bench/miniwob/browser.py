"""Debian chromium showing one MiniWoB page on a given X display, driven only by OS input.

Flags (see RECIPES.md, MiniWoB++): ``--no-sandbox`` (chromium as root), ``--test-type`` (no
warning bar), ``--app=URL`` (no toolbar), a fresh ``--user-data-dir`` per browser, a free
``--remote-debugging-port`` for the harness, and ``--force-device-scale-factor`` so the tiny
160x210 CSS px task area is drawn large enough to read.

Geometry: the window is as wide as the whole MiniWoB page (task area + the reward panel
right of it), but the virtual screen is narrower and only shows the task area, a 4 px strip
of page background and some background below it (room for <select> popups). A window
narrower than the page would break jQuery UI's placement (click-dialog's dialog lands left
of the window); a screen narrower than the window just clips it. So the agent, which
observes the whole screen, sees what MiniWoB's own observation crops to, and no score.
Window geometry on the command line is in CSS px (chromium multiplies it by the scale).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ...errors import GuiAgentError
from .cdp import CdpClient, page_websocket_url

log = logging.getLogger(__name__)

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
TASK_AREA = (160, 210)      # MiniWoB's #wrap, CSS px
WINDOW_CSS = (332, 280)     # the whole page: task area, then the reward panel at x=165..325
SCREEN_CSS = (164, 280)     # what is visible: the task area, 4 px of background right of it,
#                             70 px below it (where <select> popups may open)


class BrowserError(GuiAgentError):
    """Chromium is missing or did not start."""


def find_chromium() -> str:
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    raise BrowserError("chromium is not installed: apt-get install -y chromium "
                       "(or run installer/setup.sh)")


def free_port() -> int:
    """A TCP port that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def screen_size(scale: int) -> tuple[int, int]:
    """The virtual screen (device px) for a scale: the visible part of the window."""
    return SCREEN_CSS[0] * scale, SCREEN_CSS[1] * scale


@dataclass(frozen=True)
class BrowserOptions:
    scale: int = 2
    window_css: tuple[int, int] = WINDOW_CSS
    position: tuple[int, int] = (0, 0)
    start_timeout: float = 20.0
    accessibility: bool = False      # expose the page to the accessibility bus (AT-SPI)

    def flags(self, port: int, user_data_dir: Path, url: str) -> list[str]:
        return [
            "--no-sandbox", "--test-type", "--no-first-run", "--no-default-browser-check",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-translate", "--disable-features=Translate,MediaRouter",
            "--password-store=basic", "--hide-scrollbars",  # no scrollbar may cover the task
            f"--user-data-dir={user_data_dir}",
            f"--remote-debugging-port={port}", "--remote-allow-origins=*",
            f"--force-device-scale-factor={self.scale}",
            f"--window-position={self.position[0]},{self.position[1]}",
            f"--window-size={self.window_css[0]},{self.window_css[1]}",
            *(["--force-renderer-accessibility"] if self.accessibility else []),
            f"--app={url}",
        ]


class Chromium:
    """One chromium process on ``display`` (':N'); ``start()`` returns a CDP client to its page."""

    def __init__(self, display: str, url: str, options: BrowserOptions | None = None) -> None:
        self.display = display
        self.url = url
        self.options = options or BrowserOptions()
        self.port: int | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._user_dir: Path | None = None
        self._cdp: CdpClient | None = None

    def start(self) -> CdpClient:
        if self._proc is not None:
            raise BrowserError("this chromium is already running")
        binary = find_chromium()
        self._user_dir = Path(tempfile.mkdtemp(prefix="gui-agent-chromium-"))
        self.port = free_port()
        (self._user_dir / "tmp").mkdir()
        # its temp files (the singleton socket's folder) go with the profile, even when killed
        env = {**os.environ, "DISPLAY": self.display, "TMPDIR": str(self._user_dir / "tmp")}
        log_file = (self._user_dir / "chromium.log").open("wb")
        try:
            self._proc = subprocess.Popen(
                [binary, *self.options.flags(self.port, self._user_dir / "profile", self.url)],
                env=env, stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True)  # its own process group: stop() ends the helpers too
        finally:
            log_file.close()
        try:
            self._cdp = CdpClient(page_websocket_url(self.port, self.options.start_timeout))
        except GuiAgentError as exc:
            tail = self._log_tail()
            self.stop()
            raise BrowserError(f"chromium did not open its page on {self.display}: {exc}"
                               f"{f'; its log ends: {tail}' if tail else ''}") from exc
        log.info("chromium on %s, DevTools port %d, scale %d", self.display, self.port,
                 self.options.scale)
        return self._cdp

    @property
    def cdp(self) -> CdpClient:
        if self._cdp is None:
            raise BrowserError("chromium is not running")
        return self._cdp

    def _log_tail(self) -> str:
        if self._user_dir is None:
            return ""
        path = self._user_dir / "chromium.log"
        try:
            return path.read_text(encoding="utf-8", errors="replace")[-400:].strip()
        except OSError:
            return ""

    def stop(self) -> None:
        """End chromium and its helper processes, delete the profile. Idempotent."""
        if self._cdp is not None:
            self._cdp.close()
            self._cdp = None
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            _signal_group(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                _signal_group(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
        if proc is not None:
            time.sleep(0.1)  # helpers of the group may still be writing into the profile
            _signal_group(proc.pid, signal.SIGKILL)
        if self._user_dir is not None:
            shutil.rmtree(self._user_dir, ignore_errors=True)
            self._user_dir = None

    def __enter__(self) -> Chromium:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _signal_group(pid: int, sig: int) -> None:
    """Signal the process group chromium leads (we started it with its own session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
