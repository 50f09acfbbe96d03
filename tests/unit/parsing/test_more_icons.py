"""Overflow-menu buttons ("⋯", "⋮") found by their three dots, light and dark, small and large;
an ellipsis ending a word, a bulleted line and a dotted rule are no menu button."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from gui_agent.parsing.more_icons import LABEL, more_icons
from tests.support.pillow_form import THEMES, font


def _dots(d: ImageDraw.ImageDraw, x: int, y: int, dot: int, gap: int, fill, vertical: bool = False) -> Box:
    for k in range(3):
        dx, dy = (0, k * (dot + gap)) if vertical else (k * (dot + gap), 0)
        d.ellipse([x + dx, y + dy, x + dx + dot - 1, y + dy + dot - 1], fill=fill)
    span = 3 * dot + 2 * gap
    return Box(x, y, dot, span) if vertical else Box(x, y, span, dot)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("dot, gap", [(3, 3), (4, 3), (6, 5), (8, 6)])
def test_three_dots_in_a_row_or_a_column_are_a_more_icon(theme, dot, gap):
    c = THEMES[theme]
    img = Image.new("RGB", (360, 200), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(16)
    d.text((20, 20), "Ann Lee @ann", fill=c["fg"], font=f)
    d.text((20, 48), "Loading...", fill=c["fg"], font=f)             # an ellipsis in a word
    d.text((20, 76), "\u2022 one  \u2022 two  \u2022 three", fill=c["fg"], font=f)  # bullets in text
    row = _dots(d, 250, 120, dot, gap, c["border"])
    column = _dots(d, 320, 20, dot, gap, c["fg"], vertical=True)
    found = more_icons(np.asarray(img.convert("L")))
    assert all(e.label == LABEL for e in found)
    boxes = [e.box for e in found]
    assert len(boxes) == 2, boxes
    for want in (row, column):
        assert any(b.expand(2).contains(want.center) and want.expand(2).contains(b.center) for b in boxes), (want, boxes)


def test_a_dotted_rule_is_no_more_icon():
    img = Image.new("RGB", (360, 80), "white")
    d = ImageDraw.Draw(img)
    for k in range(30):
        d.ellipse([10 + 10 * k, 40, 13 + 10 * k, 43], fill="black")
    assert more_icons(np.asarray(img.convert("L"))) == []


@pytest.mark.parametrize("bg, dots", [((247, 249, 252), (204, 204, 204)), ((40, 42, 46), (88, 90, 96))])
def test_faint_grey_dots_on_a_tinted_row_are_a_more_icon(bg, dots):
    """A selected post's tinted background and light grey dots: 40-odd grey levels apart (the
    finder wanted 50 and missed them)."""
    img = Image.new("RGB", (300, 80), bg)
    d = ImageDraw.Draw(img)
    d.text((10, 10), "Foley @ann 18h ago", fill=(20, 20, 20) if bg[0] > 128 else (230, 230, 230), font=font(16))
    want = _dots(d, 230, 50, 6, 4, dots)
    boxes = [e.box for e in more_icons(np.asarray(img.convert("L")))]
    assert any(b.expand(2).contains(want.center) for b in boxes), boxes
