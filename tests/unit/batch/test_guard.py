"""The guard of a desktop worker: a hard kill of its owner still stops what the owner started."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tests.support.paths import REPO

OWNER = textwrap.dedent("""\
    import subprocess, sys, time
    from pathlib import Path
    from gui_agent.batch.guard import GroupGuard, lead_group
    lead_group()
    guard = GroupGuard(Path(sys.argv[1]))
    child = subprocess.Popen(["sleep", "300"])
    print(child.pid, flush=True)
    if sys.argv[2] == "release":
        guard.release()
        print("released", flush=True)
    time.sleep(300)
    """)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


def wait_until(condition, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


@pytest.fixture
def owner(tmp_path):
    started = []

    def start(mode: str) -> tuple[subprocess.Popen, int]:
        folder = tmp_path / "node" / "w1"
        folder.mkdir(parents=True)
        proc = subprocess.Popen([sys.executable, "-c", OWNER, str(folder), mode],
                                stdout=subprocess.PIPE, text=True, cwd=REPO,
                                env={**os.environ, "PYTHONPATH": str(REPO)})
        started.append(proc)
        assert proc.stdout is not None
        child = int(proc.stdout.readline())
        started.append(child)
        return proc, child

    yield start
    for item in started:
        if isinstance(item, int):
            if alive(item):
                os.kill(item, signal.SIGKILL)
        elif item.poll() is None:
            item.kill()
            item.wait()


def test_a_killed_owner_leaves_no_process_and_no_folder(owner, tmp_path):
    proc, child = owner("die")
    proc.kill()  # SIGKILL: no finally, no atexit
    proc.wait()
    assert wait_until(lambda: not alive(child)), "the owner's child outlived it"
    assert wait_until(lambda: not (tmp_path / "node").exists())


def test_a_released_guard_only_removes_the_folder(owner, tmp_path):
    proc, child = owner("release")
    assert proc.stdout is not None and proc.stdout.readline().strip() == "released"
    assert wait_until(lambda: not (tmp_path / "node").exists())
    proc.kill()
    proc.wait()
    time.sleep(0.5)
    assert alive(child)  # the owner stopped its processes itself: the guard left them be
