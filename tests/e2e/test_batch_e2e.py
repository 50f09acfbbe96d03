"""End to end: `gui-agent batch` on virtual displays, killed mid-suite and resumed.

The runner is a subprocess in its own process group; SIGKILL of that group loses no finished
result, its workers stop their apps and Xvfb, and `--resume` finishes the suite without
redoing what passed. A setup that fails or an app that never becomes ready ends the run
with exit status 2 and one line naming the file and line.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.support.batch_runs import env, processes_mentioning, records

pytestmark = [pytest.mark.e2e("xvfb", "input", "qt"), pytest.mark.timeout(300)]


QUICK_SUITE = """\
name: quick
setup:
  - start: "{python} -m gui_agent.playground --state-file {state_file} --save-dir {save_dir}"
    env: {QT_QPA_PLATFORM: xcb, QT_FONT_DPI: "96", QT_ACCESSIBILITY: "0"}
    ready: {window: gui-agent playground, text: Log in, timeout: 90}
tasks:
  - id: tab
    instruction: switch to the {tab} tab
    parameters: tabs.csv
    max_steps: 5
    check:
      command: "{python} -m gui_agent.playground.check {state_file} --wait 3 'current_tab == {tab}'"
  - id: vague
    instruction: make the window look nicer
    expect: error
"""


def batch(suite: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "gui_agent.cli", "batch", str(suite), "--headless", "--quiet",
            "--out", str(out), *extra]








def test_killed_mid_suite_then_resumed_without_redoing_passed_tasks(tmp_path):
    (tmp_path / "tabs.csv").write_text("tab\nContacts\nEditor\nItems\n", encoding="utf-8")
    suite = tmp_path / "quick.yaml"
    suite.write_text(QUICK_SUITE, encoding="utf-8")
    out = tmp_path / "out"
    log = (tmp_path / "first.log").open("w")
    runner = subprocess.Popen(batch(suite, out, "--workers", "2"), cwd=tmp_path, env=env(),
                              stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 200
        while not records(out) and runner.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert runner.poll() is None, (tmp_path / "first.log").read_text()
        assert records(out), "no task finished in time"
    finally:
        os.killpg(runner.pid, signal.SIGKILL)
        runner.wait()
        log.close()
    first = records(out)
    assert 1 <= len(first) < 4, first
    # the workers notice the runner's death and stop their apps and displays
    deadline = time.monotonic() + 60
    while processes_mentioning(str(out)) and time.monotonic() < deadline:
        time.sleep(0.3)
    assert not processes_mentioning(str(out))

    with (out / "results.jsonl").open("a", encoding="utf-8") as f:
        f.write('{"task": "tab[Items]", "outcome": "pas')  # as if killed mid-write
    second = subprocess.run(batch(suite, out, "--resume"), cwd=tmp_path, env=env(),
                            capture_output=True, text=True, timeout=240)
    assert second.returncode == 0, second.stdout + second.stderr
    already = sum(r["outcome"] == "passed" for r in first)
    assert f"quick: 4 tasks, {already} already passed" in second.stdout
    final = records(out)
    passed = [r["task"] for r in final if r["outcome"] == "passed"]
    assert sorted(passed) == sorted(["tab[Contacts]", "tab[Editor]", "tab[Items]", "vague"])
    assert len(passed) == len(set(passed)), "a task that had passed ran again"
    assert final[: len(first)] == first  # nothing finished was lost or rewritten
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "<b>4 / 4</b> tasks passed" in page and "shots/" in page


BROKEN_SETUPS = {
    "setup command fails": ("""\
        setup:
          - run: "{python} -c 'raise SystemExit(5)'"
        tasks:
          - instruction: click "OK"
        """, 2, "exited with status 5"),
    "app never ready": ("""\
        setup:
          - start: "{python} -c 'import time; time.sleep(120)'"
            ready: {window: A window that never opens, timeout: 1}
        tasks:
          - instruction: click "OK"
        """, 2, "did not become ready"),
}


@pytest.mark.parametrize("case", list(BROKEN_SETUPS), ids=list(BROKEN_SETUPS))
def test_a_setup_that_cannot_bring_the_app_up_exits_2(tmp_path, case):
    text, line, problem = BROKEN_SETUPS[case]
    suite = tmp_path / "broken.yaml"
    suite.write_text(textwrap.dedent(text), encoding="utf-8")
    out = tmp_path / "out"
    done = subprocess.run(batch(suite, out), cwd=tmp_path, env=env(), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    errors = [ln for ln in done.stderr.splitlines() if ln.startswith("gui-agent: error:")]
    assert len(errors) == 1, done.stderr
    assert errors[0].startswith(f"gui-agent: error: {suite.resolve()}:{line}: ")
    assert problem in errors[0]
    assert not processes_mentioning(str(out)) and not processes_mentioning("time.sleep(120)")


def test_a_worker_that_dies_fails_its_task_and_the_batch_goes_on(tmp_path):
    suite = tmp_path / "crash.yaml"
    suite.write_text(textwrap.dedent("""\
        name: crash
        tasks:
          - id: boom
            instruction: wait 1 seconds
            setup: [{run: "sh -c 'kill -9 $PPID'"}]
          - id: after
            instruction: make the window look nicer
            expect: error
        """), encoding="utf-8")
    out = tmp_path / "out"
    done = subprocess.run(batch(suite, out), cwd=tmp_path, env=env(), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    by_task = {r["task"]: r for r in records(out)}
    assert by_task["boom"]["outcome"] == "failed" and "died" in by_task["boom"]["reason"]
    assert by_task["after"]["outcome"] == "passed"
