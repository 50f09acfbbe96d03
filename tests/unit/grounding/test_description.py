import pytest

from gui_agent.grounding.description import QUOTES, parse_description
from gui_agent.grounding.text_evidence import is_mention
from gui_agent.parsing.elements import ElementKind as K
from gui_agent.planner.clauses import mask_quotes


@pytest.mark.parametrize("text, expected, kinds, quoted", [
    ('the "Save" button', "Save", {K.BUTTON}, True),
    ("Save button", "Save", {K.BUTTON}, False),
    ("the Save button", "Save", {K.BUTTON}, False),
    ("OK", "OK", set(), False),
    ("the Text button", "Text", {K.BUTTON}, False),
    ("the 'Don't save' button", "Don't save", {K.BUTTON}, True),
    ("the Remember me check box", "Remember me", {K.CHECKBOX}, False),
    ("Theme dropdown", "Theme", {K.COMBO}, False),
    ("the Search box", "Search", {K.TEXT_FIELD}, False),
    ("Open button", "Open", {K.BUTTON}, False),
    ("click on the Print button", "Print", {K.BUTTON}, False),
])
def test_text_and_roles(text, expected, kinds, quoted):
    q = parse_description(text)
    assert (q.text, set(q.kinds), q.quoted) == (expected, kinds, quoted)


@pytest.mark.parametrize("text, ordinal, kinds", [
    ("the 2nd text field", 2, {K.TEXT_FIELD}),
    ("the second checkbox", 2, {K.CHECKBOX}),
    ("the last button", -1, {K.BUTTON}),
    ("the first link", 1, {K.LINK}),
    ("the second to last button", -2, {K.BUTTON}),
    ("the 1st input textbox", 1, {K.TEXT_FIELD}),     # MiniWoB focus-text-2: "input" was a name
    ("the 3rd input box", 3, {K.TEXT_FIELD}),
])
def test_ordinals(text, ordinal, kinds):
    q = parse_description(text)
    assert (q.text, q.ordinal, set(q.kinds)) == ("", ordinal, kinds)


def test_last_name_is_a_label_not_an_ordinal():
    q = parse_description("the Last name field")
    assert q.ordinal is None and q.text == "Last name" and q.wants_labelled


@pytest.mark.parametrize("text, kind, anchor", [
    ("the field right of Name", "right_of", "Name"),
    ('the field to the right of "Email:"', "right_of", "Email:"),
    ("the button left of Cancel", "left_of", "Cancel"),
    ("the item below Inbox", "below", "Inbox"),
    ("the field under Name", "below", "Name"),
    ("the link above Help", "above", "Help"),
    ("the checkbox next to Remember me", "next_to", "Remember me"),
    ("the icon beside Print", "next_to", "Print"),
    ("the button near Help", "near", "Help"),
])
def test_relations(text, kind, anchor):
    q = parse_description(text)
    assert len(q.relations) == 1
    assert (q.relations[0].kind, q.relations[0].anchor.text) == (kind, anchor)


def test_relation_anchor_keeps_its_role():
    q = parse_description("the button below the Email field")
    assert q.kinds == {K.BUTTON} and q.relations[0].anchor.kinds == {K.TEXT_FIELD}


def test_containers_and_labels():
    q = parse_description("the OK button in the Settings dialog")
    assert (q.text, q.container) == ("OK", "Settings")
    assert parse_description("OK in the dialog").container == ""
    q = parse_description("the field for Name")
    assert (q.text, q.by_label, set(q.kinds)) == ("Name", True, {K.TEXT_FIELD})
    assert parse_description("the Name field").wants_labelled
    assert not parse_description("the Save button").wants_labelled


def test_role_words_kept_in_the_spelled_name():
    q = parse_description("Tab #2")
    assert (q.text, set(q.kinds), q.spelled) == ("#2", {K.TAB}, "Tab #2")
    assert parse_description("OK").spelled == ""


@pytest.mark.parametrize("text, kinds, rest", [
    ("the list", {K.COMBO}, ""),
    ("the spinner", {K.TEXT_FIELD}, ""),
    ("the Color list", {K.COMBO}, "Color"),
    ("the Shopping list button", {K.BUTTON}, "Shopping list"),   # weak role after a real one
])
def test_weak_role_words(text, kinds, rest):
    q = parse_description(text)
    assert (set(q.kinds), q.text) == (kinds, rest)


@pytest.mark.parametrize("quote", QUOTES, ids=[q.opener for q in QUOTES])
def test_the_planner_and_grounding_read_the_same_quotes(quote):
    written = f"{quote.opener}Save as{quote.closers[0]}"
    q = parse_description(f"the {written} button")
    assert (q.text, q.quoted, set(q.kinds)) == ("Save as", True, {K.BUTTON})
    assert mask_quotes(f"click {written}")[1] == (("Save as", written),)
    assert is_mention(f"Click {written} to continue", 6, 6 + len(written))


def test_a_quote_mark_that_opens_does_not_make_the_word_before_it_a_mention():
    for text in ("Click \u201eSave\u201c", "Click \u00abSave\u00bb", "Click \u2018Save\u2019"):
        assert not is_mention(text, 0, 5), text
