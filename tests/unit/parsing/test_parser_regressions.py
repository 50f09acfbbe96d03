"""Regression tests for bugs found in the screen parser while driving the real app."""

from __future__ import annotations

import threading

import pytest

from gui_agent.geometry import Box
from gui_agent.parsing.ocr import TextLine
from gui_agent.parsing.screen_parser import _grow_over_lines


def test_growing_over_a_text_line_at_the_screen_edge_terminates():
    # A text line touching the right edge: growing a region over it by a margin and clipping
    # back to the screen gives the same box; the old loop compared before clipping, forever.
    line = TextLine("Not signed in", Box(1200, 5, 80, 20), 0.99)
    result: list[Box] = []
    worker = threading.Thread(
        target=lambda: result.extend(_grow_over_lines([Box(1190, 0, 60, 30)], (line,), 1280, 800)),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=5)
    assert not worker.is_alive(), "_grow_over_lines did not terminate"
    assert len(result) == 1
    assert result[0].right == 1280 and result[0].contains(line.box.center)


def _focused_field_with_digit(digit: str):
    """A 260x31 field with a thick rounded focus border, a digit hard against it and a caret."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (320, 80), "white")
    d = ImageDraw.Draw(img)
    d.rounded_rectangle([18, 20, 278, 52], radius=6, outline=(20, 20, 20), width=4)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 16)
    d.text((24, 27), digit, fill=(30, 30, 30), font=font)
    d.rectangle([34, 24, 35, 48], fill=(40, 40, 40))  # the caret, touching the digit
    return img


def test_read_text_reads_a_short_value_beside_the_caret():
    # The screen parse read "0|" as "P", so a spinner's value could not be checked.
    from gui_agent.parsing.screen_parser import ScreenParser

    parser = ScreenParser()
    for digit in "0475":
        assert parser.read_text(_focused_field_with_digit(digit), Box(20, 20, 257, 31)) == digit


def test_read_text_of_an_empty_field_is_none():
    from PIL import Image, ImageDraw

    from gui_agent.parsing.screen_parser import ScreenParser

    img = Image.new("RGB", (320, 80), "white")
    ImageDraw.Draw(img).rounded_rectangle([18, 20, 278, 52], radius=6, outline="black", width=4)
    assert ScreenParser().read_text(img, Box(20, 20, 257, 31)) is None


def _password_form(dots: int, caret_gap: int):
    """A focused password field holding masked dots and a caret, and a second empty field."""
    from PIL import Image, ImageDraw, ImageFont

    label_font = ImageFont.truetype("/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf", 19)
    img = Image.new("RGB", (330, 420), "white")
    d = ImageDraw.Draw(img)
    d.text((4, 124), "Password", fill="black", font=label_font)
    d.rounded_rectangle([14, 157, 229, 198], radius=5, outline="black", width=3)
    x = 22
    for _ in range(dots):
        d.ellipse([x, 174, x + 7, 181], fill="black")
        x += 9
    d.line([x + caret_gap, 166, x + caret_gap, 190], fill="black", width=2)
    d.text((4, 230), "Verify password", fill="black", font=label_font)
    d.rounded_rectangle([14, 262, 229, 304], radius=5, outline=(120, 120, 120), width=2)
    return img


def test_masked_dots_in_a_password_field_do_not_make_it_a_frame():
    # MiniWoB enter-password: after typing into the first field its dots and caret were taken
    # for check boxes, the field for a group frame around them, and "the 2nd text field" was gone.
    from gui_agent.parsing.elements import ElementKind
    from gui_agent.parsing.screen_parser import ScreenParser

    parser = ScreenParser(incremental=False)
    for dots in (1, 3, 5):
        for gap in (0, 3):
            parse = parser.parse(_password_form(dots, gap))
            fields = [e for e in parse.elements if e.kind == ElementKind.TEXT_FIELD]
            assert len(fields) == 2, (dots, gap)
            assert fields[0].box.contains(Box(14, 157, 215, 41).center), (dots, gap)
            assert fields[1].box.contains(Box(14, 262, 215, 42).center), (dots, gap)
            assert not [e for e in parse.elements if e.kind == ElementKind.CHECKBOX], (dots, gap)


def test_a_field_keeps_its_masked_value_glyphs_out_of_the_widgets_even_unread():
    # The same, when OCR reads nothing in the field (a low-confidence "..." is dropped).
    import numpy as np

    from gui_agent.parsing.elements import ElementKind
    from gui_agent.parsing.fusion import fuse
    from gui_agent.parsing.widgets import detect_widgets

    rgb = np.asarray(_password_form(3, 1))
    elements = fuse([], detect_widgets(rgb), rgb)
    assert len([e for e in elements if e.kind == ElementKind.TEXT_FIELD]) == 2
    assert not [e for e in elements if e.kind in (ElementKind.CHECKBOX, ElementKind.RADIO)]


def _dialog_with_heavy_cross():
    """A dialog whose title bar holds a square button with a bold cross and no caption."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (330, 420), "white")
    d = ImageDraw.Draw(img)
    d.rounded_rectangle([12, 156, 203, 316], radius=4, outline=(190, 190, 190), width=2)
    d.rounded_rectangle([18, 162, 197, 202], radius=4, fill=(232, 232, 232), outline=(210, 210, 210))
    d.rounded_rectangle([150, 162, 188, 200], radius=4, fill=(238, 238, 238), outline=(120, 120, 120), width=2)
    d.line([162, 174, 177, 189], fill=(40, 40, 40), width=6)
    d.line([162, 189, 177, 174], fill=(40, 40, 40), width=6)
    return img


def test_a_captionless_face_with_a_bold_cross_is_a_close_button():
    # MiniWoB click-dialog: OCR read the "✖" on the dialog's button as nothing, so 'click "x"'
    # found no target; the glyph's shape alone says it closes.
    import numpy as np

    from gui_agent.grounding.ladder import GroundingLadder
    from gui_agent.grounding.ocr_grounder import OcrGrounder
    from gui_agent.parsing.elements import ElementKind, ScreenParse
    from gui_agent.parsing.fusion import fuse
    from gui_agent.parsing.widgets import detect_widgets
    from gui_agent.screen.observation import Observation

    img = _dialog_with_heavy_cross()
    rgb = np.asarray(img)
    elements = fuse([], detect_widgets(rgb), rgb)
    closes = [e for e in elements if e.kind == ElementKind.CLOSE]
    assert len(closes) == 1 and closes[0].box.contains(Box(150, 162, 39, 39).center)
    obs = Observation.from_image(img)
    grounder = OcrGrounder()
    grounder._cache = [(obs.image, ScreenParse(tuple(elements), *img.size))]
    found = GroundingLadder([grounder]).resolve('"x"', obs)
    assert Box(150, 162, 39, 39).contains(found.point)


def test_a_squarish_face_with_a_two_line_caption_is_a_button_however_tall_its_text_boxes():
    # MiniWoB click-test: "Click Me!" wrapped on a 75 px face; detection drew the caption's
    # boxes 7 px below the face's top (one read earlier it drew them 9 px below), and the face
    # was taken for a text area whose lines start at the top: "the button" was not found.
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont

    from gui_agent.parsing.elements import ElementKind
    from gui_agent.parsing.fusion import fuse
    from gui_agent.parsing.ocr import TextLine
    from gui_agent.parsing.widgets import detect_widgets

    img = Image.new("RGB", (330, 420), "white")
    d = ImageDraw.Draw(img)
    d.rounded_rectangle([58, 286, 131, 358], radius=4, fill=(239, 239, 239), outline=(118, 118, 118), width=2)
    big = ImageFont.truetype("/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf", 26)
    d.text((75, 290), "Click", fill="black", font=big)
    d.text((75, 321), "Me!", fill="black", font=big)
    rgb = np.asarray(img)
    for top in (291, 293):
        lines = [TextLine("Click", Box(71, top, 59, 32), 0.99), TextLine("Me!", Box(71, 324, 53, 30), 0.99)]
        buttons = [e for e in fuse(lines, detect_widgets(rgb), rgb) if e.kind == ElementKind.BUTTON]
        assert [b.text for b in buttons] == ["Click Me!"], top


def test_a_selected_tab_filled_with_colour_is_a_tab_not_a_title_bar():
    # MiniWoB click-tab-2: the selected tab, blue with a white caption, was dropped as a
    # coloured title bar; its neighbours were then no longer side by side and no tab was found.
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont

    from gui_agent.parsing.elements import ElementKind
    from gui_agent.parsing.screen_parser import ScreenParser

    font = ImageFont.truetype("/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf", 20)
    img = Image.new("RGB", (330, 420), "white")
    d = ImageDraw.Draw(img)
    d.rectangle([4, 104, 315, 165], fill=(233, 233, 233), outline=(200, 200, 200))
    for i, (x, selected) in enumerate(((12, False), (98, True), (188, False))):
        fill, ink = ((0, 122, 255), "white") if selected else ((246, 246, 246), (51, 51, 51))
        box = [x, 112, x + 85, 165] if selected else [x, 114, x + 83, 163]
        d.rounded_rectangle(box, radius=4, fill=fill, outline=(190, 190, 190), width=2)
        d.text((x + 12, 127), f"Tab #{i + 1}", fill=ink, font=font)
    d.rectangle([0, 0, 329, 99], fill=(255, 255, 0))
    parse = ScreenParser(incremental=False).parse(np.asarray(img))
    tabs = [e.text for e in parse.elements if e.kind == ElementKind.TAB]
    assert tabs == ["Tab #1", "Tab #2", "Tab #3"]


@pytest.mark.parametrize("font_name", ["dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf"])
def test_read_text_keeps_a_lone_one_that_is_no_caret(font_name):
    # a slider's value "1" read in a place its own height: its stem was painted out as a caret
    # (a tall thin line) and nothing was left; a "1" has its flag (and foot) joined to the stem
    from PIL import Image, ImageDraw, ImageFont

    from gui_agent.parsing.screen_parser import ScreenParser

    img = Image.new("RGB", (120, 60), "white")
    d = ImageDraw.Draw(img)
    d.text((40, 20), "1", fill=(20, 20, 20), font=ImageFont.truetype(f"/usr/share/fonts/truetype/{font_name}", 18))
    ink = Image.eval(img.convert("L"), lambda v: 255 - v).getbbox()
    assert ScreenParser().read_text(img, Box(ink[0] - 12, ink[1], ink[2] - ink[0] + 24, ink[3] - ink[1])) == "1"
    caret = Image.new("RGB", (120, 60), "white")
    ImageDraw.Draw(caret).rectangle([50, 20, 51, 40], fill=(20, 20, 20))     # a caret alone
    assert ScreenParser().read_text(caret, Box(38, 20, 26, 21)) is None
    zero = Image.new("RGB", (120, 60), "white")                              # "0|": the caret touches it
    d = ImageDraw.Draw(zero)
    d.text((40, 22), "0", fill=(20, 20, 20), font=ImageFont.truetype(f"/usr/share/fonts/truetype/{font_name}", 16))
    ink = Image.eval(zero.convert("L"), lambda v: 255 - v).getbbox()
    d.line([ink[2], ink[1] - 3, ink[2], ink[3] + 3], fill=(20, 20, 20), width=1)
    assert ScreenParser().read_text(zero, Box(ink[0] - 12, ink[1] - 4, ink[2] - ink[0] + 24, ink[3] - ink[1] + 8)) == "0"
