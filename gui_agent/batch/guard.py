"""What a desktop worker leaves behind when it is killed: stopped by a guard process.

A Ray actor can be killed outright (a hung task, ``ray.kill``, its node going away, the driver
dying): no ``finally`` runs, so its Xvfb and its apps would live on. The actor therefore leads a
process group of its own (everything it starts joins it) and starts a guard, ``python -m
gui_agent.batch.guard``, that waits on a pipe only the actor holds. When the actor closes cleanly
it says ``release`` first and the guard only removes the worker's folder; when the pipe ends
without it, the actor died: the guard sends SIGTERM to the group, SIGKILL to what is left after
a few seconds, then removes the folder. The guard detaches from the actor (it forks and its
first process exits), so that Ray, which kills a dying worker's child processes, leaves it be.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO

RELEASE = b"release\n"


class GroupGuard:
    """The owner's side: start it after ``lead_group()``, ``release()`` it on a clean close."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        # Only a group this process leads is stopped: never one it shares with its parent.
        group = os.getpgid(0) if os.getpgid(0) == os.getpid() else 0
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "gui_agent.batch.guard", "--group", str(group),
             "--remove", str(folder)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            process_group=0)  # not in the group it guards
        self._pipe: IO[bytes] | None = self._proc.stdin
        self._proc.wait(timeout=30)  # its first process exits once the guard has detached

    def release(self) -> None:
        """The owner stopped its processes itself: the guard removes the folder and exits."""
        pipe, self._pipe = self._pipe, None
        if pipe is None:
            return
        with contextlib.suppress(OSError):
            pipe.write(RELEASE)
            pipe.flush()
        with contextlib.suppress(OSError):
            pipe.close()


def lead_group() -> None:
    """Make this process the leader of a new process group (its children join it); outside
    the terminal's group, Ctrl+C on a driver is no longer delivered to it."""
    with contextlib.suppress(OSError):  # already a group or session leader
        os.setpgid(0, 0)


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_group(group: int, grace: float = 5.0) -> None:
    """SIGTERM every process of the group, SIGKILL what is still there after ``grace`` seconds."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 1.0)):
        try:
            os.killpg(group, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not _group_alive(group):
                return
            time.sleep(0.1)


def _remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    with contextlib.suppress(OSError):
        folder.parent.rmdir()  # the run's folder on this node, once its last worker is gone


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gui_agent.batch.guard")
    parser.add_argument("--group", type=int, required=True)
    parser.add_argument("--remove", type=Path, required=True)
    args = parser.parse_args(argv)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)  # it must outlive its owner to do its work
    if os.fork():  # detach: no longer a child of the owner
        os._exit(0)
    said = sys.stdin.buffer.read()  # until the owner closes the pipe or dies
    if RELEASE not in said and args.group > 1:
        stop_group(args.group)
    _remove(args.remove)
    return 0


if __name__ == "__main__":
    sys.exit(main())
