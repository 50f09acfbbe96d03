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


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", ["dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf"])
def test_in_a_grid_of_check_boxes_a_box_without_its_label_takes_no_neighbours(theme, font_name):
    # two columns of large check boxes, each label right of its box; the right column's first
    # label was not read ("t3"): its box took the label left of it, the left box's "RH9jV",
    # and '"RH9jV"' named two boxes
    c = THEMES[theme]
    img = Image.new("RGB", (340, 200), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(20, font_name)
    for row, (left, right) in enumerate((("RH9jV", ""), ("hnP7VC", "ngQ8"), ("d4XL9", "Kxe"))):
        y = 20 + 50 * row
        for x, label in ((18, left), (148, right)):
            d.rounded_rectangle([x, y, x + 26, y + 26], radius=4, fill=c["field"], outline=c["border"], width=2)
            if label:
                d.text((x + 40, y + 13), label, fill=c["fg"], font=f, anchor="lm")
    ladder, parser = default_ladder()
    boxes = [e for e in parser.parse(img).elements if e.kind in (ElementKind.CHECKBOX, ElementKind.RADIO)]
    named = {e.label: e.box.left for e in boxes if e.label}
    assert [e.label for e in boxes if e.box.left > 140 and e.box.top < 50] == [""], boxes
    assert named.get("RH9jV", 0) < 60 and sum(e.label == "RH9jV" for e in boxes) == 1, boxes
