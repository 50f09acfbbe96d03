"""A text area no taller than a line field is known by the resize grip in its corner: 'the text
area' is the field with the grip, 'the text field' one without (light and dark, two scales);
small faces, one stroke and text in the corner are no grip."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.parsing.resize_grips import has_resize_grip
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font


def _grip(d: ImageDraw.ImageDraw, box: Box, scale: int, colour, strokes: int = 2) -> None:
    right, bottom = box.right - 3 * scale, box.bottom - 3 * scale
    for k in range(strokes):
        reach = (4 + 4 * k) * scale
        d.line((right - reach, bottom, right, bottom - reach), fill=colour, width=scale)


def _form(theme: str, scale: int) -> tuple[Image.Image, dict[str, Box]]:
    t = THEMES[theme]
    img = Image.new("RGB", (300 * scale, 220 * scale), t["bg"])
    d = ImageDraw.Draw(img)
    boxes = {}
    for n, name in enumerate(("area", "field", "other")):
        box = Box(10 * scale, (10 + n * 40) * scale, 200 * scale, 26 * scale)
        d.rectangle((box.left, box.top, box.right - 1, box.bottom - 1), fill=t["field"], outline=t["border"])
        d.text((box.left + 5 * scale, box.top + 5 * scale), ("notes", "Ann", "Bo")[n], font=font(14 * scale),
               fill=t["fg"])
        boxes[name] = box
    _grip(d, boxes["area"], scale, t["border"])
    return img, boxes


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("scale", [1, 2])
def test_the_field_with_a_grip_is_the_text_area(theme, scale):
    img, boxes = _form(theme, scale)
    gray = np.asarray(img.convert("L"))
    assert has_resize_grip(gray, boxes["area"])
    assert not has_resize_grip(gray, boxes["field"]) and not has_resize_grip(gray, boxes["other"])
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    assert boxes["area"].contains(ladder.resolve("the text area", obs).point)
    assert boxes["area"].contains(ladder.resolve("a text area", obs).point)
    assert boxes["field"].contains(ladder.resolve("the 1st text field", obs).point)


def test_one_stroke_text_or_a_small_face_is_no_grip():
    img = Image.new("RGB", (400, 120), (255, 255, 255))
    d = ImageDraw.Draw(img)
    one, text, small = Box(10, 10, 200, 26), Box(10, 50, 200, 26), Box(250, 10, 16, 21)
    for b in (one, text, small):
        d.rectangle((b.left, b.top, b.right - 1, b.bottom - 1), outline=(140, 140, 140))
    _grip(d, one, 1, (140, 140, 140), strokes=1)
    d.text((text.right - 40, text.top + 5), "wxyz", font=font(14), fill=(20, 20, 20))
    _grip(d, small, 1, (140, 140, 140))
    gray = np.asarray(img.convert("L"))
    assert not any(has_resize_grip(gray, b) for b in (one, text, small))
