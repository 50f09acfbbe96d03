"""A check list whose last row is cut by the list's bottom edge (a larger font, a short list):
the name of that row is read, its check box only partly shows and is not recognised; asked for
by that name, the check box is the column's next box, clipped to what shows."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.grounding.default import default_ladder
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font

LIST = (60, 50, 380, 148)        # the list's frame; its last row is cut by the bottom edge
ROW, BOX_X, BOX = 30, 80, 16
NAMES = ("Cheese", "Olives", "Basil")


def check_list(theme: str, face: str, cut: int) -> Image.Image:
    """Three rows of check box + name from the list's top; the bottom edge cuts the third check
    box ``cut`` px above its own bottom."""
    c = THEMES[theme]
    img = Image.new("RGB", (440, 220), c["bg"])
    d = ImageDraw.Draw(img)
    left, top, right, _ = LIST
    bottom = top + 8 + 2 * ROW + 4 + BOX - 1 - cut
    d.rectangle([left, top, right, bottom], fill=c["field"], outline=c["border"])
    f = font(18, face)
    for i, name in enumerate(NAMES):
        y = top + 8 + i * ROW
        d.rectangle([BOX_X, y + 4, BOX_X + BOX - 1, y + 4 + BOX - 1], fill=c["field"], outline=c["border"])
        d.text((BOX_X + 36, y + 1), name, fill=c["fg"], font=f)
    d.rectangle([left, bottom + 1, right, 219], fill=c["bg"])      # what lies below is hidden
    d.line([(left, bottom), (right, bottom)], fill=c["border"])
    return img


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("face", ["dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf"])
def test_the_check_box_of_a_row_cut_by_the_lists_edge_is_found_in_its_column(theme: str, face: str) -> None:
    ladder, _ = default_ladder()
    img = check_list(theme, face, cut=3)
    found = ladder.resolve('the "Basil" checkbox', Observation.from_image(img))
    third = LIST[1] + 8 + 2 * ROW
    assert BOX_X <= found.point.x < BOX_X + BOX and third + 4 <= found.point.y < third + 4 + BOX - 3, found
    whole = ladder.resolve('the "Olives" checkbox', Observation.from_image(img))   # a whole row:
    assert BOX_X <= whole.point.x < BOX_X + BOX and LIST[1] + 8 + ROW <= whole.point.y < third, whole
