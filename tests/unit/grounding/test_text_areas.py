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
