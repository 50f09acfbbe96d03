"""Suite files: validation with file:line errors, expansion over parameters, the state checker."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from gui_agent.batch.suite import SuiteError, load_suite, substitute
from gui_agent.cli import main
from gui_agent.playground.check import ExpressionError, check_state, parse_expression

REPO = Path(__file__).resolve().parents[1]
PLAYGROUND_SUITE = REPO / "datasets" / "suites" / "playground.yaml"

GOOD = """\
name: demo
max_steps: 7
allow: [send]
setup:
  - start: "{python} -m gui_agent.playground --state-file {state_file}"
    env: {QT_QPA_PLATFORM: xcb}
    ready: {window: gui-agent playground, timeout: 9}
  - run: "{python} -c pass"
teardown:
  - "{python} -c pass"
tasks:
  - id: add
    instruction: type "{item}" into the New item field
    parameters: items.csv
    check:
      command: "{python} -m gui_agent.playground.check {state_file} 'items.list contains {item}'"
  - id: tab-{tab}
    instruction: switch to the {tab} tab
    parameters: [{tab: Items}, {tab: Editor}]
    allow: delete
    max_seconds: 30
  - id: save
    instruction: press Ctrl+S, type "{file}" and press Enter
    parameters: {file: a b.txt}
    expect: done
    check:
      - file: "{save_dir}/{file}"
        content: ""
      - text: Saved {file}
  - instruction: make the window look nicer
    expect: error
"""


def write(tmp_path: Path, text: str, csv: str | None = "item\nDates\nFigs\n") -> Path:
    if csv is not None:
        (tmp_path / "items.csv").write_text(csv, encoding="utf-8")
    path = tmp_path / "suite.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_valid_suite_expands_its_parameters(tmp_path):
    suite = load_suite(write(tmp_path, GOOD))
    keys = [t.key for t in suite.tasks]
    assert keys == ["add[Dates]", "add[Figs]", "tab-Items", "tab-Editor", "save", "task4"]
    add = suite.task("add[Figs]")
    assert add.instruction == 'type "Figs" into the New item field'
    assert add.parameters == (("item", "Figs"),)
    assert add.checks[0].argv[-1] == "items.list contains Figs"
    assert "{state_file}" in add.checks[0].argv  # runtime placeholders stay for the worker
    assert add.max_steps == 7 and add.allow == ("send",)
    tab = suite.task("tab-Editor")
    assert tab.allow == ("send", "delete") and tab.max_seconds == 30
    save = suite.task("save")
    assert save.checks[0].path == "{save_dir}/a b.txt" and save.checks[0].content == ""
    assert save.checks[1].text == "Saved a b.txt"
    assert suite.task("task4").expect == "error"
    start, run = suite.setup
    assert start.kind == "start" and start.ready.window == "gui-agent playground"
    assert start.ready.timeout == 9 and start.env == (("QT_QPA_PLATFORM", "xcb"),)
    assert run.kind == "run" and suite.teardown[0].kind == "run"
    assert "file {save_dir}/a b.txt exists with content ''" in save.describe_checks()


def test_the_shipped_playground_suite_is_valid():
    suite = load_suite(PLAYGROUND_SUITE)
    assert len(suite.tasks) >= 15
    templated = [t for t in suite.tasks if t.parameters]
    assert len({t.key.split("[")[0] for t in templated}) >= 3
    assert all(t.checks or t.expect != "done" for t in suite.tasks)


def test_substitute_fills_known_names_and_keeps_escaped_braces():
    assert substitute("a {x} {{y}}", {"x": "1"}) == "a 1 {y}"
    assert substitute("a {x} {y} {{z}}", {"x": "1"}, partial=True) == "a 1 {y} {{z}}"
    with pytest.raises(KeyError):
        substitute("{nope}", {})


BAD_CASES = {
    "unknown task key": ("""\
        tasks:
          - instruction: click "OK"
            instrucion: typo
        """, 3, "unknown key 'instrucion'"),
    "unknown suite key": ("tasks: []\nworkers: 3\n", 2, "unknown key 'workers'"),
    "missing instruction": ("""\
        tasks:
          - id: a
            instruction: click "OK"
          - id: b
            max_steps: 3
        """, 4, "has no 'instruction'"),
    "missing CSV": ("""\
        tasks:
          - instruction: type "{x}"
            parameters: nowhere.csv
        """, 3, "cannot read the parameters file"),
    "unknown placeholder": ("""\
        tasks:
          - instruction: type "{nme}"
            parameters: {name: Ann}
        """, 2, "unknown placeholder {nme}"),
    "missing program": ("""\
        setup:
          - start: no-such-app-gui-agent --flag
        tasks:
          - instruction: click "OK"
        """, 2, "program 'no-such-app-gui-agent' not found"),
    "duplicate id": ("""\
        tasks:
          - {id: a, instruction: click "OK"}
          - {id: a, instruction: click "No"}
        """, 3, "already used"),
    "bad expect": ("""\
        tasks:
          - instruction: click "OK"
            expect: success
        """, 3, "expect must be one of"),
    "two check kinds": ("""\
        tasks:
          - instruction: click "OK"
            check: {text: a, file: b}
        """, 3, "exactly one of"),
    "not YAML": ("tasks:\n  - instruction: [unclosed\n", 3, "not valid YAML"),
    "empty file": ("", 1, "empty"),
    "no tasks": ("name: x\n", 1, "no 'tasks'"),
    "negative limit": ("tasks:\n  - {instruction: a, max_steps: -1}\n", 2, "above 0"),
    "ready on a run step": ("""\
        setup:
          - run: "true"
            ready: {timeout: 1}
        tasks: [{instruction: a}]
        """, 3, "'ready' belongs to a 'start' step"),
}


@pytest.mark.parametrize("case", list(BAD_CASES), ids=list(BAD_CASES))
def test_a_bad_suite_names_file_line_and_problem(tmp_path, case):
    text, line, problem = BAD_CASES[case]
    path = write(tmp_path, text, csv=None)
    with pytest.raises(SuiteError) as err:
        load_suite(path)
    message = str(err.value)
    assert message.startswith(f"{path}:{line}: "), message
    assert problem in message
    assert "\n" not in message


def test_the_cli_says_it_in_one_line_and_exits_2(tmp_path, capsys):
    path = write(tmp_path, BAD_CASES["missing instruction"][0], csv=None)
    assert main(["batch", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"gui-agent: error: {path}:4: the task has no 'instruction'"
    assert main(["batch", str(tmp_path / "missing.yaml")]) == 2
    assert "missing.yaml:1: cannot read the suite file" in capsys.readouterr().err


def test_state_checker_expressions(tmp_path):
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"items": {"list": ["A", "B"]}, "ok": True, "n": 3,
                                 "who": {"name": "Bob"}, "none": None}))

    def holds(text: str) -> bool:
        return not check_state(state, [parse_expression(text)])

    for text in ("items.list contains A", "items.list[-1] == B", "items.list.0 == A",
                 "len(items.list) == 2", "ok == true", "n >= 3", "n < 4", "none == null",
                 "who.name == Bob", "who.name contains o", "items.list not contains C",
                 'n != "3"'):
        assert holds(text), text
    for text in ("ok == 1", "n > 3", "items.list[5] == A", "who.age == 3", "who.name == Bo",
                 "len(n) == 1", "items.list contains C"):
        assert not holds(text), text
    failures = check_state(state, [parse_expression("who.name == Ann")])
    assert failures == ['not true: who.name == Ann (who.name is "Bob")']
    assert check_state(tmp_path / "absent.json", [parse_expression("a == 1")])[0].startswith(
        "cannot read the state file")
    for bad in ("just words", "a ==", "a.b[x] == 1", "__import__('os') == 1"):
        if bad == "a ==":  # an empty value is the empty string, which is allowed
            assert parse_expression(bad).value == ""
            continue
        with pytest.raises(ExpressionError):
            parse_expression(bad)
