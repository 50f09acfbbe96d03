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
