"""An editor's text colour button is an "A" over a bar: found in a toolbar of letters (B, I, U),
drawn as a font's letter or as strokes, light and dark; the underline button's "U" over its bar
is not one, nor an underlined "A" inside a line of words."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font

FONTS = ("dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Bold.ttf")


def _toolbar(theme: str, font_name: str, stroked: bool, scale: int = 1) -> tuple[Image.Image, Box]:
    """A toolbar: the colour "A" over a bar, then B, I and an underlined U; a line of text under
    it with an underlined "A" among words. Returns the image and the colour button's box."""
    c = THEMES[theme]
    img = Image.new("RGB", (360 * scale, 160 * scale), c["bg"])
    d = ImageDraw.Draw(img)
    s = scale
    d.rectangle([8 * s, 8 * s, 300 * s, 48 * s], outline=c["border"], width=1)
    x, y = 20 * s, 14 * s
    if stroked:          # as web editors draw it: two strokes to a peak and a crossbar
        d.line([(x + 2 * s, y + 18 * s), (x + 9 * s, y + 2 * s), (x + 16 * s, y + 18 * s)], fill=c["fg"], width=2 * s)
        d.line([(x + 5 * s, y + 12 * s), (x + 13 * s, y + 12 * s)], fill=c["fg"], width=2 * s)
    else:
        d.text((x + 9 * s, y + 10 * s), "A", fill=c["fg"], font=font(20 * s, font_name), anchor="mm")
    d.rectangle([x, y + 22 * s, x + 18 * s, y + 25 * s], fill=(200, 40, 40))     # the bar in its colour
    button = Box(x, y, 18 * s, 26 * s)
    for k, letter in enumerate("BIU"):
        lx = 70 * s + 40 * k * s
        d.text((lx + 9 * s, y + 10 * s), letter, fill=c["fg"], font=font(20 * s, font_name), anchor="mm")
        if letter == "U":
            d.rectangle([lx, y + 22 * s, lx + 18 * s, y + 24 * s], fill=c["fg"])
    f = font(18 * s, font_name)
    d.text((20 * s, 90 * s), "Plan A today", fill=c["fg"], font=f)
    ax = 20 * s + int(d.textlength("Plan ", font=f))
    d.line([ax, 112 * s, ax + int(d.textlength("A", font=f)), 112 * s], fill=c["fg"], width=2 * s)
    return img, button


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
@pytest.mark.parametrize("stroked", [False, True])
def test_the_text_colour_button_is_the_a_over_a_bar(theme, font_name, stroked):
    img, button = _toolbar(theme, font_name, stroked)
    ladder, parser = default_ladder()
    named = [e.box for e in parser.parse(img).elements if "text color" in e.looks_like]
    assert len(named) == 1 and button.contains(named[0].center), named
    assert button.expand(4).contains(ladder.resolve("the text color button", Observation.from_image(img)).point)


def test_at_twice_the_size_too():
    img, button = _toolbar("light", FONTS[0], True, scale=2)
    _, parser = default_ladder()
    named = [e.box for e in parser.parse(img).elements if "text color" in e.looks_like]
    assert len(named) == 1 and button.contains(named[0].center), named
