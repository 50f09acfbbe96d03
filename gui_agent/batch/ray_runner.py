"""The batch driver on Ray: one actor per worker slot, results recorded as they come back.

The driver keeps the local runner's contract (``runner.run_batch`` calls it the same way):
each result is appended to ``results.jsonl`` as it arrives, the progress bar moves, and each
task's run folder is unpacked under ``--out`` for the report. Ray does the placing, the
restarting and the killing; the driver decides what a fault means for a task:

- a worker (actor) that dies, or whose node dies, is restarted by Ray (``max_restarts``, the
  suite's ``ray: restarts``) where there is room; the task it was running goes back to the
  queue for any worker, at most ``ray: task_retries`` times, and its record lists why;
- a task with no result past its limit is recorded as hung, and its worker is killed with it
  (Ray replaces the worker);
- Ctrl+C, or an error, kills every worker: their guards stop the apps and displays; what was
  not recorded reruns with ``--resume``;
- each task is recorded at most once per run.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import tarfile
import time
from collections import deque
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .progress import BatchProgress
from .ray_actor import DesktopActor
from .ray_cluster import ClusterInfo, require_ray
from .ray_options import RayOptions
from .results import ResultsLog, TaskRecord, now_iso
from .run_transfer import unpack
from .suite import Suite, TaskSpec

if TYPE_CHECKING:
    from .options import BatchOptions

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0       # how often to ask whether a restarting worker is back
HANG_GRACE = 60.0        # beyond a task's own limits before it counts as hung
_NO_READY_WAIT = 0.5     # what worker.py waits for a started app without a readiness check


def task_limit(suite: Suite, task: TaskSpec, options: RayOptions) -> float:
    """Seconds a task may take before it counts as hung: the suite's ``ray: task_timeout``, or
    everything the task may wait for (setup, the agent's limit, checks, teardown) plus a grace."""
    if options.task_timeout is not None:
        return options.task_timeout
    steps = [*task.setup]
    if suite.isolation == "task":
        steps += [*suite.setup, *suite.teardown]
    waits = sum((s.ready.timeout if s.ready else _NO_READY_WAIT) if s.kind == "start"
                else s.timeout for s in steps)
    return float(task.max_seconds) + waits + sum(c.timeout for c in task.checks) + HANG_GRACE


def _first_line(exc: BaseException, limit: int = 200) -> str:
    text = str(exc).strip().splitlines()
    line = text[0] if text else ""
    return f"{type(exc).__name__}: {line[:limit]}{'…' if len(line) > limit else ''}"


class _Slot:
    """One worker slot: its actor handle (stable across Ray restarts) and what it is doing."""

    def __init__(self, number: int, actor: Any) -> None:
        self.number, self.actor = number, actor
        self.state = "starting"          # starting | idle | busy | restarting | dead
        self.node = ""
        self.task: TaskSpec | None = None
        self.since = 0.0                 # when its task was handed over
        self.poll_at = 0.0
        self.ref: Any = None             # the call in flight (start or run_task)

    @property
    def up(self) -> bool:
        return self.state in ("idle", "busy")


class RayBatchRun:
    """Runs a suite's pending tasks on Ray actors; ``run``, then ``stop_all`` (always)."""

    def __init__(self, opts: BatchOptions, suite: Suite, tasks: list[TaskSpec], results: ResultsLog,
                 progress: BatchProgress, cluster: ClusterInfo | None = None,
                 desktop: type = DesktopActor) -> None:
        self.ray = require_ray()
        self.opts, self.suite, self.results, self.progress = opts, suite, results, progress
        self.options = suite.ray
        skip = results.passed_tasks()
        self.pending: deque[TaskSpec] = deque(t for t in tasks if t.key not in skip)
        self.cluster = cluster
        self.slots: list[_Slot] = []
        self.error: str | None = None
        self.retries: dict[str, list[str]] = {}
        self.reported: set[str] = set()
        self._calls: dict[Any, tuple[_Slot, str]] = {}
        self._remote = self.ray.remote(desktop)
        self._run_id = hashlib.sha1(str(opts.out).encode()).hexdigest()[:10]
        self._up_at = time.monotonic()

    # -- the actors ------------------------------------------------------------------------
    def _new_actor(self, number: int) -> Any:
        o = self.options
        extra = {"resources": dict(o.resources)} if o.resources else {}
        return self._remote.options(
            num_cpus=o.num_cpus, memory=o.memory, max_restarts=o.restarts, max_task_retries=0,
            **extra).remote(self.suite, number, self._run_id, o.max_run_bytes,
                            self.opts.accessibility)

    def _call(self, slot: _Slot, method: str, *args: Any) -> None:
        ref = getattr(slot.actor, method).remote(*args)
        slot.ref = ref
        self._calls[ref] = (slot, method)

    def _drop_call(self, slot: _Slot) -> None:
        if slot.ref is not None:
            self._calls.pop(slot.ref, None)
            slot.ref = None

    # -- the loop --------------------------------------------------------------------------
    def run(self) -> None:
        count = min(self.opts.workers, len(self.pending))
        if self.cluster is not None:
            self.progress.note(f"{self.cluster.describe()}; {count} worker(s), each asking for "
                               f"{self.options.describe()}")
            if self.cluster.fit < count:
                self.progress.note(f"the cluster has room for {self.cluster.fit} of them now; "
                                   "the others start when room frees up or nodes join")
        for number in range(1, count + 1):
            slot = _Slot(number, self._new_actor(number))
            self.slots.append(slot)
            self._call(slot, "start")
        while self.error is None and (self.pending or any(s.task for s in self.slots)):
            self._ask_restarting()
            self._stop_hung()
            self._check_up()
            if self.error is not None:
                return
            refs = list(self._calls)
            if not refs:
                time.sleep(0.2)
                continue
            done, _ = self.ray.wait(refs, num_returns=1, timeout=0.5)
            for ref in done:
                slot, method = self._calls.pop(ref)
                slot.ref = None
                self._settle(slot, method, ref)

    def _settle(self, slot: _Slot, method: str, ref: Any) -> None:
        from ray.exceptions import RayActorError, RayError

        try:
            value = self.ray.get(ref)
        except RayActorError as exc:
            self._lost(slot, exc)
            return
        except RayError as exc:  # the method raised (a bug): the task fails, the worker goes on
            value = {"crashed": _first_line(exc)} if method == "run_task" else \
                {"fatal": f"worker {slot.number} could not start: {_first_line(exc)}"}
        if method == "start":
            self._started(slot, value)
        else:
            self._finished(slot, value)

    def _started(self, slot: _Slot, value: dict[str, Any]) -> None:
        if "suite_error" in value:
            self.error = value["suite_error"]
            return
        if "fatal" in value:
            self.progress.note(value["fatal"])
            self._retire(slot, value["fatal"])
            return
        again = " again" if slot.node else ""
        slot.node, slot.state = value.get("node", "?"), "idle"
        self._up_at = time.monotonic()
        if not self.opts.quiet or again:
            self.progress.note(f"worker {slot.number} up{again} on node {slot.node} "
                               f"(display {value.get('display')})")
        self._hand_out()

    def _hand_out(self) -> None:
        for slot in self.slots:
            if slot.state == "idle" and self.pending:
                task = self.pending.popleft()
                slot.task, slot.state, slot.since = task, "busy", time.monotonic()
                self._call(slot, "run_task", task.key)
                self.progress.started(task.key, slot.number)

    def _finished(self, slot: _Slot, value: dict[str, Any]) -> None:
        task, slot.task, slot.state = slot.task, None, "idle"
        assert task is not None
        if "suite_error" in value:
            self.error = value["suite_error"]
            return
        if "crashed" in value:
            self._record(self._failure(task, slot, "crashed",
                                       f"the task crashed: {value['crashed']}"))
        else:
            record = TaskRecord.from_json(value["record"])
            run_dir = str(self.opts.out / value["run_rel"]) if value.get("run_rel") else None
            try:
                unpack(value.get("bundle") or b"", self.opts.out)
            except (tarfile.TarError, OSError) as exc:  # the record is kept, without its folder
                self.progress.note(f"{task.key}: its run folder could not be unpacked: {exc}")
                run_dir = None
            self._record(replace(record, run_dir=run_dir,
                                 retries=list(self.retries.get(task.key, []))))
        self._hand_out()

    # -- faults ----------------------------------------------------------------------------
    def _lost(self, slot: _Slot, exc: Exception) -> None:
        """Its actor died (or is being restarted by Ray): the task it ran goes back."""
        from ray.exceptions import ActorDiedError

        why = _first_line(exc)
        task, slot.task = slot.task, None
        if task is not None:
            node = slot.node or "?"
            self._retry(task, slot, f"worker {slot.number} on node {node} was lost while "
                                    f"running it ({why})")
        if isinstance(exc, ActorDiedError):  # Ray will not bring it back
            self._retire(slot, why)
        else:
            slot.state, slot.poll_at = "restarting", time.monotonic() + POLL_SECONDS
        self._hand_out()

    def _retry(self, task: TaskSpec, slot: _Slot, reason: str) -> None:
        earlier = self.retries.setdefault(task.key, [])
        earlier.append(reason)
        if len(earlier) <= self.options.task_retries:
            self.pending.appendleft(task)
            self.progress.note(f"retry {task.key} ({len(earlier)} of "
                               f"{self.options.task_retries}): {reason}")
            return
        self._record(replace(self._failure(
            task, slot, "crashed", f"its worker was lost {len(earlier)} times while running it; "
                                   f"the last time: {reason}"), retries=earlier[:-1]))

    def _retire(self, slot: _Slot, why: str) -> None:
        slot.state = "dead"
        self._drop_call(slot)
        with contextlib.suppress(Exception):
            self.ray.kill(slot.actor, no_restart=True)
        if not any(s.state != "dead" for s in self.slots) and (
                self.pending or any(s.task for s in self.slots)):
            self.error = f"{self.suite.path}: every worker is gone; the last one: {why}"

    def _ask_restarting(self) -> None:
        now = time.monotonic()
        for slot in self.slots:
            if slot.state == "restarting" and slot.ref is None and now >= slot.poll_at:
                self._call(slot, "start")

    def _stop_hung(self) -> None:
        now = time.monotonic()
        for slot in self.slots:
            if slot.state != "busy" or slot.task is None:
                continue
            limit = task_limit(self.suite, slot.task, self.options)
            if now - slot.since <= limit:
                continue
            task, slot.task = slot.task, None
            self._drop_call(slot)
            self._record(self._failure(
                task, slot, "hung", f"no result after {limit:.0f} s (its limit): stopped with "
                                    f"worker {slot.number}, which Ray replaces"))
            self.ray.kill(slot.actor, no_restart=False)
            slot.state, slot.poll_at = "restarting", now + POLL_SECONDS

    def _check_up(self) -> None:
        if any(s.up for s in self.slots):
            self._up_at = time.monotonic()
            return
        waited = time.monotonic() - self._up_at
        if self.pending and waited > self.options.start_timeout:
            have = self.ray.available_resources()
            self.error = (
                f"{self.suite.path}: no desktop worker came up for {waited:.0f} s: each asks "
                f"for {self.options.describe()}, and the cluster has "
                f"CPU={have.get('CPU', 0):g} free; add nodes, lower the suite's ray: num_cpus / "
                "memory, or raise ray: start_timeout")

    # -- records ---------------------------------------------------------------------------
    def _failure(self, task: TaskSpec, slot: _Slot, outcome: str, reason: str) -> TaskRecord:
        return TaskRecord(
            task=task.key, outcome="failed", agent_outcome=outcome, reason=reason,
            parameters=dict(task.parameters), instruction=task.shown_instruction,
            check=task.describe_checks(), seconds=round(time.monotonic() - slot.since, 3),
            worker=slot.number, finished_at=now_iso(), node=slot.node,
            retries=list(self.retries.get(task.key, [])))

    def _record(self, record: TaskRecord) -> None:
        if record.task in self.reported:  # never twice in a run
            log.warning("dropping a second result for %s", record.task)
            return
        self.reported.add(record.task)
        self.results.append(record)
        self.progress.finished(record)

    def stop_all(self, graceful: bool) -> None:
        """Close idle workers (teardown runs) when ``graceful``; kill every worker anyway."""
        slots, self.slots = self.slots, []
        closing = [s.actor.close.remote() for s in slots if graceful and s.state == "idle"]
        if closing:
            with contextlib.suppress(Exception):
                self.ray.wait(closing, num_returns=len(closing), timeout=60)
        for slot in slots:
            with contextlib.suppress(Exception):
                self.ray.kill(slot.actor, no_restart=True)
        self._calls.clear()
