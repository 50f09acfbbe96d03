"""`python -m gui_agent.batch.worker`: one batch worker, its own display, apps and Agent.

The runner writes task keys to the worker's stdin, one JSON line each
(``{"task": KEY}``; ``{"quit": true}`` to stop), and reads one JSON line per message from
the worker's *original* stdout: ``ready``, ``result`` (a TaskRecord), ``suite_error`` (the
suite cannot run: a setup command failed, an app never became ready). Anything libraries
print goes to stderr (the worker's log file), never into that channel.

The worker always stops what it started (apps, then its Xvfb): on a normal end, on SIGTERM
(what the runner sends on Ctrl+C), and when the runner dies (Linux: parent-death signal).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import logging
import os
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from ..control.app_env import app_environment
from ..trajectory import slugify
from .checks import CheckContext, NotReady, run_checks, wait_ready
from .desktop_session import DesktopSession, SessionError
from .results import TaskRecord, now_iso
from .suite import (
    Readiness,
    Step,
    Suite,
    SuiteError,
    TaskSpec,
    load_suite,
    show_command,
    substitute,
)

log = logging.getLogger(__name__)

PACKAGE_ROOT = Path(__file__).resolve().parents[2]
_PR_SET_PDEATHSIG = 1
_NO_READY_CHECK = Readiness(timeout=0.5)  # a started app with no readiness check must live 0.5 s


def task_folder_name(suite: Suite, task: TaskSpec) -> str:
    """A folder name for a task's files, unique within the suite."""
    return f"{suite.tasks.index(task) + 1:03d}-{slugify(task.key)}"


def _last_lines(path: Path, count: int = 3) -> str:
    """The last few non-empty lines a program wrote (the cause is often above the last one)."""
    try:
        lines = [line.strip() for line in
                 path.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return " / ".join(line[:200] for line in lines[-count:])


class Apps:
    """The processes setup steps started, stopped in reverse order; one-shot commands run here too."""

    def __init__(self, suite: Suite, env: Mapping[str, str], text_visible: Any,
                 tree_window: Callable[[str], bool] | None = None) -> None:
        self.suite = suite
        self.env = dict(env)
        self.text_visible = text_visible
        self.tree_window = tree_window   # waits until the accessibility tree shows a window
        self._running: list[tuple[Step, subprocess.Popen]] = []
        self._logs = 0

    def _env(self, step: Step, values: Mapping[str, str]) -> dict[str, str]:
        env = dict(self.env)
        env.update({k: substitute(v, values) for k, v in step.env})
        return env

    def _fail(self, step: Step, problem: str) -> SuiteError:
        return SuiteError(self.suite.path, step.line, problem)

    def run_steps(self, steps: Sequence[Step], values: Mapping[str, str], log_dir: Path) -> None:
        """Run setup steps in order; raises SuiteError (file, line, problem) when one fails."""
        for step in steps:
            argv = [substitute(a, values) for a in step.argv]
            self._logs += 1
            out = log_dir / f"{step.kind}-{self._logs}.log"
            try:
                if step.kind == "run":
                    self._run(step, argv, values, out)
                else:
                    self._start(step, argv, values, out)
            except FileNotFoundError:
                raise self._fail(step, f"program {argv[0]!r} not found") from None
            except PermissionError:
                raise self._fail(step, f"program {argv[0]!r} cannot be run (permission denied)") from None

    def _run(self, step: Step, argv: list[str], values: Mapping[str, str], out: Path) -> None:
        with out.open("w", encoding="utf-8") as f:
            try:
                proc = subprocess.run(argv, cwd=self.suite.folder, env=self._env(step, values),
                                      stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                      timeout=step.timeout, check=False)
            except subprocess.TimeoutExpired:
                raise self._fail(step, f"setup command `{show_command(argv)}` did not finish within "
                                       f"{step.timeout:g} s") from None
        if proc.returncode != 0:
            said = _last_lines(out)
            raise self._fail(step, f"setup command `{show_command(argv)}` exited with status "
                                   f"{proc.returncode}" + (f": {said}" if said else ""))

    def _start(self, step: Step, argv: list[str], values: Mapping[str, str], out: Path) -> None:
        for attempt in (1, 2):
            with out.open("w", encoding="utf-8") as f:
                proc = subprocess.Popen(argv, cwd=self.suite.folder, env=self._env(step, values),
                                        stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            self._running.append((step, proc))
            try:
                took = wait_ready(step.ready or _NO_READY_CHECK, exited=proc.poll,
                                  text_visible=self.text_visible, display=self.env.get("DISPLAY"),
                                  values=values)
                break
            except NotReady as exc:
                said = _last_lines(out)
                crashed = proc.returncode is not None and proc.returncode < 0
                if crashed and attempt == 1:
                    # Killed by a signal while starting (a toolkit aborting on a busy machine):
                    # a crash at start-up is the app's, not the task's; it gets one more start.
                    log.warning("%s crashed while starting (status %d; %s); starting it again",
                                argv[0], proc.returncode, said or "no output")
                    self._running.pop()
                    time.sleep(0.5)
                    continue
                raise self._fail(step, f"the app `{show_command(argv)}` did not become ready: {exc}"
                                       + (f" (its last output: {said})" if said else "")) from None
        ready = step.ready.window if step.ready is not None else None
        if ready and self.tree_window is not None:
            self.tree_window(substitute(ready, values))
        log.info("started %s (pid %d), ready after %.1f s", argv[0], proc.pid, took)

    def stop(self, keep: int = 0) -> None:
        """Stop the processes started after the first ``keep`` ones (all by default)."""
        while len(self._running) > keep:
            step, proc = self._running.pop()
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    log.warning("pid %d did not stop on SIGTERM; killing it", proc.pid)
                    proc.kill()
                    proc.wait(timeout=5)

    @property
    def count(self) -> int:
        return len(self._running)

    def teardown(self, steps: Sequence[Step], values: Mapping[str, str], log_dir: Path) -> None:
        """Teardown commands (a failure is logged, not fatal), then stop the apps."""
        for step in steps:
            try:
                self.run_steps([step], values, log_dir)
            except SuiteError as exc:
                log.warning("teardown: %s", exc)
        self.stop()


class Worker:
    """Runs tasks of one suite on the current display, one at a time."""

    def __init__(self, suite: Suite, number: int, out: Path, accessibility: bool = True) -> None:
        from ..config import Settings
        from ..engine import Engine

        self.suite, self.number, self.out = suite, number, out
        self.accessibility = accessibility    # False (--no-a11y): the agent sees pixels alone
        # The suite's desktop (a window manager, the accessibility bus) before any app starts.
        self.session = DesktopSession(suite.desktop, out / "logs" / f"desktop-{number}")
        try:
            self.session.start()
        except (SessionError, OSError) as exc:
            raise SuiteError(suite.path, 1, f"the suite's desktop could not start: {exc}") from None
        # One engine reads the screen for checks; its parser (OCR models loaded once) is shared
        # with every task's engine.
        self._probe = Engine.from_settings(Settings(runs_dir=out / "runs", accessibility=accessibility),
                                           use_memory=False)
        self.parser = self._probe.parser
        env = app_environment()   # less what our libraries changed (opencv's Qt plugins)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGE_ROOT), env.get("PYTHONPATH"))
                                            if p)
        tree = self.session.wait_for_tree_window if suite.desktop.accessibility else None
        self.apps = Apps(suite, env, self.text_visible, tree)
        self.base_values: dict[str, str] = {}
        self._suite_ready = False

    def text_visible(self, text: str) -> bool:
        return self._probe.text_visible(text)

    def _values(self, workdir: Path, task: TaskSpec | None) -> dict[str, str]:
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "files").mkdir(exist_ok=True)
        values = {"python": sys.executable, "display": os.environ.get("DISPLAY", ""),
                  "worker": str(self.number), "workdir": str(workdir),
                  "state_file": str(workdir / "state.json"), "save_dir": str(workdir / "files"),
                  "suite_dir": str(self.suite.folder), "task_id": task.key if task else ""}
        if task is not None:
            values.update(task.parameters)
        return values

    def setup_worker(self) -> None:
        """With ``isolation: worker`` the suite's apps start once, here."""
        if self.suite.isolation != "worker":
            return
        workdir = self.out / "work" / f"worker-{self.number}"
        _fresh(workdir)
        self.base_values = self._values(workdir, None)
        self.apps.run_steps(self.suite.setup, self.base_values, workdir)
        self._suite_ready = True

    def run_task(self, task: TaskSpec) -> TaskRecord:
        started = time.monotonic()
        folder = task_folder_name(self.suite, task)
        per_task = self.suite.isolation == "task"
        if per_task:
            workdir = self.out / "work" / folder
            _fresh(workdir)
        else:
            workdir = Path(self.base_values["workdir"])
        values = self._values(workdir, task)
        kept = self.apps.count
        try:
            if per_task:
                self.apps.run_steps(self.suite.setup, values, workdir)
            self.apps.run_steps(task.setup, values, workdir)
            record = self._agent_and_checks(task, values, folder)
        finally:
            if per_task:
                self.apps.teardown(self.suite.teardown, values, workdir)
            else:
                self.apps.stop(keep=kept)
        seconds = round(time.monotonic() - started, 3)
        return TaskRecord(**{**record, "seconds": seconds, "worker": self.number,
                             "finished_at": now_iso()})

    def _agent_and_checks(self, task: TaskSpec, values: dict[str, str], folder: str
                          ) -> dict[str, Any]:
        from ..config import Settings
        from ..engine import Engine

        instruction = substitute(task.instruction, values)
        base = {"task": task.key, "parameters": dict(task.parameters), "instruction": instruction,
                "check": task.describe_checks()}
        try:
            settings = Settings(safety="refuse", allow=task.allow, max_steps=int(task.max_steps),
                                max_seconds=float(task.max_seconds),
                                runs_dir=self.out / "runs" / folder,
                                accessibility=self.accessibility)
            self.parser.reset()
            result = Engine.from_settings(settings, parser=self.parser, use_memory=False).run(instruction)
        except Exception as exc:  # a crash of one task must not end the batch
            log.error("task %s crashed:\n%s", task.key, traceback.format_exc())
            return {**base, "outcome": "failed", "agent_outcome": "crashed",
                    "reason": f"the task crashed: {type(exc).__name__}: {exc}"}
        base.update(agent_outcome=result.outcome, steps=len(result.steps),
                    agent_seconds=result.seconds,
                    run_dir=str(result.run_dir) if result.run_dir else None)
        if result.outcome != task.expect:
            why = f": {result.reason}" if result.reason else ""
            return {**base, "outcome": "failed",
                    "reason": f"agent outcome {result.outcome!r}, expected {task.expect!r}{why}"}
        ctx = CheckContext(values, self.suite.folder, self.apps.env, self.text_visible)
        try:
            ok, detail = run_checks(task.checks, ctx)
        except Exception as exc:  # a broken check fails its task, not the batch
            log.error("checks of %s crashed:\n%s", task.key, traceback.format_exc())
            ok, detail = False, f"the check crashed: {type(exc).__name__}: {exc}"
        return {**base, "outcome": "passed" if ok else "failed",
                "reason": detail if not ok else result.reason}

    def close(self) -> None:
        if self._suite_ready:
            self.apps.teardown(self.suite.teardown, self.base_values,
                               Path(self.base_values["workdir"]))
        self.apps.stop()
        self.session.stop()


def _fresh(path: Path) -> None:
    import shutil

    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)


def _die_with_parent(parent: int) -> None:
    """Linux: get SIGTERM when the runner dies, so this worker cleans up instead of lingering."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if parent and os.getppid() != parent:
        raise SystemExit(0)  # the runner is already gone


def _on_sigterm(signum: int, frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not interrupt the clean-up
    raise SystemExit(128 + signum)


def _send(channel: IO[str], message: dict[str, Any]) -> None:
    channel.write(json.dumps(message, ensure_ascii=False) + "\n")
    channel.flush()


def serve(channel: IO[str], suite: Suite, number: int, out: Path, headless: bool,
          accessibility: bool = True) -> int:
    from ..display import ensure_display

    with ensure_display(True if headless else None) as display:
        try:
            worker = Worker(suite, number, out, accessibility)
        except SuiteError as exc:
            _send(channel, {"type": "suite_error", "message": str(exc)})
            return 2
        try:
            try:
                worker.setup_worker()
            except SuiteError as exc:
                _send(channel, {"type": "suite_error", "message": str(exc)})
                return 2
            _send(channel, {"type": "ready", "display": display, "pid": os.getpid()})
            for line in sys.stdin:
                message = json.loads(line)
                if message.get("quit"):
                    break
                task = suite.task(message["task"])
                try:
                    record = worker.run_task(task)
                except SuiteError as exc:
                    _send(channel, {"type": "suite_error", "message": str(exc),
                                    "task": task.key})
                    return 2
                _send(channel, {"type": "result", "record": record.to_json()})
        finally:
            worker.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gui_agent.batch.worker")
    parser.add_argument("--suite", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--worker", type=int, default=1)
    parser.add_argument("--headless", action="store_true")
    parser.add_argument("--parent", type=int, default=0, help="the runner's pid")
    parser.add_argument("--no-a11y", action="store_true", help="the agent sees pixels alone")
    args = parser.parse_args(argv)
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints go to the log
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the runner decides; it sends SIGTERM
    signal.signal(signal.SIGTERM, _on_sigterm)
    _die_with_parent(args.parent)
    logging.basicConfig(level=logging.INFO,
                        format=f"%(asctime)s w{args.worker} %(levelname)s %(name)s: %(message)s")
    try:
        suite = load_suite(args.suite)
        return serve(channel, suite, args.worker, args.out.resolve(), args.headless,
                     accessibility=not args.no_a11y)
    except SuiteError as exc:
        _send(channel, {"type": "suite_error", "message": str(exc)})
        return 2
    except BrokenPipeError:
        log.warning("the runner went away; stopping")
        return 1
    except Exception as exc:  # anything else: say it on the channel, then in the log
        log.error("worker failed:\n%s", traceback.format_exc())
        with contextlib.suppress(OSError):
            _send(channel, {"type": "fatal", "message": f"{type(exc).__name__}: {exc}"})
        return 3


if __name__ == "__main__":
    sys.exit(main())
