"""Check the playground's state file from a shell: ``python -m gui_agent.playground.check``.

    python -m gui_agent.playground.check STATE.json 'items.list contains Dates' \\
        'settings.applied.color == Green' 'len(items.list) == 4' 'items.list[-1] == Dates'

An expression is ``PATH OP VALUE`` (or ``len(PATH) OP NUMBER``). PATH is dotted keys with
list indexes (``a.b[0]``, negative from the end); OP is one of ``== != < <= > >= contains``
``not contains``; VALUE is JSON when it reads as JSON (``true``, ``3``, ``null``, ``"3"``,
``["a"]``) and plain text otherwise. Nothing is evaluated as code. Exit status: 0 when every
expression holds, 1 when one does not (or the state cannot be read), 2 for a malformed
expression. ``--wait S`` re-reads the file until all hold or S seconds pass (the app writes
its state a moment after it changes).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_EXPR = re.compile(
    r"^\s*(?P<len>len\(\s*)?(?P<path>[A-Za-z_][\w-]*(?:\.[\w-]+|\[-?\d+\])*)\s*(?(len)\))\s*"
    r"(?P<op>==|!=|>=|<=|>|<|not\s+contains|contains)\s*(?P<value>.*?)\s*$", re.DOTALL)
_SEGMENT = re.compile(r"\.?([A-Za-z_][\w-]*)|\[(-?\d+)\]|\.(-?\d+)")
_MISSING = object()


class ExpressionError(ValueError):
    """The expression cannot be read."""


@dataclass(frozen=True)
class Expression:
    text: str
    path: tuple[str | int, ...]
    length: bool
    op: str
    value: Any

    def evaluate(self, document: Any) -> tuple[bool, str]:
        """Whether it holds, and what the path actually holds (for the message)."""
        actual = resolve(document, self.path)
        if actual is _MISSING:
            return False, f"{format_path(self.path)} does not exist"
        if self.length:
            if not isinstance(actual, list | dict | str):
                return False, f"{format_path(self.path)} has no length (it is {actual!r})"
            actual = len(actual)
        shown = f"{'len(' if self.length else ''}{format_path(self.path)}" \
                f"{')' if self.length else ''} is {json.dumps(actual, ensure_ascii=False)}"
        return _compare(actual, self.op, self.value), shown


def _compare(actual: Any, op: str, value: Any) -> bool:
    if op in ("contains", "not contains"):
        if isinstance(actual, str):
            found = isinstance(value, str) and value in actual
        elif isinstance(actual, list | dict):
            found = value in actual
        else:
            found = False
        return found if op == "contains" else not found
    if op in ("==", "!="):
        return _equal(actual, value) == (op == "==")
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (actual, value))
    if not numbers:
        return False
    return {"<": actual < value, "<=": actual <= value, ">": actual > value,
            ">=": actual >= value}[op]


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):  # true is not 1
        return type(a) is type(b) and a == b
    return a == b


def parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_path(text: str) -> tuple[str | int, ...]:
    out: list[str | int] = []
    pos = 0
    while pos < len(text):
        m = _SEGMENT.match(text, pos)
        if not m or m.end() == pos:
            raise ExpressionError(f"cannot read the path {text!r} at {text[pos:]!r}")
        key, index, dotted_index = m.groups()
        out.append(key if key is not None else int(index if index is not None else dotted_index))
        pos = m.end()
    return tuple(out)


def parse_expression(text: str) -> Expression:
    m = _EXPR.match(text)
    if not m:
        raise ExpressionError(
            f"cannot read {text!r}: write PATH OP VALUE, e.g. 'items.list contains Dates' "
            "(OP: == != < <= > >= contains, not contains)")
    op = " ".join(m.group("op").split())
    return Expression(text, parse_path(m.group("path")), bool(m.group("len")), op,
                      parse_value(m.group("value")))


def resolve(document: Any, path: Sequence[str | int]) -> Any:
    current = document
    for part in path:
        in_dict = isinstance(current, dict) and isinstance(part, str) and part in current
        in_list = (isinstance(current, list) and isinstance(part, int)
                   and -len(current) <= part < len(current))
        if not (in_dict or in_list):
            return _MISSING
        current = current[part]
    return current


def format_path(path: Sequence[str | int]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def check_state(state_file: Path, expressions: Sequence[Expression], wait: float = 0.0,
                interval: float = 0.1) -> list[str]:
    """The expressions that do not hold (with what was found); empty when all hold."""
    deadline = time.monotonic() + wait
    while True:
        try:
            document = json.loads(state_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            failures = [f"cannot read the state file {state_file}: {exc}"]
        else:
            failures = []
            for expr in expressions:
                ok, shown = expr.evaluate(document)
                if not ok:
                    failures.append(f"not true: {expr.text} ({shown})")
        if not failures or time.monotonic() >= deadline:
            return failures
        time.sleep(interval)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gui_agent.playground.check",
                                     description="Check expressions over the playground's state file.")
    parser.add_argument("state_file", type=Path)
    parser.add_argument("expressions", nargs="+", metavar="EXPR")
    parser.add_argument("--wait", type=float, default=0.0,
                        help="re-read the file for up to this many seconds until all hold")
    args = parser.parse_args(argv)
    try:
        expressions = [parse_expression(e) for e in args.expressions]
    except ExpressionError as exc:
        print(f"check: {exc}", file=sys.stderr)  # noqa: T201 (CLI output)
        return 2
    failures = check_state(args.state_file, expressions, wait=args.wait)
    for line in failures:
        print(line)  # noqa: T201 (CLI output)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
