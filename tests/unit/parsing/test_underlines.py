"""Underlined links read as their words: the underline is painted over before recognition.

A pager of underlined links, "1 2 3 >" as browsers draw it (each link underlined on its own),
was read "1232": the underline joined the glyphs and turned ">" into "≥", then "2"."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from gui_agent.parsing.ocr import OcrEngine
from gui_agent.parsing.screen_parser import ScreenParser
from gui_agent.parsing.underlines import without_underlines
from tests.support.pillow_form import THEMES, font


def _underlined(words: list[str], theme: str, font_name: str, size: int = 28) -> Image.Image:
    c = THEMES[theme]
    img = Image.new("RGB", (360, 80), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(size, font_name)
    x = 20
    for k, word in enumerate(words):
        colour = c["fg"] if k == 0 else c["link"]   # the current page is plain text
        d.text((x, 20), word, fill=colour, font=f)
        width = round(d.textlength(word, font=f))
        if k:
            base = 20 + f.getbbox("0")[3] + 3
            d.line([(x, base), (x + width, base)], fill=colour, width=max(1, size // 10))
        x += width + size // 2
    return img


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", ["dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf"])
def test_an_underlined_pager_ends_with_its_arrow(theme, font_name):
    lines = OcrEngine().read(_underlined(["1", "2", "3", ">"], theme, font_name))
    text = "".join(line.text for line in lines).replace(" ", "")
    assert text.endswith(">") and len(text) == 4, text   # ("3" may read as a look-alike "З")


def test_an_underline_is_painted_over_and_descenders_are_kept():
    img = _underlined(["1", "Gypsy"], "light", "dejavu/DejaVuSans.ttf")
    crop = np.ascontiguousarray(np.asarray(img)[:, :, ::-1][5:75])
    clean = without_underlines(crop)
    ink = (np.abs(clean.mean(axis=2) - clean[0].mean()) > 40).any(axis=1)
    assert not (np.abs(crop.mean(axis=2) - crop[0].mean()) > 40).all(axis=1).any()   # sanity
    rows = np.flatnonzero(ink)
    # the glyphs (with the descenders of 'y', 'p') remain; the line under them is gone
    assert rows.size and clean[rows[-1] + 1:].std() < 1.0
    plain = np.ascontiguousarray(np.asarray(_underlined(["1"], "light", "dejavu/DejaVuSans.ttf"))[:, :, ::-1][5:75])
    assert without_underlines(plain) is plain           # nothing under the text: untouched


def test_the_short_underline_of_a_lone_symbol_is_painted_over_and_an_underscore_kept():
    """A lone underlined '>' (its line only as wide as the glyph, shorter than the text is tall
    with the "1" beside it) is a link's underline too; an underscore has no glyph above it."""
    img = _underlined(["1", ">"], "light", "dejavu/DejaVuSans.ttf")
    crop = np.ascontiguousarray(np.asarray(img)[:, :, ::-1][5:75])
    clean = without_underlines(crop)
    assert clean is not crop
    ink = np.flatnonzero((np.abs(clean.mean(axis=2) - clean[0].mean()) > 40).any(axis=1))
    assert clean[ink[-1] + 1:].std() < 1.0
    snake = Image.new("RGB", (360, 80), THEMES["light"]["bg"])
    ImageDraw.Draw(snake).text((20, 20), "a_b", fill=THEMES["light"]["fg"],
                               font=font(28, "dejavu/DejaVuSans.ttf"))
    under = np.ascontiguousarray(np.asarray(snake)[:, :, ::-1][5:75])
    assert without_underlines(under) is under


def _menu_title(theme: str, size: int) -> tuple[Image.Image, ImageDraw.ImageDraw, object]:
    """"File" drawn as a menu bar's title at ``size`` px, with its draw and font objects."""
    c = THEMES[theme]
    img = Image.new("RGB", (200, 50), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(size)
    d.text((10, 12), "File", fill=c["fg"], font=f)
    return img, d, f


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_menu_title_read_alone_loses_its_mnemonic_underline(theme):
    # "File" with its "F" underlined (Alt+F): read alone, as a menu bar's item is, the
    # underline made it "Eile"
    img, d, f = _menu_title(theme, 13)
    base = 12 + f.getbbox("F")[3] + 1
    d.line([(10, base), (10 + round(d.textlength("F", font=f)), base)], fill=THEMES[theme]["fg"])
    assert ScreenParser().read_text(img, Box(6, 4, 40, 26)) == "File"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_mnemonic_underline_level_with_a_letter_s_tail_is_painted_over(theme):
    # a larger font: the "F"'s underline, 2 px thick, lies a blank row under the "F", but the
    # tail of the "e" beside it reaches that row, so no row of the whole text parts the line
    # from the glyphs: it is painted over in its own columns only, the "e" kept
    c = THEMES[theme]
    img, d, f = _menu_title(theme, 18)
    inked = np.flatnonzero((np.abs(np.asarray(img.convert("L")).astype(int) - int(np.mean(c["bg"]))) > 60).any(axis=1))
    last = int(inked[-1])                                   # the glyphs' last row
    e_right = 10 + round(d.textlength("File", font=f)) - 3
    d.point((e_right, last + 1), fill=c["fg"])               # the "e"'s tail, a row lower
    f_left, _, f_right, _ = d.textbbox((10, 12), "F", font=f)          # under the "F"'s ink
    d.rectangle([f_left, last + 2, f_right - 2, last + 3], fill=c["fg"])
    assert ScreenParser().read_text(img, Box(6, 4, 60, 36)) == "File"
