"""A text of a bar (a menu bar's titles) over a wide widget is no label of it: "the Edit menu"
over a calculator's display is the menu's title, not the display; a label that stands alone
over its field, or with a hint beside it, still names the field."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.grounding.default import default_ladder
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font

MENU_Y = 20
DISPLAY = (44, 52, 364, 104)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("value", ["-3", "12"])
def test_a_menu_title_over_a_display_names_the_menu(theme: str, value: str) -> None:
    c = THEMES[theme]
    img = Image.new("RGB", (400, 200), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(14)
    x = 20
    for word in ("File", "Edit", "View", "Calculator", "Help"):
        d.text((x, MENU_Y), word, fill=c["fg"], font=f)
        x += round(d.textlength(word, font=f)) + 26     # a menu bar pads its titles
    d.rectangle(DISPLAY, fill=c["field"], outline=c["border"])
    d.text((DISPLAY[2] - 40, DISPLAY[1] + 12), value, fill=c["fg"], font=font(26))
    ladder, _ = default_ladder()
    found = ladder.resolve("the Edit menu", Observation.from_image(img))
    assert found.point.y < DISPLAY[1], found


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_label_with_a_hint_beside_it_still_names_its_field(theme: str) -> None:
    c = THEMES[theme]
    img = Image.new("RGB", (400, 200), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(14)
    d.text((20, 30), "Email", fill=c["fg"], font=f)
    d.text((70, 30), "(optional)", fill=c["fg"], font=f)
    d.rectangle((20, 52, 340, 80), fill=c["field"], outline=c["border"])
    ladder, _ = default_ladder()
    found = ladder.resolve("the Email field", Observation.from_image(img))
    assert 52 <= found.point.y <= 80, found


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_tall_displays_value_read_apart_is_no_key(theme: str) -> None:
    # a calculator's display taller than a text field: its "3" is read as a text of its own,
    # still the display's value, not the "3" key under it
    c = THEMES[theme]
    img = Image.new("RGB", (420, 260), c["bg"])
    d = ImageDraw.Draw(img)
    d.rectangle((10, 10, 400, 84), fill=c["field"], outline=c["border"])
    d.text((360, 22), "3", fill=c["fg"], font=font(44, "dejavu/DejaVuSans-Bold.ttf"))
    keys = {}
    for i, key in enumerate("123"):
        box = (10 + 80 * i, 150, 83 + 80 * i, 184)
        d.rounded_rectangle(box, 3, fill=c["face"], outline=c["border"])
        d.text(((box[0] + box[2]) // 2, 167), key, fill=c["fg"], font=font(18), anchor="mm")
        keys[key] = box
    ladder, _ = default_ladder()
    found = ladder.resolve('"3"', Observation.from_image(img))
    left, top, right, bottom = keys["3"]
    assert left <= found.point.x <= right and top <= found.point.y <= bottom, found
