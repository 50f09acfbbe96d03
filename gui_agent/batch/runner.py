"""The batch runner: hands a suite's tasks to worker processes and records what they report.

Each worker (``python -m gui_agent.batch.worker``) has its own display and its own copies of
the applications, so tasks run in parallel without sharing a mouse. The runner appends each
result to ``OUT/results.jsonl`` as it arrives, shows progress, and writes ``OUT/index.html``
at the end. Whatever happens (a failed setup, Ctrl+C, a crashed worker) it stops every
worker, and each worker stops its apps and its Xvfb.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import logging
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from ..errors import ConfigError
from ..terminal_text import say
from .options import BatchOptions
from .progress import BatchProgress
from .results import ResultsLog, TaskRecord, latest_by_task, now_iso, read_records
from .suite import Suite, SuiteError, TaskSpec, load_suite

log = logging.getLogger(__name__)

EXIT_OK, EXIT_FAILED, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
PACKAGE_ROOT = Path(__file__).resolve().parents[2]


class BatchAborted(ConfigError):
    """The suite could not run (its message names the suite file, and the line when known)."""


class WorkerHandle:
    """One worker process; a thread turns its messages into events on the runner's queue."""

    def __init__(self, number: int, opts: BatchOptions, headless: bool,
                 events: queue.Queue[tuple[WorkerHandle, dict[str, Any]]]) -> None:
        self.number = number
        self.task: TaskSpec | None = None
        logs = opts.out / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        self.log_path = logs / f"worker-{number}.log"
        argv = [sys.executable, "-m", "gui_agent.batch.worker", "--suite", str(opts.suite),
                "--out", str(opts.out), "--worker", str(number), "--parent", str(os.getpid())]
        if headless:
            argv.append("--headless")
        if not opts.accessibility:
            argv.append("--no-a11y")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGE_ROOT), env.get("PYTHONPATH"))
                                            if p)
        self._log_file: IO[str] = self.log_path.open("a", encoding="utf-8")
        # Its own process group: Ctrl+C reaches only the runner, which stops the workers in
        # order (Xvfb would otherwise die of the SIGINT under a task that is still running).
        # If the runner is killed, each worker gets SIGTERM (parent-death signal) and cleans up.
        group = {"process_group": 0} if os.name == "posix" else {}
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._log_file, text=True, encoding="utf-8",
                                     bufsize=1, env=env, **group)
        self._events = events
        self._reader = threading.Thread(target=self._read, name=f"batch-worker-{number}",
                                        daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                log.warning("worker %d said something unreadable: %r", self.number, line[:200])
                continue
            self._events.put((self, message))
        self._events.put((self, {"type": "exit", "code": self.proc.wait()}))

    def send(self, message: dict[str, Any]) -> bool:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps(message) + "\n")
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False

    def assign(self, task: TaskSpec) -> bool:
        self.task = task
        return self.send({"task": task.key})

    def stop(self, graceful: bool, timeout: float = 20.0) -> None:
        """Ask it to quit (or SIGTERM it); kill it if it does not exit in time."""
        if self.proc.poll() is None:
            if not (graceful and self.send({"quit": True})):
                self.proc.terminate()
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                log.warning("worker %d did not stop; killing it", self.number)
                self.proc.kill()
                self.proc.wait(timeout=5)
        self._reap_group()
        with contextlib.suppress(OSError):
            if self.proc.stdin:
                self.proc.stdin.close()
        self._log_file.close()

    def _reap_group(self) -> None:
        """Stop what a dead worker left behind (its Xvfb, its apps): they share its group."""
        if os.name != "posix":
            return
        for sig, wait in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 0.0)):
            try:
                os.killpg(self.proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                return  # nothing left in the group
            log.warning("worker %d left processes behind; sent them %s", self.number, sig.name)
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                try:
                    os.killpg(self.proc.pid, 0)
                except (ProcessLookupError, PermissionError):
                    return
                time.sleep(0.1)


def select_tasks(suite: Suite, only: tuple[str, ...]) -> list[TaskSpec]:
    if not only:
        return list(suite.tasks)
    chosen = [t for t in suite.tasks if any(fnmatch.fnmatchcase(t.key, p) for p in only)]
    if not chosen:
        raise SuiteError(suite.path, 1, f"no task matches --only {', '.join(only)}")
    return chosen


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM to the runner ends it like Ctrl+C: workers are stopped, results are kept."""
    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class BatchRun:
    def __init__(self, opts: BatchOptions, suite: Suite, tasks: list[TaskSpec],
                 results: ResultsLog, progress: BatchProgress, headless: bool) -> None:
        self.opts, self.suite, self.results, self.progress = opts, suite, results, progress
        self.headless = headless
        skip = results.passed_tasks()
        self.pending = [t for t in tasks if t.key not in skip]
        self.events: queue.Queue[tuple[WorkerHandle, dict[str, Any]]] = queue.Queue()
        self.workers: list[WorkerHandle] = []
        self.error: str | None = None
        self.respawns = 0

    def _spawn(self, number: int) -> None:
        self.workers.append(WorkerHandle(number, self.opts, self.headless, self.events))

    def _next(self, worker: WorkerHandle) -> None:
        if self.pending:
            task = self.pending.pop(0)
            self.progress.started(task.key, worker.number)
            if not worker.assign(task):
                self.pending.insert(0, task)  # its exit event will follow and be handled
        else:
            worker.task = None
            worker.send({"quit": True})

    def _record(self, record: TaskRecord) -> None:
        self.results.append(record)
        self.progress.finished(record)

    def _worker_exited(self, worker: WorkerHandle, code: int) -> None:
        self.workers.remove(worker)
        worker.stop(graceful=False, timeout=5)
        if worker.task is None:
            return
        task = worker.task
        self._record(TaskRecord(
            task=task.key, outcome="failed", agent_outcome="crashed",
            reason=f"worker {worker.number} died (exit status {code}) while running it; "
                   f"see {worker.log_path}",
            parameters=dict(task.parameters), instruction=task.shown_instruction,
            check=task.describe_checks(), worker=worker.number, finished_at=now_iso()))
        if self.pending and self.respawns < 2 * max(1, self.opts.workers):
            self.respawns += 1
            self._spawn(worker.number)

    def run(self) -> None:
        for number in range(1, min(self.opts.workers, len(self.pending)) + 1):
            self._spawn(number)
        while self.workers:
            try:
                worker, message = self.events.get(timeout=0.5)
            except queue.Empty:
                continue
            kind = message.get("type")
            if kind == "ready":
                self._next(worker)
            elif kind == "result":
                worker.task = None
                self._record(TaskRecord.from_json(message["record"]))
                self._next(worker)
            elif kind in ("suite_error", "fatal"):
                self.error = message.get("message", "the worker failed")
                if kind == "fatal":
                    self.error = f"{self.suite.path}: worker {worker.number} could not run: " \
                                 f"{self.error} (see {worker.log_path})"
                worker.task = None
                return
            elif kind == "exit":
                self._worker_exited(worker, message.get("code", -1))

    def stop_all(self, graceful: bool) -> None:
        workers, self.workers = self.workers, []
        for w in workers:  # signal all first, then wait: they clean up in parallel
            if w.proc.poll() is None and not (graceful and w.send({"quit": True})):
                w.proc.terminate()
        for w in workers:
            w.stop(graceful=False)


def _ray_session(opts: BatchOptions, suite: Suite) -> contextlib.AbstractContextManager[Any]:
    """Connected to the Ray cluster for the run (``--ray``); nothing without it."""
    if not opts.ray:
        return nullcontext()
    from .ray_cluster import ray_session

    return ray_session(opts.ray, opts.workers, suite.ray)


def _prepare_out(out: Path, resume: bool) -> None:
    out.mkdir(parents=True, exist_ok=True)
    if not resume:
        for name in ("runs", "work", "logs"):
            shutil.rmtree(out / name, ignore_errors=True)


def write_batch_report(suite: Suite, out: Path, tasks: list[TaskSpec]) -> Path:
    """``OUT/index.html`` from the result log: the latest result of each task, failures first."""
    from ..report import ReportEntry, write_report
    from ..trajectory import RunResult, load_run

    latest = latest_by_task(read_records(out / "results.jsonl"))
    entries = []
    for task in tasks:
        record = latest.get(task.key)
        if record is None:
            continue
        result = None
        if record.run_dir and (Path(record.run_dir) / "run.json").exists():
            try:
                result = load_run(Path(record.run_dir))
            except (OSError, ValueError, KeyError, TypeError) as exc:
                log.warning("cannot read the run folder %s: %s", record.run_dir, exc)
        if result is None:
            result = RunResult(record.instruction, record.agent_outcome, record.reason,
                               seconds=record.agent_seconds)
        name = record.task + (f" — {task.name}" if task.name else "")
        detail = "" if record.passed else record.reason
        if record.left_out:  # --ray: files over the per-task cap stayed on the node
            result, note = _without_left_out(result, record)
            detail = f"{detail} · {note}" if detail else note
        entries.append(ReportEntry(name, result, record.passed, record.check, detail))
    return write_report(out, f"gui-agent batch: {suite.name}", entries)


def _without_left_out(result: Any, record: TaskRecord) -> tuple[Any, str]:
    """The run with no link to the screenshots that were not copied back, and a note naming
    them (the report shows the note; the images would be broken links)."""
    gone = set(record.left_out)
    prefix = os.path.relpath(record.run_dir, Path(record.run_dir).parents[2]) \
        if record.run_dir else ""

    def kept(rel: str | None) -> str | None:
        return None if rel and f"{prefix}/{rel}".replace(os.sep, "/") in gone else rel

    steps = tuple(replace(s, before=kept(s.before), after=kept(s.after)) for s in result.steps)
    shown = ", ".join(sorted(gone)[:10]) + (f" and {len(gone) - 10} more" if len(gone) > 10
                                             else "")
    where = f" from node {record.node}" if record.node else ""
    note = (f"{len(gone)} file(s) of the run folder were not copied back{where}: over the size "
            f"cap per task (the suite's ray: max_run_mb): {shown}")
    return replace(result, steps=steps), note


def run_batch(opts: BatchOptions) -> int:
    """Run a suite; returns 0 (all passed), 1 (some failed), 2 (could not run), 130 (Ctrl+C)."""
    from ..display import display_available

    suite = load_suite(opts.suite)
    tasks = select_tasks(suite, opts.only)
    out = opts.out.resolve()
    opts = replace(opts, suite=suite.path, out=out, workers=max(1, opts.workers))
    interrupted = False
    # With --ray, the cluster is reached before anything in OUT is touched.
    with _ray_session(opts, suite) as cluster:
        _prepare_out(out, opts.resume)
        # Several workers each need a display of their own; so does a machine without one.
        headless = opts.headless or opts.workers > 1 or not display_available()
        results = ResultsLog(out / "results.jsonl", resume=opts.resume)
        already = len(results.passed_tasks() & {t.key for t in tasks})
        with results, BatchProgress(len(tasks), already, quiet=opts.quiet, workers=opts.workers,
                                    title=suite.name) as progress:
            if opts.ray:
                from .ray_runner import RayBatchRun

                batch: BatchRun | RayBatchRun = RayBatchRun(opts, suite, tasks, results,
                                                            progress, cluster)
            else:
                batch = BatchRun(opts, suite, tasks, results, progress, headless)
            try:
                with _sigterm_as_interrupt():
                    batch.run()
            except KeyboardInterrupt:
                interrupted = True
                progress.note("interrupted: stopping the workers (finished results are kept)")
            finally:
                batch.stop_all(graceful=not interrupted and batch.error is None)
    latest = latest_by_task(read_records(out / "results.jsonl"))
    passed = sum(1 for t in tasks if t.key in latest and latest[t.key].passed)
    if latest or not batch.error:
        index = write_batch_report(suite, out, tasks)
        say(f"{suite.name}: {passed}/{len(tasks)} tasks passed; results: "
            f"{out / 'results.jsonl'}; report: {index}", flush=True)
    if batch.error:
        raise BatchAborted(batch.error)
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_OK if passed == len(tasks) else EXIT_FAILED
