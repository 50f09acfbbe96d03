"""A bar of words read as one element is cut into its items, left to right."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from gui_agent.geometry import Box
from gui_agent.parsing.elements import Element, ElementKind, ScreenParse
from gui_agent.parsing.menu_bars import bar_pieces, split_bars

K = ElementKind
FONT = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 13)
WORDS = ("File", "Edit", "Search", "View", "Document", "Help")


def _bar(gap: int = 18, border: bool = True):
    """A 640x26 strip with the words ``gap`` px apart (a menu bar), the words' boxes."""
    image = Image.new("RGB", (700, 60), (240, 240, 240))
    draw = ImageDraw.Draw(image)
    if border:
        draw.rectangle((10, 10, 650, 36), outline=(150, 150, 150))
    x, boxes = 18, {}
    for word in WORDS:
        left, top, right, bottom = draw.textbbox((x, 16), word, font=FONT)
        draw.text((x, 16), word, font=FONT, fill=(20, 20, 20))
        boxes[word] = Box.from_corners(left, top, right, bottom)
        x = right + gap
    return image, boxes


def _reader(image, boxes):
    """Reads a box as the word whose box lies inside it (a stand-in for OCR)."""
    def read(box: Box) -> str | None:
        inside = [w for w, b in boxes.items() if box.contains(b.center)]
        return " ".join(inside) or None
    return read


def test_a_bar_taken_for_one_field_is_cut_at_the_gaps_in_order():
    image, boxes = _bar()
    gray = np.asarray(image.convert("L"))
    bar = Element(K.TEXT_FIELD, Box(10, 10, 641, 27), "Edit File Help Search View Document", 1.0,
                  "detector")
    pieces = bar_pieces(bar, gray)
    assert pieces is not None and len(pieces) == len(WORDS)
    for piece, word in zip(pieces, WORDS, strict=True):
        assert piece.contains(boxes[word].center)
    out = split_bars(ScreenParse((bar,), 700, 60), gray, _reader(image, boxes))
    assert [(e.kind, e.text) for e in out.elements] == [(K.TEXT, w) for w in WORDS]


def test_a_sentence_and_a_field_with_a_value_stay_whole():
    image = Image.new("RGB", (500, 40), "white")
    draw = ImageDraw.Draw(image)
    draw.text((10, 12), "Save the file before you close it", font=FONT, fill="black")
    gray = np.asarray(image.convert("L"))
    line = Element(K.TEXT, Box(8, 10, 240, 20), "Save the file before you close it")
    assert bar_pieces(line, gray) is None
    short_field = Element(K.TEXT_FIELD, Box(8, 8, 120, 24), "hello world", 1.0, "detector")
    assert bar_pieces(short_field, gray) is None
    parse = ScreenParse((line, short_field), 500, 40)
    assert split_bars(parse, gray, lambda box: "x") is parse


def test_a_text_line_is_cut_only_at_wide_gaps():
    tight, _ = _bar(gap=12, border=False)        # a glyph height apart: words of one line
    wide, boxes = _bar(gap=40, border=False)     # far apart: separate items
    line = Element(K.TEXT, Box(14, 12, 640, 22), "File Edit Search View Document Help")
    assert bar_pieces(line, np.asarray(tight.convert("L"))) is None
    pieces = bar_pieces(line, np.asarray(wide.convert("L")))
    assert pieces is not None and len(pieces) == len(WORDS)


def test_a_popup_border_at_a_rows_edge_does_not_swallow_its_caption():
    # a menu's row read as one line with its shortcut: the popup's border runs down its left
    # edge, and what lies behind the popup inks the column beside it over most of the row, cut
    # short by a separator; neither is a glyph, so the caption's piece starts at the caption
    image = Image.new("RGB", (400, 60), "white")
    draw = ImageDraw.Draw(image)
    draw.line([(0, 5), (0, 22)], fill=(30, 30, 30))              # behind the popup
    draw.line([(1, 4), (1, 31)], fill=(150, 150, 150))           # the popup's border
    draw.line([(1, 4), (399, 4)], fill=(200, 200, 200))          # separators
    draw.line([(1, 31), (399, 31)], fill=(200, 200, 200))
    left, top, right, bottom = draw.textbbox((29, 10), "Select All", font=FONT)
    draw.text((29, 10), "Select All", font=FONT, fill=(20, 20, 20))
    draw.text((320, 10), "Ctrl+A", font=FONT, fill=(20, 20, 20))
    row = Element(K.TEXT, Box(0, 4, 345, 28), "Select All Ctrl+A", 1.0, "detector")
    pieces = bar_pieces(row, np.asarray(image.convert("L")))
    assert pieces is not None and len(pieces) == 2
    assert left - 4 <= pieces[0].left and pieces[0].right >= right, pieces


def test_a_windows_menu_bar_in_a_large_font_is_cut_at_its_padding():
    # larger fonts (a desktop's font scaling) do not widen the padding between menu titles:
    # the gaps are less than a glyph high, yet at the window's top they separate the titles;
    # a sentence there keeps its words together
    big = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 20)
    image = Image.new("RGB", (760, 40), (240, 240, 240))
    draw = ImageDraw.Draw(image)
    x, boxes = 8, {}
    for word in WORDS:
        left, top, right, bottom = draw.textbbox((x, 8), word, font=big)
        draw.text((x, 8), word, font=big, fill=(20, 20, 20))
        boxes[word] = Box.from_corners(left, top, right, bottom)
        x = right + 15
    gray = np.asarray(image.convert("L"))
    window = Box(0, 0, 760, 400)
    bar = Element(K.TEXT_FIELD, Box(0, 2, 760, 34), "Help File Edit Search View Documet", 1.0, "detector")
    assert bar_pieces(bar, gray) is None                       # no window known: gaps too narrow
    out = split_bars(ScreenParse((bar,), 760, 40), gray, _reader(image, boxes), window)
    assert [e.text for e in out.elements] == list(WORDS)
    sentence = Image.new("RGB", (760, 40), (240, 240, 240))
    ImageDraw.Draw(sentence).text((8, 8), "Save the file before you close it", font=big, fill=(20, 20, 20))
    line = Element(K.TEXT, Box(6, 6, 330, 28), "Save the file before you close it")
    assert bar_pieces(line, np.asarray(sentence.convert("L")), menu_bar=True) is None
