"""Paragraphs are blocks of lines: 'the 3rd paragraph' is the third block set apart by a blank
line, not the third line, and 'the paragraph' is the one block of wrapped lines, read whole
('the 5th word of the paragraph'). Pillow pages, two themes, two fonts, real OCR."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.queries import ScreenQueries
from gui_agent.planner.reading import read_value
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font

FONTS = ["dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf"]
BLOCKS = [["Vivamus et facilisi in velit.", "Urna fermentum."],
          ["Mi sit enim nibh faucibus.", "Platea augue."],
          ["Libero commodo malesuada.", "Egestas dictumst."]]


def _page(blocks: list[list[str]], theme: str, font_name: str, blank: bool = True) -> tuple[Image.Image, list[Box]]:
    c = THEMES[theme]
    img = Image.new("RGB", (420, 360), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(20, font_name)
    y, boxes = 30, []
    for lines in blocks:
        top = y
        for line in lines:
            d.text((24, y), line, fill=c["fg"], font=f)
            y += 26
        boxes.append(Box(24, top, 360, y - top))
        y += 26 if blank else 0
    return img, boxes


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
def test_the_nth_paragraph_is_the_nth_block_of_lines(theme, font_name):
    img, boxes = _page(BLOCKS, theme, font_name)
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    for n, word in ((1, "1st"), (2, "2nd"), (3, "3rd")):
        point = ladder.resolve(f"the {word} paragraph", obs).point
        assert boxes[n - 1].contains(point), (n, point)


@pytest.mark.parametrize("font_name", FONTS)
def test_a_wrapped_paragraph_is_one_text_read_whole(font_name):
    img, _ = _page([["Dolor amet semper cras quis", "turpis cursus viverra eu", "ullamcorper lorem"]],
                   "light", font_name)
    ladder, parser = default_ladder()
    queries = ScreenQueries(ladder, parser)
    obs = Observation.from_image(img)
    assert read_value("the 5th word of the paragraph", lambda d: queries.shown_text(d, obs)) == "quis"
    assert read_value("the 7th word of the paragraph", lambda d: queries.shown_text(d, obs)) == "cursus"
    assert read_value("the last word of the paragraph", lambda d: queries.shown_text(d, obs)) == "lorem"


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", ["dejavu/DejaVuSansMono.ttf", "liberation/LiberationMono-Regular.ttf"])
def test_a_text_areas_lines_are_its_text(theme, font_name):
    """A framed text area holding several lines: what it shows is its lines in order, not the
    one line a direct read of the whole box would make of them (none)."""
    c = THEMES[theme]
    img = Image.new("RGB", (360, 300), c["bg"])
    d = ImageDraw.Draw(img)
    d.rectangle([12, 40, 330, 240], fill=c["field"], outline=c["border"], width=2)
    lines = ["in. Blandit diam", "quisque. Massa lacus", "urna, morbi tortor enim", "volutpat cursus.",
             "Senectus purus", "lectus ullamcorper."]
    for i, line in enumerate(lines):
        d.text((20, 46 + 30 * i), line, fill=c["fg"], font=font(18, font_name))
    d.rectangle([12, 256, 260, 286], fill=c["field"], outline=c["border"], width=2)
    ladder, parser = default_ladder()
    queries = ScreenQueries(ladder, parser)
    obs = Observation.from_image(img)
    assert read_value("the last word of the text area", lambda d: queries.shown_text(d, obs)) == "ullamcorper"
    assert read_value("the first word of the text area", lambda d: queries.shown_text(d, obs)) == "in"
