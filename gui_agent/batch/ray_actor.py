"""One batch worker as a Ray actor: its own virtual display, apps, screen parser and engine.

``ray_runner`` wraps :class:`DesktopActor` with ``ray.remote`` (this module does not import
Ray at the top, so it loads without it). ``start`` brings the desktop up on the actor's node:
a process group of its own guarded against a hard kill (``guard.py``), an Xvfb, and a
:class:`~gui_agent.batch.worker.Worker` (the parser loaded once, an engine per task from the
composition root, the suite's setup/teardown). ``run_task`` runs one task there and returns
its record with the task's run folder packed up to the size cap (``run_transfer.py``); the
node keeps nothing of it afterwards. ``close`` stops it all. Each returns a plain dict: a
suite that cannot run is ``{"suite_error": ...}``, as with local workers.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
import traceback
from dataclasses import replace
from pathlib import Path
from typing import Any

from .suite import Suite, SuiteError

log = logging.getLogger(__name__)


def node_folder(run_id: str, slot: int) -> Path:
    """Where a worker keeps its files on its node while it runs (removed when it ends)."""
    root = Path(tempfile.gettempdir()) / f"gui-agent-ray-{run_id}"
    root.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"w{slot}-", dir=root))


def _node_name() -> str:
    import ray

    ip = ray.util.get_node_ip_address()
    return f"{ip}/{ray.get_runtime_context().get_node_id()[:8]}"


class DesktopActor:
    """A worker slot on a Ray node (one desktop); Ray restarts it where it died or hung."""

    def __init__(self, suite: Suite, slot: int, run_id: str, max_run_bytes: int,
                 accessibility: bool = True) -> None:
        self.suite, self.slot, self.run_id = suite, slot, run_id
        self.max_run_bytes = max_run_bytes
        self.accessibility = accessibility   # False (--no-a11y): the agent sees pixels alone
        self.node = ""
        self._info: dict[str, Any] | None = None
        self._base: Path | None = None
        self._guard: Any = None
        self._display: Any = None
        self._worker: Any = None

    def start(self) -> dict[str, Any]:
        """Bring the desktop up (once): ``{"ready": ...}``, ``{"suite_error": ...}`` or
        ``{"fatal": ...}`` when this node cannot host it."""
        if self._info is not None:
            return self._info
        logging.basicConfig(level=logging.INFO, format=f"%(asctime)s w{self.slot} "
                            "%(levelname)s %(name)s: %(message)s")
        self.node = _node_name()
        try:
            self._info = self._start()
        except SuiteError as exc:
            return {"suite_error": str(exc)}
        except Exception as exc:  # Xvfb missing, a full disk...: this node cannot run it
            log.error("worker %d could not start:\n%s", self.slot, traceback.format_exc())
            return {"fatal": f"worker {self.slot} on node {self.node} could not start: "
                             f"{type(exc).__name__}: {exc}"}
        return self._info

    def _start(self) -> dict[str, Any]:
        from ..display import VirtualDisplay
        from .guard import GroupGuard, lead_group
        from .worker import Worker

        if not self.suite.folder.is_dir():
            raise SuiteError(self.suite.path, 1, f"the suite's folder does not exist on node "
                             f"{self.node}: every node needs it at the same path (the same "
                             "checkout, or a shared file system)")
        lead_group()
        self._base = node_folder(self.run_id, self.slot)
        self._guard = GroupGuard(self._base)
        self._display = VirtualDisplay()
        display = self._display.start()
        self._worker = Worker(self.suite, self.slot, self._base, accessibility=self.accessibility)
        self._worker.setup_worker()
        return {"ready": True, "node": self.node, "display": display, "pid": os.getpid()}

    def run_task(self, key: str) -> dict[str, Any]:
        """Run one task: ``{"record": ..., "bundle": tar bytes, "run_rel": ...}``."""
        from .run_transfer import pack_files
        from .worker import task_folder_name

        assert self._worker is not None and self._base is not None, "start() first"
        task = self.suite.task(key)
        folder = task_folder_name(self.suite, task)
        try:
            record = self._worker.run_task(task)
        except SuiteError as exc:
            return {"suite_error": str(exc)}
        except Exception as exc:  # the task fails, the worker goes on
            log.error("task %s crashed:\n%s", key, traceback.format_exc())
            return {"crashed": f"{type(exc).__name__}: {exc}"}
        runs, work = self._base / "runs" / folder, self._base / "work" / folder
        bundle = pack_files(self._base, [runs], self.max_run_bytes, logs_only=[work])
        run_rel = None
        if record.run_dir:
            with contextlib.suppress(ValueError):
                run_rel = Path(record.run_dir).relative_to(self._base).as_posix()
        shutil.rmtree(runs, ignore_errors=True)
        if self.suite.isolation == "task":
            shutil.rmtree(work, ignore_errors=True)
        record = replace(record, node=self.node, left_out=list(bundle.left_out))
        return {"record": record.to_json(), "bundle": bundle.data, "run_rel": run_rel}

    def close(self) -> bool:
        """Teardown, stop the apps and the display, and remove the worker's folder."""
        worker, self._worker = self._worker, None
        try:
            if worker is not None:
                worker.close()
        finally:
            if self._display is not None:
                self._display.stop()
                self._display = None
            if self._guard is not None:
                self._guard.release()
                self._guard = None
            self._info = None
        return True
