"""Bordered cells that tile a table are text, not text fields: 'the text field' is the form's
one field, and a cell is read as the text beside its name."""

from __future__ import annotations

import pytest

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
