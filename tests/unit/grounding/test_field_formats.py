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


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", [12, 16])
def test_a_field_whose_own_icon_looks_like_a_clock_or_a_magnifier_answers_to_it(theme, size):
    """An empty time input shows no readable pattern, only its clock; a search box its
    magnifier. The time input is clicked on its first part and typed part by part."""
    from PIL import Image, ImageDraw, ImageFont

    from gui_agent.errors import TargetNotFound
    from gui_agent.grounding.default import default_ladder
    from gui_agent.parsing.icon_fonts import FONTS
    from gui_agent.screen.observation import Observation
    from tests.support.pillow_form import THEMES, font
    from tests.support.requirements import require_icon_fonts

    require_icon_fonts()
    t = THEMES[theme]
    img = Image.new("RGB", (520, 300), t["bg"])
    d = ImageDraw.Draw(img)
    d.text((20, 14), "Fill in the form.", font=font(15), fill=t["fg"])
    awesome = ImageFont.truetype(str(FONTS[0].font), size)
    fields = {}
    for n, (name, glyph) in enumerate((("time", "\uf017"), ("search", "\uf002"), ("plain", ""))):
        box = Box(20, 60 + n * 70, 240, 2 * size + 12)
        d.rectangle((box.left, box.top, box.right, box.bottom), fill=t["field"], outline=t["border"])
        if glyph:
            d.text((box.right - size - 10, box.top + 6 + size // 4), glyph, font=awesome, fill=t["fg"])
        fields[name] = box
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    time_field = ladder.resolve("the time field", obs)
    assert fields["time"].contains(time_field.point) and time_field.point.x < fields["time"].left + 40
    assert time_field.segmented
    search = ladder.resolve("the search field", obs)
    assert fields["search"].contains(search.point) and not search.segmented
    with pytest.raises(TargetNotFound):
        ladder.resolve("the date field", obs)
