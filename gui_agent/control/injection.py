"""Marks input that gui-agent itself sends, so that a recorder never records it.

The controller wraps every call that sends input in :func:`injecting`. Inside this process
the marker is a counter; for a recorder running in *another* process it is also written to a
small JSON file (one per display) under the user runtime directory (``$XDG_RUNTIME_DIR/gui-agent``,
else ``<user data dir>/run``)::

    {"pid": 4242, "active": true, "until": 1718000000.5}

``until`` is a wall-clock time: while a call runs it lies ``MAX_ACTIVE_S`` ahead (so a crashed
process cannot mute a recorder for long); when the call ends it is rewritten as the end time
plus ``GRACE_S``, because the listener hears an event a few milliseconds after it was sent.
The file of a process that is gone is ignored.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from .. import private_files

log = logging.getLogger(__name__)

GRACE_S = 0.3          # events heard this long after an injection ended are still ours
MAX_ACTIVE_S = 30.0    # an injection still "running" after this long is treated as stale

_lock = threading.Lock()
_depth = 0
_ended_at = 0.0        # time.monotonic() when the latest injection in this process ended
_written: set[Path] = set()


def _display_tag(display: str | None = None) -> str:
    name = display if display is not None else os.environ.get("DISPLAY", "")
    tag = re.sub(r"[^A-Za-z0-9_.-]", "_", name.strip()) or "local"
    return tag.strip("_") or "local"


def marker_dir() -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return Path(runtime) / "gui-agent"
    from ..config import user_data_dir

    return user_data_dir() / "run"


def marker_path(display: str | None = None) -> Path:
    """The marker file for ``display`` (default: $DISPLAY)."""
    return marker_dir() / f"injecting-{_display_tag(display)}.json"


def _write(active: bool, until: float) -> None:
    path = marker_path()
    try:
        if not path.parent.is_dir():
            path.parent.mkdir(mode=private_files.DIR_MODE, parents=True, exist_ok=True)
            private_files.set_mode(path.parent, private_files.DIR_MODE)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        private_files.write_text(tmp, json.dumps({"pid": os.getpid(), "active": active, "until": until}))
        os.replace(tmp, path)
        _written.add(path)
    except OSError as exc:  # a read-only home must not stop the agent from acting
        log.debug("cannot write the injection marker %s: %s", path, exc)


@contextlib.contextmanager
def injecting() -> Iterator[None]:
    """Input sent inside this block is gui-agent's own (nested blocks are fine)."""
    global _depth, _ended_at
    with _lock:
        _depth += 1
        if _depth == 1:
            _write(True, time.time() + MAX_ACTIVE_S)
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                _ended_at = time.monotonic()
                _write(False, time.time() + GRACE_S)


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _other_process(now: float, display: str | None) -> bool:
    """The marker file says some live process is injecting now (read each time: it is tiny, and
    file times are too coarse to tell two quick writes apart)."""
    path = marker_path(display)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        until, pid = float(data["until"]), int(data["pid"])
    except FileNotFoundError:
        return False
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.debug("unreadable injection marker %s: %s", path, exc)
        return False
    return now <= until and _pid_alive(pid)


def is_injecting(*, grace: float = GRACE_S, display: str | None = None) -> bool:
    """True while gui-agent (this process or another one on the same display) is sending
    input, and for ``grace`` seconds after."""
    with _lock:
        if _depth > 0 or (_ended_at and time.monotonic() - _ended_at <= grace):
            return True
    return _other_process(time.time(), display)


@atexit.register
def _remove_markers() -> None:
    for path in list(_written):
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
                path.unlink()
