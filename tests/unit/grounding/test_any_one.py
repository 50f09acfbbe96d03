"""'a checkbox', 'a text field': an indefinite article asks for any one of those on the screen, and
the first in reading order is taken; 'the checkbox' among several stays ambiguous."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.errors import AmbiguousTarget
from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.description import parse_description
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font


def _screen(theme: str) -> tuple[Image.Image, list[Box], list[Box]]:
    t = THEMES[theme]
    img = Image.new("RGB", (420, 260), t["bg"])
    d = ImageDraw.Draw(img)
    fields = [Box(20, 20 + 50 * n, 220, 30) for n in range(2)]
    for b, value in zip(fields, ("mlt3", "qz"), strict=True):
        d.rectangle((b.left, b.top, b.right - 1, b.bottom - 1), fill=t["field"], outline=t["border"])
        d.text((b.left + 6, b.top + 6), value, font=font(15), fill=t["fg"])
    boxes = [Box(20 + 40 * n, 140, 18, 18) for n in range(3)]
    for b in boxes:
        d.rectangle((b.left, b.top, b.right - 1, b.bottom - 1), fill=t["field"], outline=t["border"], width=2)
    return img, fields, boxes


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_an_indefinite_article_takes_the_first_of_several_alike(theme):
    img, fields, boxes = _screen(theme)
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    assert boxes[0].contains(ladder.resolve("a checkbox", obs).point)
    assert fields[0].contains(ladder.resolve("a text field", obs).point)
    with pytest.raises(AmbiguousTarget):
        ladder.resolve("the checkbox", obs)
    assert boxes[1].contains(ladder.resolve("the 2nd checkbox", obs).point)


def test_only_an_indefinite_article_asks_for_any_one():
    assert parse_description("a checkbox").any_one and parse_description('an "OK" button').any_one
    assert not parse_description("the checkbox").any_one
    assert not parse_description("a 2nd checkbox").any_one       # an ordinal picks one
    assert not parse_description("Apple").any_one and not parse_description('"a b"').any_one
