"""The result log survives torn writes; checks, setup failures, progress and the report."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from PIL import Image

from gui_agent.batch.checks import CheckContext, NotReady, run_checks, wait_ready
from gui_agent.batch.progress import BatchProgress
from gui_agent.batch.results import ResultsLog, TaskRecord, read_records
from gui_agent.batch.runner import write_batch_report
from gui_agent.batch.suite import Check, Readiness, SuiteError, load_suite
from gui_agent.batch.worker import Apps
from gui_agent.geometry import Box, Point
from gui_agent.trajectory import RunFolder, RunResult, StepLog
from tests.support.displays import unused_display


def record(task: str, outcome: str = "passed", **extra) -> TaskRecord:
    return TaskRecord(task=task, outcome=outcome, **extra)


def test_records_are_appended_whole_and_read_back(tmp_path):
    path = tmp_path / "results.jsonl"
    with ResultsLog(path) as log:
        log.append(record("a", parameters={"x": "1"}, steps=3, seconds=1.5))
        log.append(record("b", "failed", reason="no"))
        # each line is on disk before the next: another reader sees it now
        assert [r.task for r in read_records(path)] == ["a", "b"]
    back = read_records(path)
    assert back[0].parameters == {"x": "1"} and back[0].steps == 3 and back[1].reason == "no"


def test_resume_tolerates_a_torn_last_line_and_keeps_appends_whole(tmp_path, caplog):
    path = tmp_path / "results.jsonl"
    with ResultsLog(path) as log:
        log.append(record("a"))
        log.append(record("b", "failed"))
    with path.open("a", encoding="utf-8") as f:
        f.write('{"task": "c", "outco')  # the runner was killed mid-write
    with ResultsLog(path, resume=True) as log:
        assert log.passed_tasks() == {"a"}
        log.append(record("b"))
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["task"] for line in lines] == ["a", "b", "b"]
    with ResultsLog(path, resume=True) as log:
        assert log.passed_tasks() == {"a", "b"}  # the latest record of a task wins
    with ResultsLog(path, resume=False) as log:
        assert log.passed_tasks() == set()
    assert path.read_text(encoding="utf-8") == ""


def test_a_later_failure_replaces_an_earlier_pass(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(json.dumps(r.to_json()) for r in (record("a"), record("a", "failed")))
                    + "\nnot json\n", encoding="utf-8")
    with ResultsLog(path, resume=True) as log:
        assert log.passed_tasks() == set()


def ctx(tmp_path: Path, visible: set[str] = frozenset()) -> CheckContext:
    return CheckContext({"save_dir": str(tmp_path), "word": "hello", "python": sys.executable},
                        tmp_path, {"PATH": "/usr/bin:/bin"}, lambda text: text in visible)


def test_checks_command_text_and_file(tmp_path):
    (tmp_path / "out.txt").write_text("hello world", encoding="utf-8")
    ok = [Check("file", 1, path="{save_dir}/out.txt", contains="{word}", timeout=0.1),
          Check("file", 2, path="out.txt", content="hello world", timeout=0.1),
          Check("command", 3, argv=("{python}", "-c", "import sys; sys.exit(4)"), exit_code=4),
          Check("text", 4, text="Saved {word}", timeout=0.1)]
    assert run_checks(tuple(ok), ctx(tmp_path, {"Saved hello"})) == (True, "")
    cases = [
        (Check("file", 1, path="missing.txt", timeout=0.1), "does not exist"),
        (Check("file", 1, path="out.txt", content="hello", timeout=0.1), "expected 'hello'"),
        (Check("command", 1, argv=("{python}", "-c", "print('nope'); raise SystemExit(1)")),
         "exited with 1, expected 0: nope"),
        (Check("command", 1, argv=("no-such-program-xyz",)), "not found"),
        (Check("text", 1, text="Saved", timeout=0.1), '"Saved" was not visible'),
    ]
    for check, why in cases:
        ok, detail = run_checks((check,), ctx(tmp_path))
        assert not ok and why in detail, detail


def test_wait_ready_reports_an_exit_and_a_timeout():
    with pytest.raises(NotReady, match="exited with status 3"):
        wait_ready(Readiness(window="X", timeout=5), exited=lambda: 3, text_visible=lambda t: True,
                   display=None, values={})
    start = time.monotonic()
    with pytest.raises(NotReady, match="no window titled 'Nowhere' appeared"):
        wait_ready(Readiness(window="Nowhere", timeout=0.3), exited=lambda: None,
                   text_visible=lambda t: True, display=unused_display(), values={})
    assert time.monotonic() - start < 5
    assert wait_ready(Readiness(text="Hi {w}", timeout=5), exited=lambda: None,
                      text_visible=lambda t: t == "Hi you", display=None, values={"w": "you"}) < 5


SETUP_SUITE = """\
setup:
  - run: "{python} -c 'print(\\"boom\\"); raise SystemExit(3)'"
  - start: "{python} -c 'import time; time.sleep(60)'"
    ready: {window: Never shown, timeout: 0.5}
tasks:
  - instruction: click "OK"
"""


def test_a_failing_setup_command_and_an_app_never_ready_name_their_line(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(textwrap.dedent(SETUP_SUITE), encoding="utf-8")
    suite = load_suite(path)
    values = {"python": sys.executable}
    apps = Apps(suite, {"PATH": "/usr/bin:/bin", "DISPLAY": unused_display()}, lambda text: False)
    with pytest.raises(SuiteError) as err:
        apps.run_steps(suite.setup[:1], values, tmp_path)
    assert str(err.value).startswith(f"{path}:2: setup command ")
    assert "exited with status 3: boom" in str(err.value)
    with pytest.raises(SuiteError) as err:
        apps.run_steps(suite.setup[1:], values, tmp_path)
    assert str(err.value).startswith(f"{path}:3: the app ")
    assert "did not become ready" in str(err.value)
    assert apps.count == 1
    (_, proc), = apps._running
    apps.stop()
    assert apps.count == 0 and proc.poll() is not None  # what setup started is stopped


def test_progress_counts_and_quiet_lines(capsys):
    with BatchProgress(3, already_passed=1, quiet=True, title="t") as p:
        p.finished(record("a", steps=2, seconds=1.0))
        p.finished(record("b", "failed", reason="why"))
        assert (p.passed, p.failed, p.remaining) == (2, 1, 0)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "t: 3 tasks, 1 already passed"
    assert out[1] == "[2/3] PASS a (2 steps, 1.0s)"
    assert out[2].startswith("[3/3] FAIL b") and out[2].endswith("— why")


@pytest.mark.parametrize("quiet", [True, False])
def test_progress_lines_carry_no_escape_sequences(capsys, quiet):
    """A task id from a suite and a reason from the screen or a model are data: a reason holding
    OSC 52 wrote the clipboard, one holding ESC c reset the terminal."""
    hostile = "\x1b]52;c;cm0gLXJm\x07\x1bc\x1b[2J\u202e"
    title = f"suite [red]x[/red] [/blue]{hostile}"  # not rich markup either
    with BatchProgress(1, quiet=quiet, title=title) as p:
        p.finished(record(f"task{hostile}", "failed", reason=f"could not find {hostile}OK"))
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "FAIL task" in text and "could not find OK" in text
    assert "suite [red]x[/red] [/blue]" in text
    for bad in ("\x1b", "\x07", "\u202e"):
        assert bad not in text


def test_the_report_puts_failures_first_with_each_step(tmp_path):
    suite_path = tmp_path / "s.yaml"
    suite_path.write_text("tasks:\n  - {id: ok, instruction: a}\n  - {id: bad, instruction: b}\n"
                          "  - {id: never, instruction: c}\n", encoding="utf-8")
    suite = load_suite(suite_path)
    out = tmp_path / "out"
    folder = RunFolder(out / "runs", "b")
    shot = folder.save_image("001-before", Image.new("RGB", (64, 48), "white"), Point(10, 10),
                             Box(5, 5, 10, 10))
    step = StepLog(1, "b", "click('\"B\"')", "failed", point=(10, 10), screen_point=(10, 10),
                   why="the only B", error="nothing changed", before=shot)
    folder.append_step(step)
    folder.finish(RunResult("b", "failed", "nothing changed", steps=(step,), run_dir=folder.path))
    with ResultsLog(out / "results.jsonl") as log:
        log.append(record("ok", instruction="a", check="agent outcome done"))
        log.append(record("bad", "failed", reason="check failed", instruction="b",
                          run_dir=str(folder.path), agent_outcome="failed"))
    index = write_batch_report(suite, out, list(suite.tasks))
    page = index.read_text(encoding="utf-8")
    assert "<b>1 / 2</b> tasks passed" in page
    assert page.index("bad") < page.index(">ok<")  # failures first
    assert "click(&#39;&#34;B&#34;&#39;)" in page and "the only B" in page
    assert "runs/" in page and "001-before.png" in page and "never" not in page


def test_check_cli_exit_codes(tmp_path):
    state = tmp_path / "s.json"
    state.write_text('{"a": {"b": [1, 2]}}', encoding="utf-8")
    cmd = [sys.executable, "-m", "gui_agent.playground.check", str(state)]
    assert subprocess.run(cmd + ["len(a.b) == 2", "a.b contains 2"]).returncode == 0
    assert subprocess.run(cmd + ["a.b[0] == 2"], capture_output=True).returncode == 1
    assert subprocess.run(cmd + ["what?"], capture_output=True).returncode == 2


CRASHING_APP = """\
setup:
  - start: "{python} {suite_dir}/flaky.py {workdir}/started-once"
    ready: {timeout: 0.5}
tasks:
  - instruction: click "OK"
"""
# Aborts (SIGABRT, as a toolkit does when it cannot start) the first time, then runs.
_FLAKY = ("import os, pathlib, signal, sys, time\n"
          "marker = pathlib.Path(sys.argv[1])\n"
          "if not marker.exists():\n"
          "    marker.write_text('1'); print('could not connect to display'); sys.stdout.flush()\n"
          "    print('Available platform plugins are: xcb'); sys.stdout.flush()\n"
          "    os.kill(os.getpid(), signal.SIGABRT)\n"
          "time.sleep(60)\n")


def test_an_app_that_crashes_while_starting_is_started_once_more(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(CRASHING_APP, encoding="utf-8")
    (tmp_path / "flaky.py").write_text(_FLAKY, encoding="utf-8")
    suite = load_suite(path)
    values = {"python": sys.executable, "suite_dir": str(tmp_path), "workdir": str(tmp_path)}
    apps = Apps(suite, {"PATH": "/usr/bin:/bin"}, lambda text: False)
    apps.run_steps(suite.setup, values, tmp_path)          # the second start stays up
    (_, proc), = apps._running
    assert proc.poll() is None
    apps.stop()


def test_an_app_that_crashes_twice_fails_with_the_lines_that_say_why(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(CRASHING_APP, encoding="utf-8")
    always = _FLAKY.replace("if not marker.exists():", "if True:")
    (tmp_path / "flaky.py").write_text(always, encoding="utf-8")
    suite = load_suite(path)
    values = {"python": sys.executable, "suite_dir": str(tmp_path), "workdir": str(tmp_path)}
    apps = Apps(suite, {"PATH": "/usr/bin:/bin"}, lambda text: False)
    with pytest.raises(SuiteError) as err:
        apps.run_steps(suite.setup, values, tmp_path)
    message = str(err.value)
    assert "exited with status -6" in message
    assert "could not connect to display / Available platform plugins are: xcb" in message
    assert apps.count == 1     # the second start, kept to be stopped like any other
    apps.stop()
