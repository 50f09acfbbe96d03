"""A name that holds an ordinal or a role word is a name first: 'Copy Last Result' is the menu
item reading so, not "the last result named Copy" (which clicked "Copy", copied nothing, and
was reported done)."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.ladder import literal_reading
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
