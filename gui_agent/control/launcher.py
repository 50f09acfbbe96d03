"""Starting applications: only what the application registry resolves, never through a shell."""

from __future__ import annotations

import logging
import os
import subprocess

from ..errors import ControlError
from .app_env import app_environment
from .app_registry import AppEntry, AppFinder, AppRegistry

log = logging.getLogger(__name__)


def start(entry: AppEntry) -> None:
    """Run ``entry`` detached from the agent (its own session, no stdin/stdout)."""
    log.info("opening %s: %s (from %s)", entry.name, " ".join(entry.argv), entry.source)
    try:
        if entry.open_with_shell:
            os.startfile(entry.argv[0])  # type: ignore[attr-defined]  # Windows only
            return
        subprocess.Popen(list(entry.argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, cwd=_workdir(entry), close_fds=True,
                         start_new_session=True, env=app_environment())
    except (OSError, AttributeError) as exc:
        raise ControlError(f"cannot open {entry.name!r} ({' '.join(entry.argv)}, from "
                           f"{entry.source}): {exc}") from exc


def _workdir(entry: AppEntry) -> str | None:
    return entry.workdir if entry.workdir and os.path.isdir(entry.workdir) else None


def launch_app(name: str, apps: AppFinder | None = None) -> AppEntry:
    """Start the application ``name`` names in ``apps`` (default: this platform's registry,
    no allow list); AppRefused when the registry refuses it. Returns what was started."""
    entry = (apps if apps is not None else AppRegistry.for_platform()).find(name)
    start(entry)
    return entry
