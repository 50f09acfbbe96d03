"""A pager's chevrons read by their shape: the recogniser reads a lone '>' as "V" and "< 3 >" as
"ЗN" with too little confidence to keep, so the control to a list's next page went unseen.
Letters with a chevron's outline ('C', 'L', 'V', 'K', '(') stay letters."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from gui_agent.parsing.chevrons import chevron_way, split_chevrons
from gui_agent.parsing.ocr import OcrEngine
from tests.support.pillow_form import THEMES, font

FONTS = ["dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf", "dejavu/DejaVuSans-Bold.ttf"]


def _glyph_mask(char: str, size: int, font_name: str) -> np.ndarray:
    img = Image.new("L", (3 * size, 3 * size), 0)
    ImageDraw.Draw(img).text((size, size // 2), char, fill=255, font=font(size, font_name))
    mask = np.asarray(img) > 128
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    return mask[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]


@pytest.mark.parametrize("font_name", FONTS)
@pytest.mark.parametrize("size", [14, 20, 28, 40])
def test_chevrons_point_and_letters_do_not(font_name, size):
    assert chevron_way(_glyph_mask(">", size, font_name)) == "right"
    assert chevron_way(_glyph_mask("<", size, font_name)) == "left"
    assert chevron_way(_glyph_mask("\u203a", size, font_name)) in ("right", None)   # '›' may be tiny
    for letter in "CLVKXYcekvy7(":
        assert chevron_way(_glyph_mask(letter, size, font_name)) is None, letter


def _line(parts: list[tuple[str, bool]], theme: str, font_name: str, size: int = 28) -> Image.Image:
    c = THEMES[theme]
    img = Image.new("RGB", (360, 80), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(size, font_name)
    x = 20
    for text, link in parts:
        colour = c["link"] if link else c["fg"]
        d.text((x, 20), text, fill=colour, font=f)
        width = round(d.textlength(text, font=f))
        if link:
            base = 20 + f.getbbox("0")[3] + 3
            d.line([(x, base), (x + width, base)], fill=colour, width=max(1, size // 10))
        x += width + size // 4
    return img


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS[:2])
def test_a_pager_reads_with_its_chevrons(theme, font_name):
    engine = OcrEngine()
    both = "".join(ln.text for ln in engine.read(_line([("<", True), ("3", False), (">", True)], theme, font_name)))
    assert both.startswith("<") and both.endswith(">"), both
    last = "".join(ln.text for ln in engine.read(_line([("1", False), (">", True)], theme, font_name)))
    assert last.replace(" ", "").endswith(">") and "V" not in last, last
    for text in ("Cover", "Apply", "Copy Entry", "37"):
        word = "".join(ln.text for ln in engine.read(_line([(text, False)], theme, font_name)))
        assert ">" not in word and "<" not in word, word


def test_a_crop_without_chevrons_is_left_as_it_is():
    crop = np.ascontiguousarray(np.asarray(_line([("Close", False)], "light", FONTS[0]))[:, :, ::-1])
    out, lead, trail = split_chevrons(crop)
    assert out is crop and lead == trail == ""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_line_of_words_keeps_its_own_angle_brackets(theme):
    """'Profile: (no name) <no email>' is read by the recogniser as it always was (a replayed
    demonstration expects the text it recorded); only a short line, a pager, is split."""
    img = _line([("Profile: (no name) <no email>", False)], theme, FONTS[0], size=20)
    crop = np.ascontiguousarray(np.asarray(img)[:, :, ::-1])
    out, lead, trail = split_chevrons(crop)
    assert out is crop and lead == trail == ""
