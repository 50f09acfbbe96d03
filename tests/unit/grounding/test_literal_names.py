"""A name that holds an ordinal or a role word is a name first: 'Copy Last Result' is the menu
item reading so, not "the last result named Copy" (which clicked "Copy", copied nothing, and
was reported done)."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.description import parse_description
from gui_agent.grounding.ladder import literal_reading
from gui_agent.grounding.name_matches import direct_matches
from gui_agent.parsing.elements import Element, ElementKind
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import font

FONTS = ("dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf")
ITEMS = ("Cut", "Copy", "Paste", "Copy Last Result", "Select All", "Clear Last Entry")


def _menu(font_name: str, scale: float, dark: bool) -> tuple[Image.Image, dict[str, Box]]:
    s = scale
    bg, fg = ((45, 45, 48), (230, 230, 230)) if dark else ((246, 246, 246), (20, 20, 20))
    img = Image.new("RGB", (int(300 * s), int(220 * s)), bg)
    d = ImageDraw.Draw(img)
    f = font(int(14 * s), font_name)
    boxes = {}
    for i, item in enumerate(ITEMS):
        x, y = int(16 * s), int((10 + 32 * i) * s)
        d.text((x, y), item, fill=fg, font=f)
        boxes[item] = Box.from_corners(*d.textbbox((x, y), item, font=f))
    return img, boxes


@pytest.mark.parametrize("font_name", FONTS)
@pytest.mark.parametrize(("scale", "dark"), [(1.0, False), (2.0, True)])
def test_a_whole_name_on_the_screen_wins_over_its_words_read_as_a_role(font_name, scale, dark):
    img, boxes = _menu(font_name, scale, dark)
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    for name in ("Copy Last Result", "Clear Last Entry"):
        found = ladder.resolve(name, obs)
        assert boxes[name].expand(4).contains(found.point), (name, found)
    found = ladder.resolve("Copy", obs)            # the one-word item is still itself
    assert boxes["Copy"].expand(4).contains(found.point)


def test_only_names_read_as_a_role_or_an_ordinal_are_tried_whole():
    assert literal_reading("Copy Last Result") == '"Copy Last Result"'
    assert literal_reading("the last result") is None        # a description, not a label
    assert literal_reading("button TWO") is None             # a role, then a name
    assert literal_reading("Save As") is None                # nothing was read as a role
    assert literal_reading('"Copy Last Result"') is None     # already quoted
    assert literal_reading("Result") is None                 # one word


def test_a_word_of_two_buttons_read_as_one_line_is_clicked_where_it_is_written():
    """Two bordered buttons side by side were read as one line "Previous cancel": the click
    for "cancel" went to the middle of the line, the edge of "Previous"."""
    from gui_agent.grounding.description import parse_description
    from gui_agent.grounding.name_matches import direct_matches
    from gui_agent.parsing.elements import Element, ElementKind

    both = Element(ElementKind.BUTTON, Box(4, 104, 244, 41), text="Previous cancel", source="ocr")
    found = direct_matches(parse_description('the "cancel" button'), [both])
    assert len(found) == 1 and found[0].box.center.x > 4 + 244 * 0.55, found
    alone = Element(ElementKind.BUTTON, Box(4, 104, 60, 41), text="Save draft", source="ocr")
    assert direct_matches(parse_description('the "draft" button'), [alone])[0].box == alone.box


def test_one_symbol_of_a_key_s_caption_is_not_that_key():
    """"/" inside a key captioned "+/-" names another key (it tied with the "/" key found by its
    drawing; "-" of the backspace key "<-" was clicked for a minus); the same run read as text
    may be a row of keys, each one of them."""
    key = Element(ElementKind.BUTTON, Box(10, 10, 59, 34), "+/-")
    row = Element(ElementKind.TEXT, Box(10, 60, 59, 34), "+/-")
    scored = {s.element.kind: s.score for s in direct_matches(parse_description('"/"'), [key, row])}
    assert ElementKind.TEXT in scored and ElementKind.BUTTON not in scored, scored
    back = Element(ElementKind.BUTTON, Box(10, 10, 59, 34), "<-")       # backspace is no minus
    assert direct_matches(parse_description('"-"'), [back]) == []


def test_what_a_field_holds_is_not_its_name():
    """'click "3"' on a calculator whose display shows 3: the key, not the display (they tied,
    and the display was clicked once; with the key hidden under a tooltip, the display alone was
    clicked); a field asked for as a field is still found by its text, and a button the parser
    took for a field (its caption in its middle) by its caption."""
    import numpy as np

    image = Image.new("RGB", (360, 200), (240, 240, 240))
    d = ImageDraw.Draw(image)
    d.rectangle([10, 10, 309, 59], fill=(255, 255, 255), outline=(120, 120, 120))
    d.text((280, 20), "3", fill=(0, 0, 0), font=font(24))
    d.rectangle([10, 80, 68, 113], fill=(222, 222, 226), outline=(120, 120, 120))
    d.text((33, 86), "3", fill=(0, 0, 0), font=font(16))
    rgb = np.asarray(image)
    display = Element(ElementKind.TEXT_FIELD, Box(10, 10, 300, 50), "3")
    key = Element(ElementKind.BUTTON, Box(10, 80, 59, 34), "3")
    face = Element(ElementKind.TEXT_FIELD, Box(10, 80, 59, 34), "3")
    scored = {s.element.kind: s.score for s in direct_matches(parse_description("3"), [display, key], rgb=rgb)}
    assert scored[ElementKind.BUTTON] > scored[ElementKind.TEXT_FIELD], scored
    assert direct_matches(parse_description('"3"'), [display], rgb=rgb) == []     # quoted: a name only
    assert [s.element for s in direct_matches(parse_description('"3"'), [face], rgb=rgb)] == [face]
    field = direct_matches(parse_description('the "3" field'), [display, key], rgb=rgb)
    assert max(field, key=lambda s: s.score).element is display
