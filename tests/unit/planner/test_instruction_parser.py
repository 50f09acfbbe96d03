"""The offline planner's reading of explicit instructions: phrasing -> actions (canonical text).

The phrasings and what each must plan are the examples of the language file
(gui_agent/planner/language.yaml); every one of them is checked here.
"""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_agent.actions import format_action, parse_action
from gui_agent.errors import PlanningError
from gui_agent.planner.instruction_parser import (
    mask_quotes,
    parse_instructions,
    split_clauses,
    wanted_state,
)
from gui_agent.planner.language import Example, Refusal, language
from gui_agent.planner.phrases import parse_keys

EXAMPLES = list(language().examples())
REFUSALS = list(language().refusals())


def plan_text(task: str) -> str:
    """Subtasks separated by ' | ', the actions of one subtask by ' ; ' (then expect('X'))."""
    out = []
    for item in parse_instructions(task):
        parts = [format_action(a) for a in item.actions]
        if item.expect is not None:
            parts.append(f"expect({item.expect!r})")
        out.append(" ; ".join(parts))
    return " | ".join(out)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.phrasing[:40] for e in EXAMPLES])
def test_phrasing_becomes_actions(example: Example) -> None:
    assert plan_text(example.phrasing) == example.plan, f"the example at {example.where}"


def test_there_are_many_phrasings() -> None:
    assert len(EXAMPLES) >= 181
    assert len(REFUSALS) >= 34


def test_every_action_round_trips_through_its_text_form() -> None:
    for example in EXAMPLES:
        for item in parse_instructions(example.phrasing):
            for action in item.actions:
                assert parse_action(format_action(action)) == action


@pytest.mark.parametrize("refusal", REFUSALS, ids=[r.phrasing[:30] or "empty" for r in REFUSALS])
def test_what_it_cannot_understand_is_reported(refusal: Refusal) -> None:
    with pytest.raises(PlanningError) as info:
        parse_instructions(refusal.phrasing)
    message = str(info.value)
    for fragment in refusal.names:
        assert fragment in message, f"{refusal.where}: {message}"


def test_a_rewritten_clause_keeps_its_text_as_written() -> None:
    (item,) = parse_instructions('Close the dialog box by clicking the "x".')
    assert item.text == 'Close the dialog box by clicking the "x"'
    first, second = parse_instructions("Navigate through the file tree. Click OK")
    assert (first.text, first.actions) == ("Navigate through the file tree", ())


def test_clause_text_is_kept_as_written() -> None:
    items = parse_instructions("click \u201cOK\u201d, then  press Enter")
    assert [i.text for i in items] == ["click \u201cOK\u201d", "press Enter"]


def test_quotes_are_masked_and_apostrophes_are_not_quotes() -> None:
    masked, quotes = mask_quotes("type 'it's' and don't")
    assert quotes == (("it's", "'it's'"),)
    assert "don't" in masked
    assert len(split_clauses('click "a; b. c, then d"')) == 1


def test_a_full_stop_before_a_lower_case_article_ends_a_word_not_the_sentence() -> None:
    # 'give the text cursus. the color red' was two clauses, "give the text cursus" (a goal)
    # and "the color red"
    (one,) = split_clauses("give the text cursus. the color red.")
    assert one.tokens == ("give", "the", "text", "cursus.", "the", "color", "red")
    assert [c.tokens[0] for c in split_clauses("Click OK. The dialog closes. type hi")] == ["Click", "The", "type"]
    assert [c.tokens for c in split_clauses("click OK. then press Enter")] == [("click", "OK"), ("press", "Enter")]


def test_parse_keys() -> None:
    assert parse_keys("Ctrl + Shift + Esc") == ("ctrl", "shift", "esc")
    assert parse_keys("cmd-s") == ("command", "s")
    assert parse_keys("the Return key") == ("enter",)
    assert parse_keys("Save") is None


def test_wanted_state_for_toggles() -> None:
    assert wanted_state('check "Remember me"') is True
    assert wanted_state("untick Newsletter") is False
    assert wanted_state("expand Documents") is True
    assert wanted_state('click "Remember me"') is None


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=120))
def test_arbitrary_text_raises_only_planning_errors(text: str) -> None:
    with contextlib.suppress(PlanningError):
        parse_instructions(text)


_WORDS = st.sampled_from([
    "click", "type", "press", "and", "then", ",", ".", ";", '"', "'", "\u201c", "\u201d", "OK",
    "into", "in", "the", "Name", "field", "from", "select", "check", "wait", "for", "2", "s",
    "scroll", "down", "drag", "to", "log", "as", "password", "open", "menu", "Enter", "ctrl+s",
    "times", "twice", "with", "fill", "clear", "by", "app", "\n", "hover", "over", ">",
    "clicking", "both", "all", "fields", "use", "nothing", "spinner", "slider", "named", "below",
    "close", "navigate", "through", "find", "copy", "paste", "it", "as", "lower", "case", "set",
    "highlight", "list", "dialog", "box", "widget", "password", "two", "A>B", '"x"',
])


@settings(max_examples=400, deadline=None)
@given(st.lists(_WORDS, max_size=14))
def test_instruction_like_text_raises_only_planning_errors(words: list[str]) -> None:
    try:
        for item in parse_instructions(" ".join(words)):
            for action in item.actions:
                assert parse_action(format_action(action)) == action
    except PlanningError:
        pass
