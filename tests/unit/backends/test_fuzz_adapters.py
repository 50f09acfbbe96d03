"""Hostile model replies against every reply parser: only GuiAgentErrors, nothing executed.

Every adapter in gui_agent/backends/adapters (at a few screen sizes and with no screenshot),
the canonical action parser and the plan reader get arbitrary text and structured hostile
replies: numbers of hundreds of digits, NaN and infinities, deep brackets, unicode, and code
(``__import__('os').system``, ``eval``, lambdas, attribute access, f-strings). A reply is read
or refused with a GuiAgentError; nothing else escapes, no point lands off the screen, and no
payload runs: eval/exec/os.system/subprocess are booby-trapped while parsing and a sentinel file
that every payload would create must never appear.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gui_agent.actions import Action, parse_action, target_fields
from gui_agent.backends.adapters import ADAPTER_NAMES, ModelReply, get_adapter
from gui_agent.backends.coordinates import ImageFrame
from gui_agent.errors import GuiAgentError
from gui_agent.geometry import Box, Point
from gui_agent.planner.asking import parse_plan

SENTINEL = Path(tempfile.gettempdir()) / f"gui-agent-fuzz-sentinel-{os.getpid()}"
S = str(SENTINEL)
# Each payload, if it ever ran, would create SENTINEL (or call a booby-trapped function).
PAYLOADS = (
    f"__import__('os').system('touch {S}')",
    f"__import__('subprocess').Popen(['touch', '{S}'])",
    f"eval(\"open('{S}', 'w')\")",
    f"exec(\"open('{S}', 'w').close()\")",
    f"open('{S}', 'w')",
    f"(lambda: open('{S}', 'w'))()",
    "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'][0]"
    f".__init__.__globals__['system']('touch {S}')",
    f"getattr(__import__('builtins'), 'open')('{S}', 'w')",
    f"f\"{{open('{S}', 'w')}}\"",
    f"f'{{__import__(\"os\").system(\"touch {S}\")}}'",
    f"[open('{S}', 'w') for _ in range(1)]",
    f"globals()['__builtins__']['open']('{S}', 'w')",
    f"os.system('touch {S}')",
    f"{{'action': __import__('os').system('touch {S}')}}",
    f"$(touch {S})",
    f"`touch {S}`",
    f"; touch {S}",
)
HUGE = "9" * 400
NUMBERS = (HUGE, "-" + HUGE, HUGE + ".5", "1e400", "-1e400", "1e-400", "nan", "NaN", "inf",
           "-inf", "Infinity", "float('nan')", "1_000", "0x10", "1j", "-0", "10**400", "9" * 5000,
           "0.5", "500", "-3", "1000000", "1e6", "2147483648", "True", "None", "[]", "''")
BRACKETS = ("[" * 100_000, "(" * 100_000, "{" * 100_000, "[" * 1000 + "]" * 1000,
            "((((" * 5000, "<tool_call>" * 2000, "'" * 10_000, "\\" * 10_000)
UNICODE = ("（１２，３４）", "\u202e)43,21(", "\x00", "\ud800", "\udfff", "🖱️", "ｃｌｉｃｋ", "\u200b",
           "Action：click（start_box＝'（1，1）'）", "﻿", "\r\n\r\n", "\t" * 100)
# Templates in every family's format; {a} and {b} are coordinates, {c} any text.
TEMPLATES = (
    "Thought: {c}\nAction: click(start_box='({a},{b})')",
    "Action: left_double(start_box='<|box_start|>({a},{b})<|box_end|>')",
    "Action: drag(start_box='({a},{b})', end_box='({b},{a})')",
    "Action: type(content='{c}')\n\nAction: hotkey(key='{c}')",
    "Action: scroll(start_box='({a},{b},{a},{b})', direction='{c}')",
    "Action: {c}(start_box={a})",
    "Action: finished(content={c})",
    "{{'action': 'CLICK', 'value': {c}, 'position': [{a}, {b}]}}",
    "{{'action': '{c}', 'value': '{c}', 'position': [[{a}, {b}], [{b}, {a}]]}}",
    "[{{'action': 'INPUT', 'value': {c}, 'position': [{a}, {b}, {a}, {b}]}}]",
    '<tool_call>{{"name": "computer_use", "arguments": {{"action": "left_click", '
    '"coordinate": [{a}, {b}]}}}}</tool_call>',
    '<tool_call>{{"name": "computer_use", "arguments": {{"action": "{c}", "pixels": {a}, '
    '"time": {b}, "text": {c}, "keys": [{c}], "start_coordinate": [{b}, {a}]}}}}</tool_call>',
    '<tool_call>{{"name": "computer_use", "arguments": "{c}"}}</tool_call>',
    '```json\n[{{"bbox_2d": [{a}, {b}, {a}, {b}], "label": "{c}"}}]\n```',
    '{{"point_2d": [{a}, {b}]}}',
    "({a}, {b})", "[{a}, {b}, {a}, {b}]", "<|box_start|>({a},{b}),({b},{a})<|box_end|>",
    "<point>{a} {b}</point>", "<bbox>{a} {b} {a} {b}</bbox>", "<point>[[{a}, {b}]]</point>",
    "click(({a}, {b}))", "type({c}, into=({a}, {b}), enter={c})",
    "scroll('down', {a}, at=({a}, {b}, {b}, {a}))", "wait({a})", "run_skill('s', x={a}, y={c})",
    "{c}({a})", "drag({c}, ({a}, {b}))", "hotkey({c})", "Action: click({c})", "1. {c}\n2. {a}",
)
# A model family's coordinate convention per adapter (ui-tars has two).
CONVENTIONS = {"ui-tars": ("absolute-resized", "relative-1000"), "showui": ("relative-1",),
               "grounding-point": ("relative-1000",), "qwen2.5-vl": ("absolute-resized",),
               "gui-agent": ("absolute",)}
SIZES = ((1280, 800), (3840, 2160), (7, 3))


def _parsers() -> list[tuple[str, object, ImageFrame | None]]:
    out: list[tuple[str, object, ImageFrame | None]] = []
    for name in ADAPTER_NAMES:
        adapter = get_adapter(name)
        out.append((name, adapter, None))
        for convention in CONVENTIONS[name]:
            out.extend((name, adapter, ImageFrame.resized(w, h, convention)) for w, h in SIZES)
    return out


PARSERS = _parsers()


class Executed(BaseException):
    """Raised by a booby-trapped function: BaseException so no `except Exception` hides it."""


@contextlib.contextmanager
def no_execution(calls: list[str]) -> Iterator[None]:
    """eval, exec, os.system, os.popen and subprocess.Popen record and refuse any call."""
    def trap(name: str):
        def refuse(*args: object, **kwargs: object) -> None:
            calls.append(name)
            raise Executed(name)
        return refuse

    with contextlib.ExitStack() as stack:
        for owner, name in ((builtins, "eval"), (builtins, "exec"), (os, "system"), (os, "popen"),
                            (subprocess, "Popen")):
            stack.enter_context(mock.patch.object(owner, name, trap(f"{owner.__name__}.{name}")))
        yield


def _inside(point: Point, frame: ImageFrame) -> bool:
    return 0 <= point.x < frame.image_width and 0 <= point.y < frame.image_height


def read_everywhere(text: str) -> tuple[int, int]:
    """Every parser on ``text``: (replies read, replies refused). Fails on anything else."""
    read = refused = 0
    for name, adapter, frame in PARSERS:
        try:
            reply = adapter.parse(text, frame)  # type: ignore[attr-defined]
        except GuiAgentError as exc:
            assert str(exc), name
            refused += 1
            continue
        assert isinstance(reply, ModelReply) and reply.actions and reply.raw == text, name
        for action in reply.actions:
            assert isinstance(action, Action), name
            for value in target_fields(action).values():
                if frame is None or name == "gui-agent" and isinstance(value, str):
                    continue
                if isinstance(value, Point):
                    assert _inside(value, frame), (name, text[:80], value)
                elif isinstance(value, Box):
                    assert value.left >= 0 and value.top >= 0, (name, value)
                    assert value.right <= frame.image_width, (name, value)
                    assert value.bottom <= frame.image_height, (name, value)
        read += 1
        point_reader = getattr(adapter, "parse_point", None)
        if point_reader is not None and frame is not None:
            with contextlib.suppress(GuiAgentError):
                assert _inside(point_reader(text, frame), frame)
    for reader in (parse_action, parse_plan):
        try:
            reader(text)
            read += 1
        except GuiAgentError:
            refused += 1
    return read, refused


def fuzz(text: str, calls: list[str]) -> None:
    with no_execution(calls):
        read_everywhere(text)
    assert calls == [] and not SENTINEL.exists(), (calls, text[:200])


def test_arbitrary_text():
    SENTINEL.unlink(missing_ok=True)
    calls: list[str] = []
    tried: list[str] = []

    @settings(max_examples=500, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(st.text(max_size=300))
    def check(text: str) -> None:
        tried.append(text)
        fuzz(text, calls)

    check()
    print(f"\n{len(tried)} arbitrary replies x {len(PARSERS) + 2} parsers: "
          f"{len(calls)} code executions")


FRAGMENT = st.one_of(
    st.sampled_from(NUMBERS), st.sampled_from(PAYLOADS), st.sampled_from(UNICODE),
    st.integers().map(str), st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.builds(lambda ch, n: ch * n, st.sampled_from("[({<'\"\\"), st.integers(1, 3000)),
    st.text(max_size=30),
)


def test_structured_hostile_replies():
    SENTINEL.unlink(missing_ok=True)
    calls: list[str] = []
    tried: list[str] = []

    @settings(max_examples=1000, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(st.sampled_from(TEMPLATES), FRAGMENT, FRAGMENT, FRAGMENT)
    def check(template: str, a: str, b: str, c: str) -> None:
        text = template.format(a=a, b=b, c=c)
        tried.append(text)
        fuzz(text, calls)

    check()
    print(f"\n{len(tried)} structured hostile replies x {len(PARSERS) + 2} parsers: "
          f"{len(calls)} code executions")


def _corpus() -> list[str]:
    """Deterministic hostile replies: every template with every payload, number and oddity."""
    replies: list[str] = list(PAYLOADS) + list(BRACKETS) + list(UNICODE) + list(NUMBERS)
    for template in TEMPLATES:
        for payload in PAYLOADS:
            replies.append(template.format(a="1", b="2", c=payload))
            replies.append(template.format(a=payload, b="2", c="x"))
        for number in NUMBERS:
            replies.append(template.format(a=number, b="5", c="x"))
            replies.append(template.format(a="5", b=number, c=number))
        for odd in (*UNICODE, "[" * 3000, "(" * 3000, "{" * 3000, "'" * 3000, "\\" * 3000):
            replies.append(template.format(a=odd, b="1", c=odd))
    # out of range, by a little (clamped) and by a lot (refused), in every convention
    for x, y in ((-1, -1), (-10**6, 5), (1.06, 0.5), (1001, 1000), (1e6, 1e6), (-0.0, 1e-300)):
        replies += [t.format(a=x, b=y, c="x") for t in TEMPLATES]
    replies.append("Thought: " + "x" * 1_000_000 + "\nAction: click(start_box='(1,1)')")
    for template in (TEMPLATES[0], TEMPLATES[10], TEMPLATES[13], "click(({a}, {b}))"):  # near the cap
        replies.append(template.format(a="[" * 30_000, b="(" * 30_000, c="{" * 30_000))
    return replies


def test_hostile_reply_corpus_executes_nothing():
    """The README's figures: hostile replies tried, code executions (0), tracebacks (0)."""
    SENTINEL.unlink(missing_ok=True)
    corpus = _corpus()
    calls: list[str] = []
    read = refused = 0
    slowest = 0.0
    with no_execution(calls):
        for text in corpus:
            started = time.perf_counter()
            r, f = read_everywhere(text)
            slowest = max(slowest, time.perf_counter() - started)
            read, refused = read + r, refused + f
    executed = len(calls) + SENTINEL.exists()
    print(f"\n{len(corpus)} hostile replies x {len(PARSERS) + 2} parsers = {read + refused} reads "
          f"({read} read, {refused} refused): {executed} code executions, 0 tracebacks; "
          f"slowest reply {slowest:.2f} s for all parsers")
    assert executed == 0 and read + refused == len(corpus) * (len(PARSERS) + 2)
    assert (len(corpus), len(PARSERS) + 2) == (3573, 25)   # quoted in the README: change both together
    assert slowest < 10  # bounded work even on 100k brackets and a 1 MB reply


def test_the_traps_would_catch_an_execution():
    """The checks can fail: the traps are live, and the payloads do create the sentinel."""
    calls: list[str] = []
    with no_execution(calls):
        for call in (lambda: builtins.eval("1"), lambda: builtins.exec("1"),
                     lambda: os.system("true"), lambda: os.popen("true"),
                     lambda: subprocess.Popen(["true"])):
            with pytest.raises(Executed):
                call()
    assert calls == ["builtins.eval", "builtins.exec", "os.system", "os.popen", "subprocess.Popen"]
    python = [p for p in PAYLOADS if not p.startswith(("$", "`", ";", "{"))]
    for payload in python:
        SENTINEL.unlink(missing_ok=True)
        process = eval(payload, {"os": os})  # noqa: S307 - on purpose, outside the parsers
        if isinstance(process, subprocess.Popen):
            process.wait()
        with contextlib.suppress(AttributeError, TypeError):
            process.close()
        assert SENTINEL.exists(), payload
    SENTINEL.unlink(missing_ok=True)
