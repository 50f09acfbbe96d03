"""Task suites: a YAML file read node by node, so every error names its file and line.

    name: Playground                 # optional
    isolation: task                  # task: fresh app copies per task (default) | worker
    max_steps: 25                    # defaults for every task (max_seconds, allow too)
    allow: []                        # risky words pre-approved (safety is "refuse" otherwise)
    setup:                           # run by each worker, per task (or once with isolation: worker)
      - start: "{python} -m gui_agent.playground --state-file {state_file}"
        env: {QT_QPA_PLATFORM: xcb}
        ready: {window: "gui-agent playground", timeout: 30}   # or text: ..., or timeout only
      - run: "cp a b"                # one-shot, must exit 0 (timeout: seconds)
    teardown: [{run: "..."}]
    ray: {num_cpus: 1, memory: 1.5GiB}   # what each worker asks of a Ray cluster (ray_options.py)
    desktop: {window_manager: openbox, accessibility: true}   # per worker (desktop_session.py)
    tasks:
      - id: add-item
        instruction: 'click "Items", type "{item}" into the New item field, then click "Add"'
        parameters: items.csv        # CSV rows (or a list of mappings, or one mapping)
        setup: [...]                 # like the suite's, after it
        max_steps: 10
        max_seconds: 60
        allow: [delete]
        expect: done                 # the agent outcome the task must end with
        check:                       # one mapping or a list; all must hold
          - command: "{python} -m gui_agent.playground.check {state_file} 'items.list contains {item}'"
          - text: "Welcome"          # visible on the screen at the end
          - file: "{save_dir}/notes.txt"
            content: "hello"         # or contains: ...

Placeholders ``{name}`` come from the task's parameters and from the worker: see
``RUNTIME_NAMES``; ``{{`` and ``}}`` are literal braces. Commands are split like a shell
would (shlex) but run without one; placeholders are filled per word, so values may hold spaces.
A parameter's value is inserted as it is: braces in it are doubled when it is filled in here,
so the worker's fill of the runtime names never expands a ``{python}`` that came from a value.
Relative paths (CSV files, commands) are relative to the suite file's folder.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .desktop_session import DesktopSpec, read_desktop
from .ray_options import RayOptions, read_ray_options
from .suite_parameters import parameter_rows
from .yaml_nodes import (
    NodeReader,
    SuiteError,
    check_names,
    check_program,
    compose_file,
    literal,
    placeholders,
    show_command,
    shown,
    substitute,
)

__all__ = ["Check", "Readiness", "Step", "Suite", "SuiteError", "TaskSpec", "load_suite",
           "placeholders", "show_command", "substitute"]

RUNTIME_NAMES = ("python", "display", "worker", "workdir", "state_file", "save_dir",
                 "suite_dir", "task_id")
OUTCOMES = ("done", "failed", "refused", "error", "stopped")
ISOLATIONS = ("task", "worker")


@dataclass(frozen=True)
class Readiness:
    window: str | None = None      # a window whose title contains this text is shown
    text: str | None = None        # this text is visible on the screen (OCR)
    timeout: float = 30.0          # how long to wait; alone: just wait this long


@dataclass(frozen=True)
class Step:
    """One setup/teardown command: ``start`` keeps running (an app), ``run`` must exit 0."""

    kind: str                       # start | run
    argv: tuple[str, ...]           # placeholders not yet filled
    line: int
    env: tuple[tuple[str, str], ...] = ()
    ready: Readiness | None = None
    timeout: float = 120.0          # run: how long it may take

    @property
    def text(self) -> str:
        return show_command(shown(a) for a in self.argv)


@dataclass(frozen=True)
class Check:
    kind: str                       # command | text | file
    line: int
    argv: tuple[str, ...] = ()
    exit_code: int = 0
    text: str = ""
    path: str = ""
    content: str | None = None
    contains: str | None = None
    timeout: float = 5.0

    def describe(self) -> str:
        if self.kind == "command":
            code = f" exits with {self.exit_code}" if self.exit_code else " succeeds"
            return f"`{show_command(shown(a) for a in self.argv)}`{code}"
        if self.kind == "text":
            return f'"{shown(self.text)}" is visible on the screen'
        what = (f" with content {shown(self.content)!r}" if self.content is not None
                else f" containing {shown(self.contains)!r}" if self.contains is not None else "")
        return f"file {shown(self.path)} exists{what}"


@dataclass(frozen=True)
class TaskSpec:
    key: str                        # unique in the suite, stable across runs (results, resume)
    instruction: str                # parameters filled in (braces doubled), runtime ones left
    line: int
    name: str = ""
    parameters: tuple[tuple[str, str], ...] = ()
    setup: tuple[Step, ...] = ()
    checks: tuple[Check, ...] = ()
    max_steps: int = 25
    max_seconds: float = 180.0
    allow: tuple[str, ...] = ()
    expect: str = "done"

    @property
    def shown_instruction(self) -> str:
        """The instruction as a person reads it (runtime placeholders still unfilled)."""
        return shown(self.instruction)

    def describe_checks(self) -> str:
        parts = [f"agent outcome {self.expect}"] + [c.describe() for c in self.checks]
        return "; ".join(parts)


@dataclass(frozen=True)
class Suite:
    path: Path
    name: str
    tasks: tuple[TaskSpec, ...]
    setup: tuple[Step, ...] = ()
    teardown: tuple[Step, ...] = ()
    isolation: str = "task"
    meta: dict[str, Any] = field(default_factory=dict)
    ray: RayOptions = RayOptions()  # read by --ray runs only
    desktop: DesktopSpec = DesktopSpec()   # a window manager, the accessibility bus

    @property
    def folder(self) -> Path:
        return self.path.parent

    def task(self, key: str) -> TaskSpec:
        for t in self.tasks:
            if t.key == key:
                return t
        raise KeyError(key)


SUITE_KEYS = ("name", "description", "isolation", "max_steps", "max_seconds", "allow", "setup",
              "teardown", "tasks", "ray", "desktop")
TASK_KEYS = ("id", "name", "instruction", "parameters", "setup", "max_steps", "max_seconds",
             "allow", "expect", "check")


def _step(reader: NodeReader, node: Node, what: str, known: set[str], allow_start: bool) -> Step:
    if isinstance(node, ScalarNode):
        argv = reader.command(node, what)
        check_names(reader, node, argv, known)
        check_program(reader, node, argv)
        return Step("run", argv, node.start_mark.line + 1)
    keys = reader.mapping(node, what, ("start", "run", "env", "ready", "timeout"))
    kinds = [k for k in ("start", "run") if k in keys]
    if len(kinds) != 1:
        raise reader.error(node, f"{what} needs exactly one of 'start' (an app that keeps "
                                 "running) or 'run' (a command that must exit 0)")
    kind = kinds[0]
    if kind == "start" and not allow_start:
        raise reader.error(keys[kind][0], f"{what} can only 'run' commands")
    cmd_node = keys[kind][1]
    argv = reader.command(cmd_node, f"{what} {kind}")
    check_names(reader, cmd_node, argv, known)
    check_program(reader, cmd_node, argv)
    env: list[tuple[str, str]] = []
    if "env" in keys:
        for name, (_key, v_node) in reader.mapping(keys["env"][1], f"{what} env",
                                                       _any_keys(reader, keys["env"][1])).items():
            value = reader.value(v_node)
            if not isinstance(value, str | int | float) or isinstance(value, bool):
                raise reader.error(v_node, f"environment variable {name} needs a text value")
            check_names(reader, v_node, [str(value)], known)
            env.append((name, str(value)))
    ready = None
    if "ready" in keys:
        if kind != "start":
            raise reader.error(keys["ready"][0], "'ready' belongs to a 'start' step")
        ready = _readiness(reader, keys["ready"][1], known)
    timeout = 120.0
    if "timeout" in keys:
        if kind != "run":
            raise reader.error(keys["timeout"][0], "a 'start' step's timeout goes under 'ready'")
        timeout = reader.number(keys["timeout"][1], f"{what} timeout")
    return Step(kind, argv, cmd_node.start_mark.line + 1, tuple(env), ready, timeout)


def _any_keys(reader: NodeReader, node: Node) -> tuple[str, ...]:
    if not isinstance(node, MappingNode):
        raise reader.error(node, "env must be a mapping of variable names to values")
    return tuple(str(reader.value(k)) for k, _ in node.value)


def _readiness(reader: NodeReader, node: Node, known: set[str]) -> Readiness:
    keys = reader.mapping(node, "ready", ("window", "text", "timeout"))
    if not keys:
        raise reader.error(node, "ready needs a window title, a text or a timeout")
    values: dict[str, Any] = {}
    for name in ("window", "text"):
        if name in keys:
            values[name] = reader.string(keys[name][1], f"ready {name}")
            check_names(reader, keys[name][1], [values[name]], known)
    if "timeout" in keys:
        values["timeout"] = reader.number(keys["timeout"][1], "ready timeout")
    return Readiness(**values)


def _steps(reader: NodeReader, node: Node, what: str, known: set[str], allow_start: bool = True
           ) -> tuple[Step, ...]:
    if isinstance(node, ScalarNode) and reader.value(node) is None:
        return ()
    return tuple(_step(reader, item, f"{what} step", known, allow_start)
                 for item in reader.items(node, what))


def _check(reader: NodeReader, node: Node, known: set[str]) -> Check:
    keys = reader.mapping(node, "check", ("command", "exit_code", "text", "file", "content",
                                          "contains", "timeout"))
    kinds = [k for k in ("command", "text", "file") if k in keys]
    if len(kinds) != 1:
        raise reader.error(node, "a check needs exactly one of 'command', 'text' or 'file'")
    kind, line = kinds[0], node.start_mark.line + 1
    timeout = reader.number(keys["timeout"][1], "check timeout") if "timeout" in keys else (
        60.0 if kind == "command" else 5.0)
    extra = set(keys) - {kind, "timeout"}
    allowed = {"command": {"exit_code"}, "text": set(), "file": {"content", "contains"}}[kind]
    if extra - allowed:
        bad = sorted(extra - allowed)[0]
        raise reader.error(keys[bad][0], f"{bad!r} does not go with a {kind} check")
    if kind == "command":
        argv = reader.command(keys["command"][1], "check command")
        check_names(reader, keys["command"][1], argv, known)
        check_program(reader, keys["command"][1], argv)
        code = reader.value(keys["exit_code"][1]) if "exit_code" in keys else 0
        if not isinstance(code, int) or isinstance(code, bool):
            raise reader.error(keys["exit_code"][1], "exit_code must be a whole number")
        return Check("command", line, argv=argv, exit_code=code, timeout=timeout)
    if kind == "text":
        text = reader.string(keys["text"][1], "check text")
        check_names(reader, keys["text"][1], [text], known)
        return Check("text", line, text=text, timeout=timeout)
    path = reader.string(keys["file"][1], "check file")
    check_names(reader, keys["file"][1], [path], known)
    texts: dict[str, str] = {}
    for name in ("content", "contains"):
        if name in keys:
            value = reader.value(keys[name][1])
            if not isinstance(value, str):
                raise reader.error(keys[name][1], f"{name} must be a text")
            check_names(reader, keys[name][1], [value], known)
            texts[name] = value
    if len(texts) == 2:
        raise reader.error(node, "a file check takes 'content' or 'contains', not both")
    return Check("file", line, path=path, timeout=timeout, **texts)


def _task(reader: NodeReader, node: Node, index: int, defaults: dict[str, Any]) -> list[TaskSpec]:
    keys = reader.mapping(node, "a task", TASK_KEYS)
    if "instruction" not in keys:
        raise reader.error(node, "the task has no 'instruction'")
    rows, table = parameter_rows(reader, keys["parameters"][1]) if "parameters" in keys else (
        [{}], False)
    names = set(rows[0])
    for row in rows:
        if set(row) != names:
            raise reader.error(keys["parameters"][1], "every parameters row needs the same names")
    clash = sorted(names & set(RUNTIME_NAMES))
    if clash:
        raise reader.error(keys["parameters"][1], f"parameter {clash[0]!r} has the name of a "
                                                  "placeholder the worker fills; rename it")
    known = names | set(RUNTIME_NAMES)
    instruction = reader.string(keys["instruction"][1], "instruction")
    check_names(reader, keys["instruction"][1], [instruction], known)
    base_id = reader.string(keys["id"][1], "id") if "id" in keys else f"task{index}"
    if "id" in keys:
        check_names(reader, keys["id"][1], [base_id], names)
    name = reader.string(keys["name"][1], "name") if "name" in keys else ""
    setup = _steps(reader, keys["setup"][1], "task setup", known) if "setup" in keys else ()
    checks = tuple(_check(reader, c, known) for c in reader.items(keys["check"][1], "check")) \
        if "check" in keys else ()
    limits = dict(defaults)
    for key in ("max_steps", "max_seconds"):
        if key in keys:
            limits[key] = reader.number(keys[key][1], key, integer=key == "max_steps")
    allow = tuple(limits.pop("allow")) + (reader.strings(keys["allow"][1], "allow")
                                          if "allow" in keys else ())
    expect = "done"
    if "expect" in keys:
        expect = reader.string(keys["expect"][1], "expect")
        if expect not in OUTCOMES:
            raise reader.error(keys["expect"][1], f"expect must be one of {', '.join(OUTCOMES)}")
    out = []
    for row in rows:
        key = substitute(base_id, row)
        if table and key == base_id:
            key = f"{base_id}[{','.join(row.values())}]"
        as_text = {k: literal(v) for k, v in row.items()}  # the worker fills the rest once
        out.append(TaskSpec(
            key=key, instruction=substitute(instruction, as_text, partial=True),
            line=node.start_mark.line + 1, name=shown(substitute(name, as_text, partial=True)),
            parameters=tuple(row.items()), setup=_fill(setup, as_text),
            checks=_fill(checks, as_text), allow=allow, expect=expect, **limits))
    return out


def _fill(item: Any, row: dict[str, str]) -> Any:
    """A Step or Check with the task's parameters filled into every text it holds."""
    if not row:
        return item
    if isinstance(item, str):
        return substitute(item, row, partial=True)
    if isinstance(item, tuple):
        return tuple(_fill(x, row) for x in item)
    if isinstance(item, Step | Check):
        return replace(item, **{f.name: _fill(getattr(item, f.name), row) for f in fields(item)
                                if f.name not in ("kind", "ready")})
    return item


def load_suite(path: Path | str) -> Suite:
    """Read and validate a suite file; raises SuiteError naming the file, line and problem."""
    path = Path(path)
    reader = NodeReader(path)
    root = compose_file(path)
    if root is None:
        raise SuiteError(path, 1, "the suite file is empty; it needs at least 'tasks'")
    keys = reader.mapping(root, "the suite", SUITE_KEYS)
    if "tasks" not in keys:
        raise reader.error(root, "the suite has no 'tasks'")
    runtime = set(RUNTIME_NAMES)
    defaults: dict[str, Any] = {"max_steps": 25, "max_seconds": 180.0, "allow": ()}
    for key in ("max_steps", "max_seconds"):
        if key in keys:
            defaults[key] = reader.number(keys[key][1], key, integer=key == "max_steps")
    if "allow" in keys:
        defaults["allow"] = reader.strings(keys["allow"][1], "allow")
    isolation = reader.string(keys["isolation"][1], "isolation") if "isolation" in keys else "task"
    if isolation not in ISOLATIONS:
        raise reader.error(keys["isolation"][1], f"isolation must be one of {', '.join(ISOLATIONS)}")
    setup = _steps(reader, keys["setup"][1], "setup", runtime) if "setup" in keys else ()
    teardown = _steps(reader, keys["teardown"][1], "teardown", runtime, allow_start=False) \
        if "teardown" in keys else ()
    task_nodes = keys["tasks"][1]
    if not isinstance(task_nodes, SequenceNode) or not task_nodes.value:
        raise reader.error(task_nodes, "tasks must be a non-empty list")
    tasks: list[TaskSpec] = []
    seen: dict[str, int] = {}
    for index, node in enumerate(task_nodes.value, 1):
        for task in _task(reader, node, index, defaults):
            if task.key in seen:
                raise reader.error(node, f"task id {task.key!r} is already used by the task on "
                                         f"line {seen[task.key]}")
            seen[task.key] = task.line
            tasks.append(task)
    name = reader.string(keys["name"][1], "name") if "name" in keys else path.stem
    ray = read_ray_options(reader, keys["ray"][1]) if "ray" in keys else RayOptions()
    desktop = read_desktop(reader, keys["desktop"][1]) if "desktop" in keys else DesktopSpec()
    return Suite(path.resolve(), name, tuple(tasks), setup, teardown, isolation, ray=ray,
                 desktop=desktop)
