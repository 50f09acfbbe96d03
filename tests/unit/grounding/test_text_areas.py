"""A one-line field and a text area are told apart by their height relative to each other, so a
short two-row text area (under the absolute multi-line height) is still no 'text input'."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.grounding.default import default_ladder
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font

FONTS = ("dejavu/DejaVuSansMono.ttf", "liberation/LiberationMono-Regular.ttf")


def _form(theme: str, font_name: str, scale: float) -> tuple[Image.Image, list[tuple[int, int]]]:
    """Two two-row text areas, then a one-line field; returns the image and each box's rows."""
    c = THEMES[theme]
    img = Image.new("RGB", (int(340 * scale), int(300 * scale)), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(int(11 * scale), font_name)
    rows = []
    top = int(20 * scale)
    for lines, height in ((["Lorem ipsum dolor", "sit amet tempus"], 31), (["Vitae viverra", "placerat odio"], 31),
                          ([], 21)):
        h = int(height * scale)
        d.rectangle([int(10 * scale), top, int(260 * scale), top + h], fill=c["field"], outline=c["border"], width=2)
        for i, line in enumerate(lines):
            d.text((int(15 * scale), top + int(2 * scale) + i * int(14 * scale)), line, fill=c["fg"], font=f)
        rows.append((top, top + h))
        top += h + int(12 * scale)
    return img, rows


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
@pytest.mark.parametrize("scale", [1.0, 2.0])
def test_the_text_input_is_the_one_line_field(theme, font_name, scale):
    img, rows = _form(theme, font_name, scale)
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    field = ladder.resolve("the text input", obs)
    assert rows[2][0] <= field.point.y <= rows[2][1], field
    area = ladder.resolve("the 2nd text area", obs)
    assert rows[1][0] <= area.point.y <= rows[1][1], area


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
def test_a_text_area_whose_letters_look_like_check_boxes_stays_a_text_area(theme, font_name):
    # large monospace text: an "o" or a "q" here and there reads as a lone check box or radio,
    # which must not make the text area a group frame (a column of options would)
    c = THEMES[theme]
    img = Image.new("RGB", (340, 260), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(26, font_name)
    d.rectangle([8, 20, 298, 170], fill=c["field"], outline=c["border"], width=2)
    for i, line in enumerate(("Quisque dui", "tellus nunc id.", "Faucibus quam", "quis etiam arcu", "orci")):
        d.text((12, 22 + 31 * i), line, fill=c["fg"], font=f)
    d.rectangle([8, 190, 262, 230], fill=c["field"], outline=c["border"], width=2)
    ladder, _ = default_ladder()
    area = ladder.resolve("the textarea", Observation.from_image(img))
    assert 20 <= area.point.y <= 170, area


def _editor(theme: str, font_name: str) -> tuple[Image.Image, tuple[int, int, int, int]]:
    """A rich-text editor at twice the size: a tool bar taller than a line field (a colour "A"
    over a bar, "B", "I") over the text area, whose two lines, flush left, fill it nearly
    from top to bottom. Returns the image and the text area's box."""
    c = THEMES[theme]
    img = Image.new("RGB", (340, 340), c["bg"])
    d = ImageDraw.Draw(img)
    d.rectangle([4, 10, 320, 80], fill=c["field"], outline=c["border"], width=2)              # the tool bar
    d.text((34, 44), "A", fill=c["fg"], font=font(30, font_name), anchor="mm")
    d.rectangle([22, 62, 46, 66], fill=(200, 40, 40))
    d.text((94, 44), "B", fill=c["fg"], font=font(30, font_name), anchor="mm")
    d.text((150, 44), "I", fill=c["fg"], font=font(30, font_name), anchor="mm")
    d.rectangle([4, 80, 320, 212], fill=c["field"], outline=c["border"], width=2)             # the text area
    for k, line in enumerate(("Pellentesque ultricies", "cursus.")):
        d.text((36, 112 + 38 * k), line, fill=c["fg"], font=font(26, font_name))
    return img, (4, 80, 320, 212)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", ("dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf"))
def test_the_text_area_is_the_editors_not_its_tool_bar_nor_a_button(theme, font_name):
    # two short lines flush left that nearly fill a text area's height read as a big button's
    # centred caption, and a tool bar as tall as a text area was one too: 'the text area' was
    # not found, or ambiguous
    img, (left, top, right, bottom) = _editor(theme, font_name)
    ladder, _ = default_ladder()
    point = ladder.resolve("the text area", Observation.from_image(img)).point
    assert left < point.x < right and top < point.y < bottom, point
