"""Suite files: validation with file:line errors, expansion over parameters, the state checker."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from gui_agent.batch.suite import SuiteError, load_suite, substitute
from gui_agent.cli import main
from gui_agent.playground.check import ExpressionError, check_state, parse_expression
from tests.support.paths import REPO

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


# -- parameter values are inserted literally, never expanded again -------------------------

LITERAL_VALUES = ["{python}", "{{state_file}}", "{nope}", "a}b{c", "{", "{task_id} {worker}"]

LITERAL_SUITE = """\
tasks:
  - id: echo
    instruction: type "{item}" into the Name field
    parameters: items.csv
    setup:
      - run: >-
          {python} -c 'import sys; open(sys.argv[1], "w").write(sys.argv[2])'
          {save_dir}/got.txt {item}
    check:
      - file: "{save_dir}/got.txt"
        content: "{item}"
      - command: >-
          {python} -c 'import sys; raise SystemExit(sys.argv[1] != sys.argv[2])' {item} {expected}
"""


def _literal_csv() -> str:
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["item", "expected"])
    writer.writerows([value, value] for value in LITERAL_VALUES)
    return out.getvalue()


def test_csv_values_reach_commands_checks_and_instruction_literally(tmp_path):
    """A value '{python}' was expanded a second time, by the worker, into the interpreter's path
    ('{nope}' crashed it with a KeyError): values are data, inserted as they are."""
    from types import SimpleNamespace

    from gui_agent.batch.checks import CheckContext, run_checks
    from gui_agent.batch.worker import Apps, Worker

    suite = load_suite(write(tmp_path, LITERAL_SUITE, csv=_literal_csv()))
    assert [t.parameters[0][1] for t in suite.tasks] == LITERAL_VALUES
    for task in suite.tasks:
        value = dict(task.parameters)["item"]
        workdir = tmp_path / "work" / str(suite.tasks.index(task))
        # the worker's own placeholder values, as it builds them for a task
        values = Worker._values(SimpleNamespace(suite=suite, number=1), workdir, task)
        assert substitute(task.instruction, values) == f'type "{value}" into the Name field'
        assert task.shown_instruction == f'type "{value}" into the Name field'
        Apps(suite, dict(os.environ), lambda text: False).run_steps(task.setup, values, workdir)
        assert (workdir / "files" / "got.txt").read_text(encoding="utf-8") == value
        context = CheckContext(values, suite.folder, {}, lambda t: False)
        ok, detail = run_checks(task.checks, context)
        assert ok, (value, detail)
        assert f"content {value!r}" in task.describe_checks()


def test_list_and_mapping_values_are_literal_too(tmp_path):
    text = """\
    tasks:
      - id: t-{v}
        instruction: type "{v}"
        parameters: [{v: "{python}"}, {v: "{{x}}"}]
        check: {text: "{v} {display}"}
      - instruction: type "{w}"
        parameters: {w: "{workdir}"}
    """
    suite = load_suite(write(tmp_path, text, csv=None))
    values = {"python": "/usr/bin/python3", "display": ":5", "workdir": "/tmp/w", "x": "X"}
    first, second, third = suite.tasks
    assert [t.key for t in suite.tasks] == ["t-{python}", "t-{{x}}", "task2"]
    assert substitute(first.instruction, values) == 'type "{python}"'
    assert substitute(first.checks[0].text, values) == "{python} :5"  # runtime names still fill
    assert substitute(second.instruction, values) == 'type "{{x}}"'
    assert substitute(third.instruction, values) == 'type "{workdir}"'


def test_a_parameter_named_like_a_runtime_placeholder_is_refused(tmp_path):
    path = write(tmp_path, 'tasks:\n  - {instruction: a, parameters: {python: rm}}\n', csv=None)
    with pytest.raises(SuiteError, match=r":2: parameter 'python' has the name of a placeholder"):
        load_suite(path)


# -- what is not a suite at all: file:line: problem, never a traceback ---------------------

def _nested_flow(depth: int) -> bytes:
    return ("tasks:\n  - instruction: a\n    parameters: " + "[" * depth + "]" * depth
            + "\n").encode()


def _nested_block(depth: int) -> bytes:
    lines = ["tasks:", "  - instruction: a", "    parameters:"]
    lines += ["  " * (i + 3) + f"k{i}:" for i in range(depth)]
    return ("\n".join(lines) + " v\n").encode()


def _alias_chain(length: int) -> bytes:
    lines = ["description:", "  x0: &a0 [1]"]
    lines += [f"  x{i}: &a{i} [*a{i - 1}]" for i in range(1, length)]
    lines += ["tasks:", "  - instruction: a",
              f'    check: {{command: "true", exit_code: *a{length - 1}}}']
    return ("\n".join(lines) + "\n").encode()


NOT_SUITES = {
    "binary file": (bytes(range(255, 0, -1)) * 4, 1, "not a text file"),
    "latin-1 on line 3": (b"tasks:\n  - instruction: a\n  - instruction: caf\xe9\n", 3,
                          "not UTF-8"),
    "a NUL character": (b"tasks:\n  - instruction: a\x00b\n", 2, "control character #x0000"),
    "flow nesting 5000 deep": (_nested_flow(5000), 3, "nested more than"),
    "block nesting 500 deep": (_nested_block(500), 21, "nested more than"),
    "an alias chain 3000 deep": (_alias_chain(3000), 3001, "nested too deeply"),  # its anchor
    "a python tag": (b"tasks:\n  - instruction: !!python/name:os.system a\n", 2,
                     "cannot read this value"),
    "a recursive alias": (b"tasks:\n  - instruction: a\n    parameters: {x: &a [*a]}\n", 3,
                          "needs a text or a number"),
    "a list as a key": (b"tasks:\n  - {instruction: a, parameters: {? [a] : b}}\n", 2,
                        "name must be a non-empty text"),
    "a list as a parameter value": (b"tasks:\n  - instruction: a\n    parameters: {x: [1, 2]}\n",
                                    3, "not a list or a mapping"),
    "binary data as a value": (b"tasks:\n  - instruction: a\n"
                               b'    parameters: {x: !!binary "AAAA"}\n', 3,
                               "needs a text or a number"),
    "a mapping as a suite key": (b"? {a: 1}\n: x\ntasks: [{instruction: a}]\n", 1, "plain words"),
}


@pytest.mark.parametrize("case", list(NOT_SUITES), ids=list(NOT_SUITES))
def test_what_is_not_a_suite_is_a_one_line_error_with_exit_2(tmp_path, capsys, case):
    data, line, problem = NOT_SUITES[case]
    path = tmp_path / "suite.yaml"
    path.write_bytes(data)
    with pytest.raises(SuiteError) as err:
        load_suite(path)
    assert str(err.value).startswith(f"{path}:{line}: "), str(err.value)
    assert problem in str(err.value)
    assert main(["batch", str(path), "--out", str(tmp_path / "out")]) == 2
    err_text = capsys.readouterr().err
    assert err_text.startswith(f"gui-agent: error: {path}:{line}: ") and err_text.count("\n") == 1


CSV_CASES = {
    "binary": (bytes(range(255, 0, -1)), "not UTF-8 text"),
    "a field over the csv limit": (b'item\n"' + b"x" * 200_000 + b'"\n', "not a readable CSV"),
}


@pytest.mark.parametrize("case", list(CSV_CASES), ids=list(CSV_CASES))
def test_an_unreadable_parameters_file_names_the_suite_line(tmp_path, case):
    data, problem = CSV_CASES[case]
    path = write(tmp_path, 'tasks:\n  - instruction: type "{item}"\n    parameters: items.csv\n',
                 csv=None)
    (tmp_path / "items.csv").write_bytes(data)
    with pytest.raises(SuiteError) as err:
        load_suite(path)
    assert str(err.value).startswith(f"{path}:3: ") and problem in str(err.value)


@pytest.mark.parametrize("seed", range(20))
def test_random_bytes_are_always_a_suite_error(tmp_path, seed):
    import random

    rng = random.Random(seed)
    path = tmp_path / "suite.yaml"
    path.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400))))
    with pytest.raises(SuiteError):
        load_suite(path)
