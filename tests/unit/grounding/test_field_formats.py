"""The kind of value a field takes, read from what it shows: a date or a time, or the pattern an
empty browser input shows."""

from __future__ import annotations

import pytest

from gui_agent.geometry import Box
from gui_agent.grounding.description import parse_description
from gui_agent.grounding.field_formats import formatted_fields
from gui_agent.parsing.elements import Element, ElementKind


def _field(text: str) -> Element:
    return Element(ElementKind.TEXT_FIELD, Box(10, 10, 200, 40), text, 1.0, "detector")


@pytest.mark.parametrize("kind, shown", [
    ("date", "mm/dd/yyyy"), ("date", "mm/ dd/ yyyy"), ("date", "01/17/2013"), ("date", "2013-01-17"),
    ("date", "17.01.2013"), ("time", "--:-- --"), ("time", "--.-- --"), ("time", "12:04 AM"),
    ("time", "14:30"), ("time", "hh:mm")])
def test_a_field_showing_a_date_or_a_time_answers_to_its_kind(kind, shown):
    found = formatted_fields(parse_description(f"the {kind} field"), [_field(shown)])
    assert len(found) == 1 and found[0].box.left < 40     # clicked on its first part


@pytest.mark.parametrize("kind, shown", [("date", "Ann Lee"), ("date", "12:04"), ("time", "01/17/2013"),
                                         ("time", "Lunch"), ("date", "")])
def test_other_texts_do_not(kind, shown):
    assert formatted_fields(parse_description(f"the {kind} field"), [_field(shown)]) == []


def test_only_date_and_time_have_formats():
    assert formatted_fields(parse_description("the name field"), [_field("mm/dd/yyyy")]) == []
