"""A row of faces whose captions are single glyphs (tabs numbered 1 to 4, a pager's pages):
text detection misses a lone digit, so each captionless face in a row is read on its own.
An icon row stays captionless. Pillow, two themes, two fonts, real OCR."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.parsing.elements import ElementKind
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font

FONTS = ("dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf")


def _numbered_tabs(theme: str, font_name: str) -> tuple[Image.Image, list[Box]]:
    c = THEMES[theme]
    img = Image.new("RGB", (360, 240), c["bg"])
    d = ImageDraw.Draw(img)
    boxes = []
    for k in range(4):
        x = 12 + 40 * k
        box = Box(x, 40, 34, 48)
        selected = k == 0
        d.rounded_rectangle([box.left, box.top, box.right, box.bottom], radius=4,
                            fill=(0, 110, 230) if selected else c["face"], outline=c["border"], width=1)
        d.text((box.center.x, box.center.y), str(k + 1), fill="white" if selected else c["fg"],
               font=font(20, font_name), anchor="mm")
        boxes.append(box)
    d.text((30, 130), "Lorem ipsum dolor sit amet.", fill=c["fg"], font=font(18, font_name))
    return img, boxes


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
def test_tabs_numbered_with_lone_digits_are_tabs_named_by_them(theme, font_name):
    img, boxes = _numbered_tabs(theme, font_name)
    ladder, parser = default_ladder()
    tabs = sorted((e for e in parser.parse(img).elements if e.kind == ElementKind.TAB), key=lambda e: e.box.left)
    assert [t.text for t in tabs] == ["1", "2", "3", "4"], tabs
    obs = Observation.from_image(img)
    assert boxes[1].contains(ladder.resolve("the 2nd tab", obs).point)
    assert boxes[2].contains(ladder.resolve('the tab "3"', obs).point)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_row_of_icon_faces_gets_no_caption(theme):
    c = THEMES[theme]
    img = Image.new("RGB", (300, 120), c["bg"])
    d = ImageDraw.Draw(img)
    for k in range(4):
        x = 12 + 40 * k
        d.rounded_rectangle([x, 30, x + 34, 64], radius=4, fill=c["face"], outline=c["border"])
        cx, cy = x + 17, 47
        if k == 0:
            d.polygon([(cx - 8, cy - 10), (cx - 8, cy + 10), (cx + 9, cy)], fill=c["fg"])       # play
        elif k == 1:
            d.rectangle([cx - 8, cy - 8, cx + 8, cy + 8], fill=c["fg"])                        # stop
        elif k == 2:
            d.ellipse([cx - 10, cy - 10, cx + 10, cy + 10], outline=c["fg"], width=3)          # record
        else:
            d.line([cx - 9, cy - 9, cx + 9, cy + 9], fill=c["fg"], width=3)
            d.line([cx - 9, cy + 9, cx + 9, cy - 9], fill=c["fg"], width=3)                    # a cross
    _, parser = default_ladder()
    texts = [e.text for e in parser.parse(img).elements if e.kind in (ElementKind.BUTTON, ElementKind.TAB)
             and e.text.isalnum()]
    assert texts == [], texts
