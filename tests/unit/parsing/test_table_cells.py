"""Bordered cells that tile a table are text, not text fields: 'the text field' is the form's
one field, and a cell is read as the text beside its name."""

from __future__ import annotations

import pytest

from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.parsing.elements import ElementKind
from gui_agent.screen.observation import Observation
from tests.support.pillow_table import render_table

FONTS = ("dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf")


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
@pytest.mark.parametrize("scale", [1.0, 2.0])
def test_table_cells_are_no_text_fields(theme, font_name, scale):
    img, cells, field = render_table(theme, font_name, scale)
    ladder, parser = default_ladder()
    obs = Observation.from_image(img)
    fields = [e for e in ladder.grounders[1].parse(obs).elements if e.kind == ElementKind.TEXT_FIELD]
    in_table = [e for e in fields if any(cell.contains(e.box.center) for cell in cells.values())]
    assert in_table == [] and any(e.box.iou(field) > 0.7 for e in fields), fields
    found = ladder.resolve("the text field", obs)
    assert field.contains(found.point), found
    value = ladder.resolve('right of "Color"', obs)
    assert cells["Color"].contains(value.point), value


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("caret_x", [200, 231])
def test_a_focused_field_whose_caret_nearly_touches_its_ring_is_one_field(theme, caret_x):
    """The caret closed the focused field's inside in two; with the next field just below, the
    three boxes passed for a table's cells and neither field was found."""
    from PIL import Image, ImageDraw

    from tests.support.pillow_form import THEMES, font

    c = THEMES[theme]
    img = Image.new("RGB", (330, 360), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(20, FONTS[0])
    d.text((10, 284), "Language:", fill=c["fg"], font=f)
    d.text((10, 313), "Color:", fill=c["fg"], font=f)
    first, second = (138, 279, 316, 306), (140, 310, 316, 337)
    d.rectangle(first, fill=c["field"], outline=c["fg"], width=4)          # the focus ring
    d.text((146, 286), "Viet", fill=c["fg"], font=f)
    d.line([caret_x, 284, caret_x, 301], fill=c["fg"], width=2)            # the caret
    d.rectangle(second, fill=c["field"], outline=c["border"], width=2)
    ladder, parser = default_ladder()
    fields = [e for e in parser.parse(img).elements if e.kind == ElementKind.TEXT_FIELD]
    for box in (first, second):
        assert any(e.box.iou(Box.from_corners(*box)) > 0.7 for e in fields), fields
    assert len(fields) == 2, fields
