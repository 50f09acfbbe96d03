"""A machine-readable log of what the app did (``--events-file``): one JSON object a line.

Scripts and end-to-end tests read it to find the window, follow runs and check where the
agent acted; nothing in the app depends on it.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


class EventLog:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()

    def emit(self, kind: str, **data: Any) -> None:
        if self.path is None:
            return
        line = json.dumps({"event": kind, "time": round(time.time(), 3), **data},
                          ensure_ascii=False, default=str)
        try:
            with self._lock, self.path.open("a", encoding="utf-8") as f:
                f.write(line + "\n")
        except OSError as exc:
            log.warning("could not write to the events file %s: %s", self.path, exc)


def read_events(path: Path) -> list[dict[str, Any]]:
    """The events written so far (a half-written last line is skipped)."""
    events = []
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    for line in text.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue
    return events
