"""What a batch run was asked for (``gui-agent batch`` flags): shared by the local runner and
the Ray driver, so that neither imports the other for it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class BatchOptions:
    suite: Path
    out: Path
    workers: int = 1
    headless: bool = False
    resume: bool = False
    quiet: bool = False
    only: tuple[str, ...] = ()      # glob patterns over task keys
    ray: str | None = None          # a Ray cluster (local | auto | ADDRESS): actors, not processes
    accessibility: bool = True      # False (--no-a11y): the agent sees pixels alone
