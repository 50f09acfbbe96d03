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
