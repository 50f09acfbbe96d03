"""A stand-in for ``DesktopActor`` that needs no display: it runs on real Ray, and each task's
id says what it does, so the driver's fault handling can be tested in seconds.

``ok-*`` passes; ``die-once-*`` kills its actor process the first time (a marker file in the
suite's folder remembers it) and passes afterwards; ``die-always-*`` kills it every time;
``hang-*`` never returns. ``node`` is ``pid-N``: a replaced worker shows another pid.
"""

from __future__ import annotations

import os
import time
from typing import Any

from gui_agent.batch.results import TaskRecord
from gui_agent.batch.suite import Suite


class FakeDesktop:
    def __init__(self, suite: Suite, slot: int, run_id: str, max_run_bytes: int,
                 accessibility: bool = True) -> None:
        self.suite, self.slot = suite, slot

    def start(self) -> dict[str, Any]:
        return {"ready": True, "node": f"pid-{os.getpid()}", "display": ":0", "pid": os.getpid()}

    def run_task(self, key: str) -> dict[str, Any]:
        marker = self.suite.folder / f"{key}.ran"
        if key.startswith("die-always") or (key.startswith("die-once") and not marker.exists()):
            marker.touch()
            os._exit(1)
        if key.startswith("hang"):
            time.sleep(3600)
        record = TaskRecord(task=key, outcome="passed", agent_outcome="done", steps=1,
                            worker=self.slot, node=f"pid-{os.getpid()}")
        return {"record": record.to_json(), "bundle": b"", "run_rel": None}

    def close(self) -> bool:
        return True
