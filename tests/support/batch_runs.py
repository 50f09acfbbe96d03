"""What the batch end-to-end tests read back from a `gui-agent batch` run they started as a
subprocess: its environment, its records, and the processes it may have left behind."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.support.paths import REPO


def env() -> dict[str, str]:
    """This environment, with the checkout importable in the child."""
    return {**os.environ, "PYTHONPATH": str(REPO)}


def records(out: Path) -> list[dict]:
    """The run's results.jsonl, whole lines only (a torn last line is being written)."""
    path = out / "results.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.endswith("}")]


def processes_mentioning(text: str) -> list[str]:
    """``pid: command line`` of every other process whose command line holds ``text``."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            cmdline = (Path("/proc") / pid / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in cmdline:
            found.append(f"{pid}: {cmdline[:160]}")
    return found
