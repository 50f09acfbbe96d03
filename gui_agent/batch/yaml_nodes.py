"""Reading YAML node by node, so that every problem names its file and line.

``yaml.compose`` keeps each node's position (``start_mark``); these helpers turn nodes into
values and raise ``SuiteError("file:line: problem")`` for anything a suite must not contain.
Placeholder helpers live here too: suites, workers and checks fill ``{name}`` the same way.
"""

from __future__ import annotations

import re
import shlex
import shutil
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..errors import ConfigError

_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")
MAX_DEPTH = 20  # a suite needs 7 levels of nesting; far more is a mistake or an attack


class SuiteError(ConfigError):
    """A suite file is invalid, or its setup could not bring the applications up."""

    def __init__(self, path: Path | str, line: int, problem: str) -> None:
        self.path, self.line, self.problem = Path(path), line, " ".join(problem.split())
        super().__init__(f"{self.path}:{line}: {self.problem}")


def substitute(text: str, values: Mapping[str, str], partial: bool = False) -> str:
    """Fill ``{name}`` placeholders; with ``partial`` unknown names and ``{{`` stay as they are."""

    def fill(m: re.Match[str]) -> str:
        name = m.group(1)
        if name is None:
            return m.group(0) if partial else m.group(0)[0]
        if name in values:
            return str(values[name])
        if partial:
            return m.group(0)
        raise KeyError(name)

    return _PLACEHOLDER.sub(fill, text)


def literal(value: str) -> str:
    """``value`` as template text that a later ``substitute`` turns back into ``value`` itself:
    braces doubled, so a placeholder-like ``{python}`` in it is never filled."""
    return value.replace("{", "{{").replace("}", "}}")


def shown(template: str) -> str:
    """A template as a person reads it: ``{{`` and ``}}`` shown once, placeholders left."""
    return _PLACEHOLDER.sub(lambda m: m.group(0) if m.group(1) else m.group(0)[0], template)


def show_command(argv: Iterable[str]) -> str:
    """A command as a person would type it (placeholders left readable, unlike shlex.join)."""
    return " ".join(a if a and not re.search(r"[\s'\"\\$`;&|<>()*?]", a) else shlex.quote(a)
                    for a in argv)


def placeholders(text: str) -> set[str]:
    return {m.group(1) for m in _PLACEHOLDER.finditer(text) if m.group(1)}


def compose_file(path: Path) -> Node | None:
    """The YAML node tree of a suite file (None when empty); anything that is not YAML text,
    is nested too deeply or is not valid YAML raises SuiteError with the line it is on."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SuiteError(path, 1, f"cannot read the suite file: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SuiteError(path, data.count(b"\n", 0, exc.start) + 1,
                         f"not a text file: byte 0x{data[exc.start]:02x} (offset {exc.start}) is "
                         "not UTF-8; a suite is a YAML text file") from None
    try:
        _check_depth(path, text)
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise SuiteError(path, mark.line + 1 if mark else 1,
                         f"not valid YAML: {exc.problem or exc}") from None
    except yaml.reader.ReaderError as exc:
        code = ord(exc.character) if isinstance(exc.character, str) else exc.character
        raise SuiteError(path, text.count("\n", 0, exc.position) + 1,
                         f"not valid YAML: the control character #x{code:04x} is not allowed "
                         "(is it a binary file?)") from None
    except yaml.YAMLError as exc:
        raise SuiteError(path, 1, f"not valid YAML: {exc}") from None
    except RecursionError:
        raise SuiteError(path, 1, "not valid YAML: nested too deeply to read") from None


def _check_depth(path: Path, text: str) -> None:
    """Refuse nesting beyond MAX_DEPTH before composing (the composer recurses per level)."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise SuiteError(path, event.start_mark.line + 1,
                                 f"lists and mappings are nested more than {MAX_DEPTH} levels "
                                 "deep here; a suite needs far fewer")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


class NodeReader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._loader = yaml.SafeLoader("")

    def error(self, node: Node | None, problem: str) -> SuiteError:
        return SuiteError(self.path, node.start_mark.line + 1 if node is not None else 1, problem)

    def mapping(self, node: Node, what: str, known: Iterable[str]) -> dict[str, tuple[Node, Node]]:
        if not isinstance(node, MappingNode):
            raise self.error(node, f"{what} must be a mapping (key: value)")
        known = tuple(known)
        out: dict[str, tuple[Node, Node]] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                raise self.error(key_node, f"the keys of {what} must be plain words")
            key = self.value(key_node)
            if not isinstance(key, str) or key not in known:
                raise self.error(key_node, f"unknown key {key!r} in {what}; known keys: "
                                           f"{', '.join(known)}")
            if key in out:
                raise self.error(key_node, f"key {key!r} appears twice in {what}")
            out[key] = (key_node, value_node)
        return out

    def value(self, node: Node) -> Any:
        """The node as a Python value; a tag or alias YAML cannot build is a SuiteError."""
        try:
            return self._loader.construct_object(node, deep=True)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or node.start_mark
            raise SuiteError(self.path, mark.line + 1,
                             f"cannot read this value: {exc.problem or exc}") from None
        except RecursionError:
            raise self.error(node, "this value is nested too deeply (aliases?)") from None

    def string(self, node: Node, what: str) -> str:
        value = self.value(node) if isinstance(node, ScalarNode) else None
        if not isinstance(value, str | int | float) or isinstance(value, bool) or value == "":
            raise self.error(node, f"{what} must be a non-empty text")
        return str(value)

    def number(self, node: Node, what: str, integer: bool = False) -> float:
        value = self.value(node) if isinstance(node, ScalarNode) else None
        ok = isinstance(value, int) if integer else isinstance(value, int | float)
        if not ok or isinstance(value, bool) or value <= 0:
            kind = "a whole number" if integer else "a number"
            raise self.error(node, f"{what} must be {kind} above 0, not {value!r}")
        return value

    def strings(self, node: Node, what: str) -> tuple[str, ...]:
        if isinstance(node, ScalarNode):
            return (self.string(node, what),)
        if not isinstance(node, SequenceNode):
            raise self.error(node, f"{what} must be a text or a list of texts")
        return tuple(self.string(item, what) for item in node.value)

    def items(self, node: Node, what: str) -> list[Node]:
        if isinstance(node, SequenceNode):
            return list(node.value)
        if isinstance(node, MappingNode):
            return [node]
        raise self.error(node, f"{what} must be a list")

    def command(self, node: Node, what: str) -> tuple[str, ...]:
        text = self.string(node, what)
        try:
            argv = tuple(shlex.split(text))
        except ValueError as exc:
            raise self.error(node, f"{what} {text!r} cannot be split into words: {exc}") from None
        if not argv:
            raise self.error(node, f"{what} is empty")
        return argv


def check_names(reader: NodeReader, node: Node, texts: Iterable[str], known: set[str]) -> None:
    for text in texts:
        unknown = placeholders(text) - known
        if unknown:
            raise reader.error(node, f"unknown placeholder {{{sorted(unknown)[0]}}}; known: "
                               f"{', '.join(sorted(known))}")


def check_program(reader: NodeReader, node: Node, argv: tuple[str, ...]) -> None:
    """A command whose program cannot be found is a suite error now, not a failure later."""
    program = substitute(argv[0], {"python": sys.executable,
                                   "suite_dir": str(reader.path.parent)}, partial=True)
    if placeholders(program):
        return
    if "/" in program:
        found = (reader.path.parent / program).exists()
    else:
        found = shutil.which(program) is not None
    if not found:
        raise reader.error(node, f"program {program!r} not found (command: {shlex.join(argv)})")
