"""Start the playground as a subprocess on an X display and watch its state file.

No Qt here: tests and demos launch the app in its own process (real window, real input)
and read its observable state from the JSON file it rewrites on every change.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from gui_agent.control.app_env import app_environment
from gui_agent.errors import DisplayError, GuiAgentError

log = logging.getLogger(__name__)

PACKAGE_ROOT = Path(__file__).resolve().parents[2]
StatePredicate = Callable[[dict[str, Any]], bool]


class PlaygroundError(GuiAgentError):
    """The playground did not start, died, or did not reach an expected state in time."""


class PlaygroundProcess:
    """A running playground app; use as a context manager so it is always closed."""

    def __init__(
        self, popen: subprocess.Popen, state_file: Path, log_path: Path, log_file: IO
    ) -> None:
        self._popen = popen
        self.state_file = state_file
        self.log_path = log_path
        self._log_file = log_file

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        """The exit status, or None while it runs."""
        return self._popen.poll()

    def log_tail(self, chars: int = 2000) -> str:
        """The end of the app's stdout/stderr, for error messages."""
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")[-chars:]
        except OSError:
            return ""

    def _read(self) -> dict[str, Any] | None:
        try:
            return json.loads(self.state_file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except json.JSONDecodeError:  # written atomically, so only a foreign writer gets here
            return None

    def state(self) -> dict[str, Any]:
        """The app's current state document."""
        state = self._read()
        if state is None:
            raise PlaygroundError(
                f"the playground has not written a readable state file at {self.state_file} yet"
            )
        return state

    def wait_for(
        self, predicate: StatePredicate, timeout: float = 10.0, interval: float = 0.03
    ) -> dict[str, Any]:
        """Poll the state until ``predicate(state)`` is true and return that state."""
        deadline = time.monotonic() + timeout
        last: dict[str, Any] | None = None
        while True:
            exited = self._popen.poll() is not None
            state = self._read()
            if state is not None:
                last = state
                if predicate(state):
                    return state
            if exited:
                raise PlaygroundError(
                    f"the playground exited with status {self._popen.returncode} before the "
                    f"expected state was reached. Its output:\n{self.log_tail()}"
                )
            if time.monotonic() >= deadline:
                summary = _summary(last)
                raise PlaygroundError(
                    f"the playground did not reach the expected state within {timeout:.1f}s; "
                    f"last state: {summary}"
                )
            time.sleep(interval)

    def wait_ready(self, timeout: float = 20.0) -> dict[str, Any]:
        """Wait until the window is shown and painted (``ready`` in the state)."""
        try:
            return self.wait_for(lambda s: bool(s.get("ready")), timeout=timeout)
        except PlaygroundError as exc:
            raise PlaygroundError(
                f"{exc}\nIs the display reachable and the Qt xcb plugin installed? Its output:\n"
                f"{self.log_tail()}"
            ) from None

    def close(self, timeout: float = 5.0) -> None:
        """Terminate the app (kill it if it does not stop within ``timeout``)."""
        if self._popen.poll() is None:
            self._popen.terminate()
            try:
                self._popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                log.warning("playground pid %d did not terminate; killing it", self._popen.pid)
                self._popen.kill()
                self._popen.wait(timeout=timeout)
        with contextlib.suppress(OSError):
            self._log_file.close()

    def __enter__(self) -> PlaygroundProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _summary(state: dict[str, Any] | None) -> str:
    if state is None:
        return "none (no state file written)"
    keep = ("ready", "running", "current_tab", "dialog", "last_clicked")
    text = json.dumps({k: state.get(k) for k in keep})
    events = [e.get("action") for e in state.get("events", [])][-8:]
    return f"{text}, recent events {events}"


def playground_command(
    state_file: Path,
    *,
    theme: str = "light",
    font_scale: float = 1.0,
    size: tuple[int, int] = (1024, 700),
    pos: tuple[int, int] = (0, 0),
    save_dir: Path | None = None,
    reorder: bool = False,
    extra_widget: bool = False,
    rename: Mapping[str, str] | None = None,
) -> list[str]:
    """The argv that runs the playground with these options."""
    argv = [
        sys.executable,
        "-m",
        "gui_agent.playground",
        "--state-file",
        str(state_file),
        "--theme",
        theme,
        "--font-scale",
        str(font_scale),
        "--size",
        f"{size[0]}x{size[1]}",
        "--pos",
        f"{pos[0]},{pos[1]}",
    ]
    if save_dir is not None:
        argv += ["--save-dir", str(save_dir)]
    if reorder:
        argv.append("--reorder")
    if extra_widget:
        argv.append("--extra-widget")
    for old, new in (rename or {}).items():
        argv += ["--rename", f"{old}={new}"]
    return argv


def launch_playground(
    state_file: Path,
    *,
    display: str | None = None,
    theme: str = "light",
    font_scale: float = 1.0,
    size: tuple[int, int] = (1024, 700),
    pos: tuple[int, int] = (0, 0),
    save_dir: Path | None = None,
    extra_env: Mapping[str, str] | None = None,
    reorder: bool = False,
    extra_widget: bool = False,
    rename: Mapping[str, str] | None = None,
) -> PlaygroundProcess:
    """Start the playground on ``display`` (default: $DISPLAY) with the xcb platform.

    ``reorder``, ``extra_widget`` and ``rename`` perturb the app for replay tests (see
    ``gui_agent.playground.perturb``).

    It returns at once; call ``wait_ready()`` before looking at the screen. The app's
    output goes to ``<state_file>.log``. A stale state file is removed first, so ``ready``
    always refers to this run.
    """
    display = display or os.environ.get("DISPLAY")
    if not display:
        raise DisplayError(
            "no X display for the playground: pass display=':N' or set DISPLAY "
            "(start a virtual one with `Xvfb :N -screen 0 1280x800x24 -nolisten tcp`)"
        )
    state_file = Path(state_file)
    state_file.parent.mkdir(parents=True, exist_ok=True)
    state_file.unlink(missing_ok=True)
    env = app_environment()
    env.update(
        {
            "DISPLAY": display,
            "QT_QPA_PLATFORM": "xcb",
            "QT_FONT_DPI": env.get("QT_FONT_DPI", "96"),
            "QT_ACCESSIBILITY": env.get("QT_ACCESSIBILITY", "0"),
            "PYTHONPATH": os.pathsep.join(
                p for p in (str(PACKAGE_ROOT), env.get("PYTHONPATH")) if p
            ),
        }
    )
    env.update(extra_env or {})
    argv = playground_command(
        state_file, theme=theme, font_scale=font_scale, size=size, pos=pos, save_dir=save_dir,
        reorder=reorder, extra_widget=extra_widget, rename=rename,
    )
    log_path = state_file.with_name(state_file.name + ".log")
    log_file = log_path.open("w", encoding="utf-8")
    log.info("starting the playground on %s: %s", display, " ".join(argv))
    try:
        popen = subprocess.Popen(argv, env=env, stdout=log_file, stderr=subprocess.STDOUT)
    except OSError as exc:
        log_file.close()
        raise PlaygroundError(f"could not start the playground ({argv[0]}): {exc}") from exc
    return PlaygroundProcess(popen, state_file, log_path, log_file)
