"""'the link "sed"' is a word drawn as a link (in a colour, or unlike the words around it, or
underlined), not the same word written plainly in a line of body text; the plain word is no
candidate, so the page is explored further. Pillow paragraphs, two themes, two fonts, real OCR."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.errors import TargetNotFound
from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font

FONTS = ("dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf")
LINK = {"light": (0, 0, 238), "dark": (110, 170, 255)}


def _paragraph(theme: str, font_name: str, lines: list[list[tuple[str, str]]]) -> tuple[Image.Image, dict[str, Box]]:
    """Lines of words, each (word, style): "plain", "link" (the link colour), "underlined"
    (body colour, underlined); the boxes of the styled words."""
    c = THEMES[theme]
    img = Image.new("RGB", (460, 40 + 34 * len(lines)), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(20, font_name)
    boxes: dict[str, Box] = {}
    for row, words in enumerate(lines):
        x, y = 20, 24 + 34 * row
        for word, style in words:
            colour = LINK[theme] if style == "link" else c["fg"]
            d.text((x, y), word, fill=colour, font=f)
            width = int(d.textlength(word, font=f))
            if style != "plain":
                boxes[word] = Box(x, y, width, 24)
            if style in ("link", "underlined"):
                d.line([x, y + 23, x + width, y + 23], fill=colour, width=1)
            x += width + int(d.textlength(" ", font=f))
    return img, boxes


LINES = [[("Adipiscing", "plain"), ("sed", "plain"), ("est", "plain"), ("porta", "plain"), ("felis,", "plain")],
         [("Auctor", "plain"), ("elementum", "plain"), ("rhoncus", "link"), ("lorem", "plain")],
         [("ligula", "plain"), ("risus", "plain"), ("cursus", "underlined"), ("in.", "plain")]]


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
def test_a_link_is_a_word_drawn_as_one_not_a_plain_word(theme, font_name):
    img, boxes = _paragraph(theme, font_name, LINES)
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    assert boxes["rhoncus"].contains(ladder.resolve('the link "rhoncus"', obs).point)
    assert boxes["cursus"].contains(ladder.resolve('the link "cursus"', obs).point)
    with pytest.raises(TargetNotFound):
        ladder.resolve('the link "sed"', obs)
    # without the role word the plain word is still the text asked for
    ladder.resolve('"sed"', obs)
