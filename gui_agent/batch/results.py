"""The batch result log: one JSON line per finished task, appended, flushed and fsynced.

A crash or a kill of the runner loses no finished result: each line is on disk before the
next task's result is written. A line cut short by a kill mid-write is ignored (and cut
off the file) when the log is opened again with ``resume``.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ..secrets import TaskSecrets, mask_record

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TaskRecord:
    task: str                        # the task's key in the suite
    outcome: str                     # passed | failed
    reason: str = ""                 # why it failed (or the agent's reason)
    agent_outcome: str = ""          # done | failed | refused | error | stopped | crashed
    parameters: dict[str, str] = field(default_factory=dict)
    instruction: str = ""
    steps: int = 0
    seconds: float = 0.0             # wall time of the whole task: setup, agent, checks, teardown
    agent_seconds: float = 0.0
    run_dir: str | None = None
    check: str = ""                  # what was checked, in words
    worker: int = 0
    finished_at: str = ""
    # Ray runs (``--ray``): where it ran, why earlier attempts ended (an empty list: it ran once),
    # and the files of its run folder left on that node (over the per-task size cap).
    node: str = ""
    retries: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TaskRecord:
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def read_records(path: Path) -> list[TaskRecord]:
    """Every complete record in the log, in order; a torn or foreign line is skipped."""
    records, _ = _scan(path)
    return records


def _scan(path: Path) -> tuple[list[TaskRecord], int]:
    """The records and the byte length of the file's intact prefix (whole lines)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], 0
    records: list[TaskRecord] = []
    good = 0
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        if end < 0:  # no newline: the write was cut short
            log.warning("%s: ignoring an incomplete last line (%d bytes)", path, len(data) - pos)
            break
        line = data[pos:end]
        pos = end + 1
        good = pos
        if not line.strip():
            continue
        try:
            records.append(TaskRecord.from_json(json.loads(line)))
        except (ValueError, TypeError) as exc:
            log.warning("%s: skipping an unreadable line: %s", path, exc)
    return records, good


def latest_by_task(records: list[TaskRecord]) -> dict[str, TaskRecord]:
    """The last record of each task (a re-run's result replaces the earlier one)."""
    out: dict[str, TaskRecord] = {}
    for r in records:
        out[r.task] = r
    return out


class ResultsLog:
    """Append-only JSONL of TaskRecords; ``resume=False`` starts a new log."""

    def __init__(self, path: Path, resume: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if resume:
            self.previous, good = _scan(self.path)
            if self.path.exists() and self.path.stat().st_size != good:
                with self.path.open("r+b") as f:  # cut a torn last line so appends stay whole
                    f.truncate(good)
        else:
            self.previous = []
            self.path.unlink(missing_ok=True)
        self._file = self.path.open("a", encoding="utf-8")

    def passed_tasks(self) -> set[str]:
        return {k for k, r in latest_by_task(self.previous).items() if r.passed}

    def append(self, record: TaskRecord) -> None:
        """One finished task; the secrets its instruction names are masked before it is written
        (its key stays as the suite has it: ``--resume`` finds the task by it)."""
        mask = TaskSecrets.from_task(record.instruction)
        record = replace(mask_record(record, mask), task=record.task)
        self._file.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()

    def __enter__(self) -> ResultsLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
