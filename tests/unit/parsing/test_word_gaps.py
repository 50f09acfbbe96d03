"""The words of a text line, placed from the blank columns between them (Pillow, two themes,
three fonts); a line whose gaps do not tell its words apart gives no boxes."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from gui_agent.parsing.word_gaps import word_boxes
from tests.support.pillow_form import THEMES, font

FONTS = ("dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf", "dejavu/DejaVuSerif.ttf")
LINE = "jumps over the lazy dog"


def _ink(img: Image.Image, bg: tuple[int, int, int]) -> tuple[int, int]:
    cols = np.flatnonzero((np.abs(np.asarray(img.convert("L"), dtype=int) - int(np.mean(bg))) > 40).any(axis=0))
    return int(cols[0]), int(cols[-1])


def _line(theme: str, font_name: str, text: str = LINE, size: int = 26) -> tuple[np.ndarray, Box, list[Box]]:
    """A grey image of one line, its OCR-like box (a few px of margin) and each word's ink box
    (the word drawn alone where the line has it)."""
    c = THEMES[theme]
    img = Image.new("RGB", (640, 80), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(size, font_name)
    truth, at = [], 0
    for word in text.split():
        at = text.index(word, at)
        x = 20 + d.textlength(text[:at], font=f)
        d.text((x, 20), word, fill=c["fg"], font=f)
        alone = Image.new("RGB", img.size, c["bg"])
        ImageDraw.Draw(alone).text((x, 20), word, fill=c["fg"], font=f)
        left, right = _ink(alone, c["bg"])
        truth.append(Box(left, 20, right - left + 1, 40))
        at += len(word)
    left, right = _ink(img, c["bg"])
    box = Box(left - 3, 14, right - left + 7, 46)
    return np.asarray(img.convert("L")), box, truth


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
def test_each_word_of_a_line_is_placed_to_within_a_pixel(theme, font_name):
    gray, box, truth = _line(theme, font_name)
    found = word_boxes(gray, box, LINE)
    assert found is not None and len(found) == len(truth)
    for got, want in zip(found, truth, strict=True):
        assert abs(got.left - want.left) <= 1 and abs(got.right - want.right) <= 1, (got, want)


def test_a_line_read_with_more_words_than_its_gaps_show_gives_no_boxes():
    gray, box, _ = _line("light", FONTS[0], "overthelazy")
    assert word_boxes(gray, box, "over the lazy") is None
    assert word_boxes(gray, box, "overthelazy") is not None


def test_a_blank_box_gives_no_boxes():
    gray = np.full((40, 200), 240, dtype=np.uint8)
    assert word_boxes(gray, Box(10, 5, 150, 30), "a b") is None
