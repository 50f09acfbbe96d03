"""`gui-agent demo`: natural-language tasks done on the playground app with real input.

Each task gets a fresh playground window (so tasks are independent), is run by the offline
planner through the real mouse and keyboard, and is then checked against the app's own state
(not against what the agent believes it did). The report goes to ``<out>/index.html``.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .terminal_text import say
from .trajectory import RunResult

log = logging.getLogger(__name__)

State = dict[str, Any]


@dataclass(frozen=True)
class DemoTask:
    name: str
    instruction: str
    check: Callable[[State, RunResult], bool]
    expects: str                          # what is checked, in words (shown in the report)
    allow: tuple[str, ...] = ()           # risky actions pre-approved for this task
    expect_outcome: str = "done"          # the agent outcome this task must end with
    playground: dict[str, Any] = field(default_factory=dict)  # launch options (theme, ...)


def _saved(state: State, name: str, content: str) -> bool:
    return any(Path(f["path"]).name == name and f["content"] == content
               for f in state["editor"]["saved_files"])


DEMO_TASKS: tuple[DemoTask, ...] = (
    DemoTask(
        "Sign in",
        'type "ann" into the Username field, type "secret" into the Password field, '
        'check "Remember me", then click "Log in"',
        lambda s, r: s["login"]["logged_in_as"] == "ann" and s["login"]["remember_me"]
        and s["login"]["password_length"] == 6,
        "signed in as ann, Remember me on, a 6-character password",
    ),
    DemoTask(
        "Change name and colour",
        'click the Settings tab, click "Open settings…", type "Ann Lee" into the Name field, '
        'select "Green" from the Color dropdown, then click "OK"',
        lambda s, r: s["settings"]["applied"]["name"] == "Ann Lee"
        and s["settings"]["applied"]["color"] == "Green",
        "applied settings: name 'Ann Lee', colour Green",
    ),
    DemoTask(
        "Options and size (dark theme)",
        'open the Settings tab. Click "Open settings…", choose "Large", uncheck '
        '"Enable notifications", check "Auto-save" and press "OK"',
        lambda s, r: s["settings"]["applied"]["size"] == "Large"
        and s["settings"]["applied"]["notifications"] is False
        and s["settings"]["applied"]["auto_save"] is True,
        "applied settings: size Large, notifications off, auto-save on",
        playground={"theme": "dark"},
    ),
    DemoTask(
        "Add an item",
        'click "Items", type "Dates" into the New item field, then click "Add"',
        lambda s, r: s["items"]["list"][-1:] == ["Dates"],
        "the list ends with Dates",
    ),
    DemoTask(
        "Delete an item (pre-approved)",
        'click "Items", click "Bananas", click "Delete", then click "Yes"',
        lambda s, r: "Bananas" not in s["items"]["list"] and "Bananas" in s["items"]["deleted"],
        "Bananas deleted after the confirmation dialog; delete pre-approved with --allow delete",
        allow=("delete",),
    ),
    DemoTask(
        "A target found by relation",
        "click the Contacts tab, then click the Edit button next to Bob",
        lambda s, r: (s["contacts"]["last_edit"] or {}).get("name") == "Bob",
        "the Edit button of Bob's row was clicked (three identical Edit buttons)",
    ),
    DemoTask(
        "A target found by ordinal",
        "go to Contacts and click the 3rd Edit button",
        lambda s, r: (s["contacts"]["last_edit"] or {}).get("name") == "Carol",
        "the third Edit button (Carol's) was clicked",
    ),
    DemoTask(
        "Non-ASCII text saved to a file",
        'click the Editor tab, click the text area, type "Grüße aus Zürich — 東京 ✓", '
        'then press Ctrl+S, type "notes.txt" and press Enter',
        lambda s, r: _saved(s, "notes.txt", "Grüße aus Zürich — 東京 ✓"),
        "notes.txt saved with the non-ASCII text",
    ),
    DemoTask(
        "Refused without approval",
        'click "Items", click "Apples", then click "Delete"',
        lambda s, r: "Apples" in s["items"]["list"] and "Delete" in r.reason,
        "the safety policy refuses the Delete click (no --allow delete); Apples is kept",
        expect_outcome="refused",
    ),
    DemoTask(
        "An instruction the offline planner must not guess",
        "make the window look nicer",
        lambda s, r: "could not understand" in r.reason.lower() and not r.steps,
        "the planner says what it could not understand and takes no action",
        expect_outcome="error",
    ),
)


def _select(only: str | None) -> list[tuple[int, DemoTask]]:
    numbered = list(enumerate(DEMO_TASKS, 1))
    if not only:
        return numbered
    from .errors import ConfigError

    try:
        wanted = {int(x) for x in only.split(",") if x.strip()}
    except ValueError as exc:
        raise ConfigError(f"--tasks takes task numbers like 1,3,5, not {only!r}") from exc
    unknown = wanted - {i for i, _ in numbered}
    if unknown:
        raise ConfigError(f"no demo task numbered {sorted(unknown)}; there are {len(numbered)}")
    return [(i, t) for i, t in numbered if i in wanted]


def run_demo_task(task: DemoTask, runs_dir: Path, work: Path,
                  parser: Any | None = None) -> tuple[RunResult, bool, str]:
    """Run one task on a fresh playground; returns the run, whether it passed, and why not.

    Pass one ``parser`` (a ScreenParser) for several tasks so that the OCR models are loaded
    once and text already read is not read again.
    """
    from .config import Settings
    from .engine import Engine
    from .playground import launch_playground

    settings = Settings(safety="refuse", allow=task.allow, max_steps=25, max_seconds=120,
                        runs_dir=runs_dir)
    state_file = work / "state.json"
    with launch_playground(state_file, save_dir=work / "files", **task.playground) as app:
        app.wait_ready()
        result = Engine.from_settings(settings, parser=parser, use_memory=False).run(task.instruction)
        with contextlib.suppress(Exception):  # give the app a moment to write its final state
            app.wait_for(lambda s: True, timeout=0.5)
        state = app.state()
    if result.outcome != task.expect_outcome:
        return result, False, f"agent outcome {result.outcome!r}, expected {task.expect_outcome!r}" + (
            f": {result.reason}" if result.reason else "")
    if not task.check(state, result):
        return result, False, f"the app's state does not show: {task.expects}"
    return result, True, ""


def run_demo(out: Path, headless: bool = False, only: str | None = None) -> int:
    from .display import ensure_display
    from .parsing.screen_parser import ScreenParser
    from .report import ReportEntry, write_report

    tasks = _select(only)
    out = Path(out)
    runs_dir = out / "runs"
    if runs_dir.exists():
        shutil.rmtree(runs_dir)
    entries: list[ReportEntry] = []
    parser = ScreenParser()
    with ensure_display(True if headless else None), tempfile.TemporaryDirectory() as tmp:
        for number, task in tasks:
            work = Path(tmp) / f"task{number}"
            work.mkdir()
            say(f"[{number}/{len(DEMO_TASKS)}] {task.name}: {task.instruction}", flush=True)
            result, passed, detail = run_demo_task(task, runs_dir, work, parser)
            for step in result.steps:
                say(f"    {step.describe()}")
            verdict = "PASS" if passed else "FAIL"
            tail = f" — {detail}" if detail else (f" ({result.reason})" if result.reason else "")
            say(f"    {verdict} in {result.seconds:.1f}s{tail}", flush=True)
            entries.append(ReportEntry(task.name, result, passed, task.expects, detail))
    index = write_report(out, "gui-agent demo on the playground app", entries)
    passed = sum(e.passed for e in entries)
    steps = sum(len(e.result.steps) for e in entries)
    seconds = sum(e.result.seconds for e in entries)
    say(f"demo: {passed}/{len(entries)} tasks passed, {steps} steps, {seconds:.1f}s of agent time; "
        f"report: {index}")
    return 0 if passed == len(entries) else 1
