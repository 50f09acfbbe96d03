"""The desktop-apps suite's parts: a desktop per worker (window manager, accessibility bus),
an application's answer kept for the checks, checks on its output, the run's figures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gui_agent.batch.desktop_session import DesktopSession, DesktopSpec
from gui_agent.batch.output_checks import main as check
from gui_agent.batch.suite import SuiteError, load_suite
from gui_agent.batch.summary import summarize
from tests.support.paths import REPO
from tests.support.requirements import require_atspi, require_tool

SUITE = REPO / "datasets" / "suites" / "desktop-apps.yaml"
TUNING = ("zenity", "mousepad", "galculator", "featherpad")
VALIDATION = ("yad", "gnumeric", "speedcrunch")


def test_the_shipped_desktop_suite_is_valid_and_as_large_as_promised():
    suite = load_suite(SUITE)
    assert suite.desktop == DesktopSpec("openbox", True)
    keys = [t.key for t in suite.tasks]
    apps = {k.split("-")[0].split("[")[0] for k in keys}
    assert len(keys) >= 40 and apps == set(TUNING + VALIDATION)
    assert all(t.checks for t in suite.tasks)       # every task checked on the app's output
    validation = [k for k in keys if k.startswith(VALIDATION)]
    assert len(validation) >= 10


def _suite(tmp_path: Path, desktop: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(textwrap.dedent(f"""\
        desktop: {desktop}
        tasks:
          - instruction: click "OK"
        """), encoding="utf-8")
    return path


@pytest.mark.parametrize(("desktop", "words"), [
    ("{window_manager: no-such-wm-here}", ["s.yaml:1", "no-such-wm-here", "not found"]),
    ("{accessibility: yes please}", ["s.yaml:1", "true or false"]),
    ("{compositor: on}", ["s.yaml:1", "compositor"]),
])
def test_a_bad_desktop_names_the_line_and_the_problem(tmp_path, desktop, words):
    with pytest.raises(SuiteError) as err:
        load_suite(_suite(tmp_path, desktop))
    assert all(w in str(err.value) for w in words), str(err.value)


def test_an_accessible_session_has_its_own_bus_and_gives_the_environment_back(tmp_path, monkeypatch):
    require_atspi()
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/before")
    monkeypatch.setenv("NO_AT_BRIDGE", "1")
    session = DesktopSession(DesktopSpec(accessibility=True), tmp_path / "logs")
    session.start()
    try:
        address = os.environ["DBUS_SESSION_BUS_ADDRESS"]
        assert address != "unix:path=/before" and "NO_AT_BRIDGE" not in os.environ
        assert os.environ["QT_LINUX_ACCESSIBILITY_ALWAYS_ON"] == "1"
        answered = subprocess.run(["dbus-send", "--session", "--dest=org.freedesktop.DBus",
                                   "--print-reply", "/org/freedesktop/DBus",
                                   "org.freedesktop.DBus.GetId"], capture_output=True, text=True,
                                  timeout=10, check=False)
        assert answered.returncode == 0, answered.stderr
    finally:
        session.stop()
    assert os.environ["DBUS_SESSION_BUS_ADDRESS"] == "unix:path=/before"
    assert os.environ["NO_AT_BRIDGE"] == "1" and "QT_LINUX_ACCESSIBILITY_ALWAYS_ON" not in os.environ


def test_a_session_without_a_desktop_starts_nothing(tmp_path):
    session = DesktopSession(DesktopSpec(), tmp_path / "logs")
    session.start()
    assert not (tmp_path / "logs").exists()
    assert session.wait_for_tree_window("anything", timeout=0.1) is False
    session.stop()


def test_an_applications_answer_and_exit_status_are_kept(tmp_path):
    prefix = tmp_path / "dialog"
    code = subprocess.run([sys.executable, "-m", "gui_agent.batch.capture", str(prefix), "--",
                           sys.executable, "-c", "print('Ann|ann@example.org'); raise SystemExit(1)"],
                          timeout=30, check=False).returncode
    assert code == 1
    assert (tmp_path / "dialog.out").read_text() == "Ann|ann@example.org\n"
    assert (tmp_path / "dialog.status").read_text().strip() == "1"
    assert check(["lines", str(prefix) + ".out", "Ann|ann@example.org"]) == 0
    assert check(["lines", str(prefix) + ".out", "Ann"]) == 1
    assert check(["status", str(prefix) + ".status", "1"]) == 0
    assert check(["status", str(prefix) + ".status", "0"]) == 1


def test_an_application_stopped_before_it_answered_leaves_no_status(tmp_path):
    prefix = tmp_path / "dialog"
    proc = subprocess.Popen([sys.executable, "-m", "gui_agent.batch.capture", str(prefix), "--",
                             sys.executable, "-c", "import time; time.sleep(60)"])
    import time

    time.sleep(1.0)
    proc.terminate()
    proc.wait(timeout=20)
    assert not (tmp_path / "dialog.status").exists()
    assert check(["status", str(prefix) + ".status", "0"]) == 1


def test_numbers_and_cells_are_compared_as_numbers(tmp_path, capsys):
    (tmp_path / "n.txt").write_text("12.0\n")
    assert check(["number", str(tmp_path / "n.txt"), "12"]) == 0
    assert check(["number", str(tmp_path / "n.txt"), "13"]) == 1
    assert "12.0" in capsys.readouterr().out
    require_tool("ssconvert", apt="gnumeric")
    csv = tmp_path / "s.csv"
    csv.write_text("Item,Price\nPens,3\nPaper,5\n")
    book = tmp_path / "book.gnumeric"
    subprocess.run(["ssconvert", str(csv), str(book)], check=True, capture_output=True, timeout=60)
    assert check(["cell", str(book), "B3", "5"]) == 0
    assert check(["cell", str(book), "A2", "Pens"]) == 0
    assert check(["cell", str(book), "C9", ""]) == 0
    assert check(["cell", str(book), "B2", "4"]) == 1


def _record(task: str, outcome: str, agent: str, run_dir: Path | None) -> dict:
    return {"task": task, "outcome": outcome, "agent_outcome": agent,
            "run_dir": str(run_dir) if run_dir else None}


def test_the_figures_count_passes_false_successes_and_step_times(tmp_path):
    runs = []
    for i, timings in enumerate(({"capture": 0.01, "ground": 0.09, "settle": 0.2},
                                 {"capture": 0.02, "parse": 0.28, "settle": 0.5})):
        run = tmp_path / f"run{i}"
        run.mkdir()
        (run / "steps.jsonl").write_text(json.dumps({"timings": timings}) + "\n")
        runs.append(run)
    records = [_record("zenity-a", "passed", "done", runs[0]),
               _record("zenity-b", "failed", "done", runs[1]),       # said done, was not
               _record("yad-a", "failed", "failed", None)]           # failed, and said so
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    figures = summarize(tmp_path, {"tuning": ("zenity",), "validation": ("yad",)})
    assert (figures["all"].tasks, figures["all"].passed) == (3, 1)
    assert figures["all"].false_successes == ["zenity-b"]
    assert figures["validation"].false_successes == [] and figures["validation"].tasks == 1
    assert sorted(round(s, 2) for s in figures["tuning"].step_seconds) == [0.3, 0.8]
    assert sorted(round(s, 2) for s in figures["tuning"].step_work_seconds) == [0.1, 0.3]
    assert "1/3 passed" in figures["all"].line("all")
