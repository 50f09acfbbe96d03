"""Regression tests for bugs found in the screen parser while driving the real app."""

from __future__ import annotations

import threading

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
