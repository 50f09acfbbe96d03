"""The batch panel with a fake runner: a script that prints what `gui-agent batch --quiet`
prints and writes the result log and report it writes (the real run is tested in
tests/e2e/test_batch_e2e.py). Suite checking, progress, per-task rows, Cancel and Open report."""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from tests.support.requirements import require_module  # noqa: E402

require_module("PySide6")
require_module("pytestqt")

from PySide6.QtGui import QDesktopServices  # noqa: E402

from ui.batch_panel import BatchJob, BatchPanel, batch_argv  # noqa: E402

SUITE = """\
name: tiny
tasks:
  - id: one
    instruction: click "OK"
  - id: two
    instruction: click "Cancel"
  - id: three
    instruction: type "x" into "Name"
"""

FAKE_RUNNER = r'''
import json, signal, sys, time
from pathlib import Path

out, mode = Path(sys.argv[1]), sys.argv[2]
out.mkdir(parents=True, exist_ok=True)
log = out / "results.jsonl"
log.unlink(missing_ok=True)

def report():
    (out / "index.html").write_text("<html>report</html>")

def stop(signum, frame):
    report()
    print("interrupted", flush=True)
    sys.exit(130)

signal.signal(signal.SIGTERM, stop)
if mode == "error":
    print("gui-agent: error: tiny.yaml:4: the setup could not start", file=sys.stderr, flush=True)
    sys.exit(2)
print("tiny: 3 tasks, 0 already passed", flush=True)
verdicts = {"one": True, "two": mode != "fail", "three": True}
for n, (task, ok) in enumerate(verdicts.items(), 1):
    record = {"task": task, "outcome": "passed" if ok else "failed", "steps": n,
              "seconds": 0.5 * n, "reason": "" if ok else "could not find 'Cancel' on the screen",
              "run_dir": str(out / "runs" / task)}
    with log.open("a") as f:
        f.write(json.dumps(record) + "\n")
    tail = "" if ok else " — " + record["reason"]
    print(f"[{n}/3] {'PASS' if ok else 'FAIL'} {task} ({n} steps, {0.5 * n:.1f}s){tail}", flush=True)
    if n == 1 and mode in ("gate", "hang"):
        while not (out / "go").exists():
            time.sleep(0.02)
report()
passed = sum(verdicts.values())
print(f"tiny: {passed}/3 tasks passed; results: {log}; report: {out / 'index.html'}", flush=True)
sys.exit(0 if passed == 3 else 1)
'''


@pytest.fixture
def suite(tmp_path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(SUITE)
    return path


@pytest.fixture
def panel(qtbot, tmp_path):
    runner = tmp_path / "fake_runner.py"
    runner.write_text(FAKE_RUNNER)
    jobs = []

    def make(mode: str = "ok") -> BatchPanel:
        def command(job: BatchJob) -> list[str]:
            jobs.append(job)
            return [sys.executable, str(runner), str(job.out), mode]

        p = BatchPanel(command=command)
        p.jobs = jobs
        qtbot.addWidget(p)
        p.show()
        return p

    made = []
    yield lambda mode="ok": made.append(make(mode)) or made[-1]
    for p in made:
        if p.process is not None:
            p.process.kill()
            p.process.waitForFinished(3000)


def run_to_end(qtbot, p: BatchPanel) -> int:
    with qtbot.waitSignal(p.batch_finished, timeout=15000) as signal:
        assert p.start()
    return signal.args[0]


def test_opening_a_suite_lists_its_tasks(panel, suite):
    p = panel()
    assert not p.run_button.isEnabled()
    assert p.open_suite(suite)
    assert p.table.statuses() == {"one": "waiting", "two": "waiting", "three": "waiting"}
    assert p.table.item(2, 4).text() == 'type "x" into "Name"'
    assert p.progress.maximum() == 3 and p.progress.value() == 0
    assert p.run_button.isEnabled() and not p.cancel_button.isEnabled() and not p.report_button.isEnabled()
    assert p.out_edit.text().endswith(os.path.join("batch", "tiny")) and not p.error.isVisible()


def test_an_invalid_suite_shows_its_error_and_cannot_run(panel, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: broken\ntasks:\n  - id: a\n    instruction: click OK\n    colour: red\n")
    p = panel()
    assert not p.open_suite(bad)
    assert p.error.isVisible() and "bad.yaml:5" in p.error.text() and "colour" in p.error.text()
    assert p.table.rowCount() == 0 and not p.run_button.isEnabled() and not p.start()


def test_a_run_fills_rows_as_tasks_end_and_opens_the_report(panel, suite, tmp_path, qtbot, monkeypatch):
    p = panel("fail")
    p.open_suite(suite)
    p.out_edit.setText(str(tmp_path / "out"))
    p.workers.setValue(1)
    assert run_to_end(qtbot, p) == 1
    assert p.jobs[-1] == BatchJob(suite.resolve(), tmp_path / "out", 1, True)
    assert p.table.statuses() == {"one": "passed", "two": "failed", "three": "passed"}
    assert p.table.item(1, 2).text() == "2" and p.table.item(1, 3).text() == "1.0 s"
    assert "could not find 'Cancel'" in p.table.item(1, 4).text()
    assert p.progress.value() == 3 and p.status.text() == "Some tasks failed. 2 of 3 passed."
    assert p.run_button.isEnabled() and not p.cancel_button.isEnabled() and p.report_button.isEnabled()
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()) or True)
    assert p.open_report() and opened == [str(tmp_path / "out" / "index.html")]


def test_progress_and_rows_update_while_it_runs(panel, suite, tmp_path, qtbot):
    p = panel("gate")
    p.open_suite(suite)
    p.out_edit.setText(str(tmp_path / "out"))
    assert p.start()
    assert p.running and not p.run_button.isEnabled() and p.cancel_button.isEnabled()
    assert not p.open_button.isEnabled()
    qtbot.waitUntil(lambda: p.progress.value() == 1, timeout=10000)
    assert p.table.statuses() == {"one": "passed", "two": "running…", "three": "waiting"}
    with qtbot.waitSignal(p.batch_finished, timeout=10000):
        (tmp_path / "out" / "go").touch()
    assert p.exit_code == 0 and p.status.text().startswith("All tasks passed.")
    assert set(p.table.statuses().values()) == {"passed"}


def test_cancel_stops_the_runner_and_keeps_finished_results(panel, suite, tmp_path, qtbot):
    p = panel("hang")
    p.open_suite(suite)
    p.out_edit.setText(str(tmp_path / "out"))
    p.start()
    qtbot.waitUntil(lambda: p.progress.value() == 1, timeout=10000)
    with qtbot.waitSignal(p.batch_finished, timeout=10000) as signal:
        p.cancel()
        assert "Cancelling" in p.status.text() and not p.cancel_button.isEnabled()
    assert signal.args == [130] and not p.running
    assert p.table.statuses() == {"one": "passed", "two": "not run", "three": "waiting"}
    assert p.status.text().startswith("Cancelled") and p.report_button.isEnabled()


def test_a_runner_error_is_shown(panel, suite, tmp_path, qtbot):
    p = panel("error")
    p.open_suite(suite)
    p.out_edit.setText(str(tmp_path / "out"))
    assert run_to_end(qtbot, p) == 2
    assert p.error.isVisible() and "the setup could not start" in p.error.text()
    assert p.table.statuses() == {"one": "waiting", "two": "waiting", "three": "waiting"}
    assert not p.report_button.isEnabled() and p.run_button.isEnabled()


def test_a_runner_that_cannot_start_is_reported(qtbot, suite, tmp_path):
    p = BatchPanel(command=lambda job: [str(tmp_path / "no-such-program")])
    qtbot.addWidget(p)
    p.open_suite(suite)
    with qtbot.waitSignal(p.batch_finished, timeout=5000) as signal:
        p.start()
    assert signal.args == [-1] and "could not start" in p.error.text() and not p.running


def test_the_default_command_is_the_cli_batch_command(suite, tmp_path):
    from gui_agent.cli import build_parser

    argv = batch_argv(BatchJob(suite, tmp_path / "o", 2, True))
    assert argv[:4] == [sys.executable, "-m", "gui_agent.cli", "batch"]
    args = build_parser().parse_args(argv[3:])
    assert (args.suite, args.out, args.workers, args.headless, args.quiet) == (suite, tmp_path / "o", 2, True, True)
    assert "--headless" not in batch_argv(BatchJob(suite, tmp_path / "o", 1, False))


def test_the_progress_lines_of_the_real_runner_are_the_ones_parsed():
    from gui_agent.batch.progress import describe_record
    from gui_agent.batch.results import TaskRecord
    from ui.batch_panel import PROGRESS_LINE

    line = f"[2/5] {describe_record(TaskRecord('add[a b]', 'failed', reason='x', steps=3, seconds=1.0))}"
    match = PROGRESS_LINE.match(line)
    assert match and match.groups() == ("2", "5", "FAIL")
    assert PROGRESS_LINE.match("tiny: 3 tasks, 0 already passed") is None
