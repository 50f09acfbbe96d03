"""Buttons captioned in characters the recogniser has no letters for ("♥♥♥", "⚙", "ヘルプ") are
found by drawing their quoted name in the installed fonts that have it and comparing the drawing
with each element's ink: light and dark, two sizes, two caption fonts; a name that is not on the
screen, or a part of one that is, is not found; names OCR reads are found as before."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

from gui_agent.errors import TargetNotFound
from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.drawn_names import unreadable
from gui_agent.parsing.ocr import recogniser_alphabet
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font
from tests.support.requirements import require_cjk_font

SYMBOLS = ("\u2665\u2665\u2665", "\u2699", "\u30d8\u30eb\u30d7", "OK", "Cancel")   # ♥♥♥ ⚙ ヘルプ
CAPTION_FONTS = ("dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf")
FALLBACK, NOT_IN_LIBERATION = "dejavu/DejaVuSans.ttf", ("\u2699",)


def _screen(theme: str, size: int, caption_font: str, cjk: str) -> tuple[Image.Image, dict[str, Box]]:
    t = THEMES[theme]
    img = Image.new("RGB", (640, 360), t["bg"])
    d = ImageDraw.Draw(img)
    d.text((20, 16), "Pick one of the buttons below to go on.", font=font(15), fill=t["fg"])
    boxes: dict[str, Box] = {}
    x, y = 20, 70
    for n, name in enumerate(SYMBOLS):
        # each caption in a font that has its characters, as a toolkit falls back to one
        f = ImageFont.truetype(cjk, size) if any(ord(c) > 0x3000 for c in name) else \
            font(size, FALLBACK if name in NOT_IN_LIBERATION else caption_font)
        left, top, right, bottom = f.getbbox(name)
        w, h = right - left + 2 * size, round(2.2 * size)
        d.rounded_rectangle((x, y, x + w, y + h), 4, fill=t["face"], outline=t["border"])
        d.text((x + size - left, y + (h - (bottom - top)) // 2 - top), name, font=f, fill=t["fg"])
        boxes[name] = Box(x, y, w, h)
        x += w + 24
        if n == 2:
            x, y = 20, y + h + 40
    return img, boxes


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", [16, 22])
@pytest.mark.parametrize("caption_font", CAPTION_FONTS)
def test_a_button_captioned_in_unreadable_characters_is_found_by_its_drawing(theme, size, caption_font):
    img, boxes = _screen(theme, size, caption_font, require_cjk_font())
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    for name, box in boxes.items():
        found = ladder.resolve(f'the "{name}" button', obs)
        assert box.contains(found.point), (name, found)
    for absent in ("\u2602", "\u2665"):     # an umbrella nowhere; one heart where three are drawn
        with pytest.raises(TargetNotFound):
            ladder.resolve(f'the "{absent}" button', obs)


def test_only_names_with_characters_outside_the_recognisers_alphabet_are_drawn():
    alphabet = recogniser_alphabet()
    assert "a" in alphabet and "7" in alphabet and "\u786e" in alphabet       # 确: read by OCR
    assert not unreadable("Cancel 2", alphabet) and not unreadable("\u786e\u5b9a", alphabet)
    assert unreadable("\u2665\u2665\u2665", alphabet) and unreadable("\u30d8\u30eb\u30d7", alphabet)
    assert unreadable("\u2665\u2665\u2665") and not unreadable("Save As") and not unreadable("\u786e\u5b9a")


def _keypad(theme: str) -> tuple[Image.Image, dict[str, Box]]:
    """A calculator's keys, 59 x 34 px, captions in a small sans face: a row "7 8 9 / <-", a row
    "4 5 6 * -", then "1 2 3" and "0 . +/-" beside a "=" key two rows tall."""
    c = THEMES[theme]
    img = Image.new("RGB", (640, 400), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(14)
    keys: dict[str, Box] = {}
    rows = (("7", "8", "9", "/", "<-"), ("4", "5", "6", "*", "-"), ("1", "2", "3", None, None),
            ("0", ".", "+/-", None, None))
    for r, row in enumerate(rows):
        for k, caption in enumerate(row):
            if caption is None:
                continue
            box = Box(10 + 65 * k, 10 + 40 * r, 59, 34)
            d.rounded_rectangle([box.left, box.top, box.right - 1, box.bottom - 1], radius=3,
                                fill=c["face"], outline=c["border"])
            d.text((box.left + 29, box.top + 17), caption, fill=c["fg"], font=f, anchor="mm")
            keys[caption] = box
    tall = Box(10 + 65 * 3, 90, 59, 74)
    d.rounded_rectangle([tall.left, tall.top, tall.right - 1, tall.bottom - 1], radius=3,
                        fill=c["face"], outline=c["border"])
    d.text((tall.left + 29, tall.top + 37), "=", fill=c["fg"], font=f, anchor="mm")
    keys["="] = tall
    return img, keys


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_key_s_one_symbol_is_found_by_its_drawing_on_a_key_two_rows_tall(theme):
    """'click "="' on a calculator: its key spans two rows (a face taller than wide, which
    widget detection skipped) and its one symbol is what text detection misses, as it misses
    "/", "*" and "-" on their keys here (a minus is a bar of ink, compared by its proportions)."""
    img, keys = _keypad(theme)
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    for name in ("=", "/", "*", "-"):
        hit = ladder.resolve(f'"{name}"', obs)
        assert keys[name].contains(hit.point), (name, hit)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_symbol_with_a_faint_fringe_row_is_found_by_its_drawing(theme):
    """A toolkit's hinted 1 px bar comes with a faint anti-aliased row above it: under a dark
    theme the "=" key's ink was 9 x 5 px, a fringe row on top, and no longer looked like "="."""
    import numpy as np

    img, keys = _keypad(theme)
    px = np.asarray(img).astype(np.float32)
    for name in ("=", "-"):
        b = keys[name]
        face = px[b.top + 5:b.bottom - 5, b.left + 5:b.right - 5]      # a view: edited in place
        bg = np.median(face.reshape(-1, 3), axis=0)
        inked = np.abs(face - bg).max(axis=2) > 60
        for y in range(1, face.shape[0]):
            if inked[y].any() and not inked[y - 1].any():
                face[y - 1][inked[y]] = bg + 0.25 * (face[y][inked[y]] - bg)
    ladder, _ = default_ladder()
    obs = Observation.from_image(Image.fromarray(px.astype(np.uint8)))
    for name in ("=", "-", "/"):
        hit = ladder.resolve(f'"{name}"', obs)
        assert keys[name].contains(hit.point), (name, hit)


def test_a_minus_two_pixels_thick_is_a_bar():
    """A larger font draws "-" 2 px thick and 5 px wide: a bar still, by its proportions."""
    import numpy as np

    from gui_agent.grounding.drawn_names import drawing, likeness

    assert max(likeness(np.ones((2, 5), np.float32), d) for d in drawing("-")) >= 0.8
    assert max(likeness(np.ones((2, 2), np.float32), d) for d in drawing("-")) < 0.8   # a dot
