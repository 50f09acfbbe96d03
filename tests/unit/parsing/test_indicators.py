"""Indicators against the text around them: the round last letter of a large word ("e" of
"Volume" at twice the usual size) is a letter, not a radio button, and a letter the widget
detector framed ("g") is no button; real radio buttons before large labels stay radio buttons (Pillow, two themes, two fonts, two sizes)."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.grounding.default import default_ladder
from gui_agent.parsing.elements import ElementKind
from tests.support.pillow_form import THEMES, font

FONTS = ("dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf")


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
@pytest.mark.parametrize("size", [28, 34])
def test_a_large_words_round_letters_are_no_radio_buttons(theme, font_name, size):
    c = THEMES[theme]
    img = Image.new("RGB", (520, 90), c["bg"])
    ImageDraw.Draw(img).text((20, 45), "Volume Treble Name", fill=c["fg"], font=font(size, font_name), anchor="lm")
    _, parser = default_ladder()
    elements = parser.parse(img).elements
    assert [e.kind for e in elements if e.kind == ElementKind.RADIO] == []
    assert " ".join(e.text for e in elements if e.text) == "Volume Treble Name"


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
def test_radio_buttons_before_large_labels_on_one_line_stay_radio_buttons(theme, font_name):
    c = THEMES[theme]
    img = Image.new("RGB", (620, 90), c["bg"])
    d = ImageDraw.Draw(img)
    x = 20
    for word in ("Large", "Wide"):
        d.ellipse([x, 33, x + 24, 57], fill=c["field"], outline=c["border"], width=2)
        x += 36
        d.text((x, 45), word, fill=c["fg"], font=font(28, font_name), anchor="lm")
        x += int(d.textlength(word, font=font(28, font_name))) + 40
    _, parser = default_ladder()
    elements = parser.parse(img).elements
    assert sorted(e.label for e in elements if e.kind == ElementKind.RADIO) == ["Large", "Wide"], elements
    assert [e.text for e in elements if e.text] == ["Large", "Wide"], elements
