"""Native web form controls as a browser draws them at twice the size, read from pixels: bare
radio buttons in a row (no labels), an empty <select> whose only mark is its light arrow, a
check box larger than the detector's own, a date input whose calendar icon at the right end is
no option of a group frame, and a list box whose items stay items, not one tall button's caption
(Pillow, light and dark)."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.parsing.elements import ElementKind
from gui_agent.parsing.screen_parser import ScreenParser
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font

K = ElementKind


def _form(theme: str) -> tuple[Image.Image, dict[str, Box]]:
    c = THEMES[theme]
    img = Image.new("RGB", (640, 480), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(26)
    boxes: dict[str, Box] = {}
    for k in range(3):                               # three bare radio buttons
        x = 20 + 48 * k
        d.ellipse([x, 20, x + 23, 43], fill=c["field"], outline=c["border"], width=2)
        boxes[f"radio {k + 1}"] = Box(x, 20, 24, 24)
    d.rectangle([20, 70, 180, 150], fill=(240, 240, 240) if theme == "light" else (60, 60, 64),
                outline=c["border"], width=2)       # an empty <select>
    d.polygon([(137, 107), (150, 107), (143, 113)], fill=(150, 150, 150))
    boxes["select"] = Box(20, 70, 161, 81)
    d.rectangle([20, 180, 46, 206], fill=c["field"], outline=c["fg"], width=2)   # a big check box
    d.text((56, 178), "Remember", fill=c["fg"], font=f)
    boxes["checkbox"] = Box(20, 180, 27, 27)
    d.rectangle([20, 240, 270, 284], fill=c["field"], outline=c["fg"], width=3)  # a date input
    d.text((28, 246), "mm/dd/yyyy", fill=c["fg"], font=f)
    d.rectangle([240, 252, 258, 272], outline=c["fg"], width=2)                  # its calendar
    d.line([240, 258, 258, 258], fill=c["fg"], width=2)
    boxes["date"] = Box(20, 240, 251, 45)
    boxes["list"] = Box(300, 20, 120, 170)                                        # a list box
    d.rectangle([300, 20, 420, 190], fill=c["field"], outline=c["border"], width=2)
    for k, name in enumerate(("Tarra", "Cassondra", "Ann", "Belicia")):
        d.text((310, 30 + 38 * k), name, fill=c["fg"], font=f)
        boxes[name] = Box(310, 30 + 38 * k, round(d.textlength(name, font=f)), 30)
    return img, boxes


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_web_form_controls_are_read_as_what_they_are(theme):
    img, boxes = _form(theme)
    elements = ScreenParser().parse(img).elements

    def kinds_at(box: Box) -> set[ElementKind]:
        return {e.kind for e in elements if box.expand(3).contains(e.box.center) and e.box.area >= 0.3 * box.area}

    for k in (1, 2, 3):
        assert K.RADIO in kinds_at(boxes[f"radio {k}"]), elements
    assert K.COMBO in kinds_at(boxes["select"]), elements
    assert K.CHECKBOX in kinds_at(boxes["checkbox"]), elements
    assert K.TEXT_FIELD in kinds_at(boxes["date"]), elements
    items = [e for e in elements if boxes["list"].contains(e.box.center) and e.kind == K.TEXT]
    assert len(items) == 4, elements        # a list's items are items, not one tall button's caption


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_date_field_is_the_field_showing_a_date_clicked_on_its_first_part(theme):
    img, boxes = _form(theme)
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    date = ladder.resolve("the date field", obs)
    b = boxes["date"]
    assert b.contains(date.point) and date.point.x < b.left + 0.25 * b.width, date
    second = ladder.resolve("the 2nd radio button", obs)
    assert boxes["radio 2"].contains(second.point), second
    assert boxes["select"].contains(ladder.resolve("the dropdown", obs).point)
    assert boxes["checkbox"].contains(ladder.resolve("the checkbox", obs).point)
    assert boxes["Cassondra"].expand(4).contains(ladder.resolve('"Cassondra"', obs).point)
