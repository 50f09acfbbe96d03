"""The action space: canonical text round-trips, and arbitrary text only ever raises ActionParseError."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_agent.actions import (
    AskUser,
    Click,
    Done,
    Drag,
    Fail,
    Hotkey,
    Move,
    OpenApp,
    Resize,
    RunSkill,
    Scroll,
    Type,
    Wait,
    format_action,
    parse_action,
)
from gui_agent.errors import ActionParseError
from gui_agent.geometry import Box, Point

texts = st.text(min_size=1, max_size=40).filter(lambda s: s.strip())
coords = st.integers(min_value=-5000, max_value=10000)
points = st.builds(Point, coords, coords)
boxes = st.builds(
    lambda x, y, w, h: Box(x, y, w, h), coords, coords,
    st.integers(1, 3000), st.integers(1, 3000),
)
targets = st.one_of(texts, points, boxes)
key_names = st.sampled_from(["ctrl", "shift", "alt", "s", "enter", "f4", "tab", "cmd", "a"])

actions = st.one_of(
    st.builds(Click, targets, st.sampled_from(["left", "right", "middle"]), st.integers(1, 3)),
    st.builds(Type, st.text(max_size=40), st.one_of(st.none(), targets), st.booleans(), st.booleans()),
    st.builds(lambda ks: Hotkey(tuple(ks)), st.lists(key_names, min_size=1, max_size=3)),
    st.builds(Scroll, st.sampled_from(["up", "down", "left", "right"]), st.integers(1, 100),
              st.one_of(st.none(), targets)),
    st.builds(Drag, targets, targets),
    st.builds(Resize, targets, st.sampled_from([0.5, 0.67, 1.5, 2.0]), st.sampled_from([1.0, 0.5, 1.5])),
    st.builds(Move, targets),
    st.builds(Wait, st.floats(min_value=0, max_value=3600, allow_nan=False)),
    st.builds(OpenApp, texts),
    st.builds(lambda n, p: RunSkill(n, tuple(p.items())), texts,
              st.dictionaries(st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True),
                              st.one_of(st.text(max_size=10), st.integers(-100, 100), st.booleans()),
                              max_size=3)),
    st.builds(Done, st.one_of(st.none(), st.text(max_size=20))),
    st.builds(Fail, st.text(max_size=30)),
    st.builds(AskUser, st.text(max_size=30)),
)


@settings(max_examples=400, deadline=None)
@given(actions)
def test_parse_of_format_is_identity(action):
    assert parse_action(format_action(action)) == action


@settings(max_examples=600, deadline=None)
@given(st.text(max_size=120))
def test_arbitrary_text_raises_only_action_parse_error(text):
    with contextlib.suppress(ActionParseError):
        parse_action(text)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["click", "type", "hotkey", "scroll", "drag", "wait", "run_skill", "done"]),
       st.text(alphabet="()[]{},'\"=0123456789.-+ eaxTrueNn_*:", max_size=40))
def test_call_shaped_garbage_raises_only_action_parse_error(verb, args):
    with contextlib.suppress(ActionParseError):
        parse_action(f"{verb}({args})")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('click("Save")', Click("Save")),
        ("click((10, 20))", Click(Point(10, 20))),
        ("click((10, 20, 30, 60), button='right')", Click(Box(10, 20, 20, 40), button="right")),
        ('click(target="OK", clicks=2)', Click("OK", clicks=2)),
        ('type("Ann", into="the Name field", enter=True)', Type("Ann", into="the Name field", enter=True)),
        ("hotkey('Ctrl', 'S')", Hotkey(("ctrl", "s"))),
        ("hotkey(['alt', 'f4'])", Hotkey(("alt", "f4"))),
        ("scroll('down', amount=5)", Scroll("down", 5)),
        ("wait(2)", Wait(2.0)),
        ("run_skill('login', user='ann')", RunSkill("login", (("user", "ann"),))),
        ("resize('the text area', width=1.5)", Resize("the text area", width=1.5)),
        ("done()", Done()),
    ],
)
def test_parses_known_forms(text, expected):
    assert parse_action(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("rm -rf /", "not an action"),
        ("__import__('os').system('x')", "expected a call"),
        ("click(open('x'))", "literal"),
        ("launch('x')", "unknown action"),
        ("click()", "missing"),
        ("click('')", "empty"),
        ("click('a', button='top')", "button"),
        ("scroll('sideways')", "direction"),
        ("type('a', colour=1)", "unknown argument"),
        ("click('a', clicks=2.5)", "whole number"),
        ("wait(-1)", "seconds"),
        ("click(**{'a': 1})", "**"),
        ("resize('the text area')", "other than 1"),
        ("resize('the text area', width=9)", "between 0.25 and 4"),
    ],
)
def test_rejects_with_clear_message(text, message):
    with pytest.raises(ActionParseError, match=message.replace("*", r"\*").replace("(", r"\(")):
        parse_action(text)


def test_a_click_with_a_held_key_reads_writes_and_holds_it_round_the_click_only():
    from gui_agent.actions import Click, format_action, parse_action
    from gui_agent.control.dry_run import DryRunController
    from gui_agent.errors import ActionParseError
    from gui_agent.executor import perform
    from gui_agent.geometry import Point

    action = parse_action("click('\"Rachael\"', hold='ctrl')")
    assert action == Click('"Rachael"', hold="ctrl") and parse_action(format_action(action)) == action
    assert format_action(Click("OK")) == "click('OK')"
    with pytest.raises(ActionParseError, match="hold must be one of"):
        parse_action("click('OK', hold='alt')")
    controller = DryRunController()
    perform(action, {"target": Point(40, 50)}, controller)
    assert [e.method for e in controller.log] == ["key_down", "click", "key_up"]
    controller.clear()
    perform(Click("OK"), {"target": Point(40, 50)}, controller)
    assert [e.method for e in controller.log] == ["click"]
