"""Tree expanders (boxed plus / minus, disclosure triangles) on Pillow-drawn trees."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from gui_agent.geometry import Box
from gui_agent.parsing.elements import ElementKind
from gui_agent.parsing.fusion import fuse
from gui_agent.parsing.tree_glyphs import tree_expanders
from gui_agent.parsing.widgets import detect_widgets

THEMES = {
    "light": dict(bg=(255, 255, 255), fg=(20, 20, 20), border=(150, 150, 150), inner=(228, 228, 228)),
    "dark": dict(bg=(30, 31, 34), fg=(225, 225, 225), border=(130, 130, 136), inner=(44, 45, 48)),
}
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def _boxed(d: ImageDraw.ImageDraw, t: dict, x: int, y: int, side: int, plus: bool) -> Box:
    d.rectangle([x, y, x + side - 1, y + side - 1], fill=t["inner"], outline=t["border"])
    mid, arm = side // 2, side // 2 - 3
    d.line([x + mid - arm, y + mid, x + mid + arm, y + mid], fill=t["fg"], width=1)
    if plus:
        d.line([x + mid, y + mid - arm, x + mid, y + mid + arm], fill=t["fg"], width=1)
    # dotted connector lines touching the box, as classic tree views draw them
    for k in range(0, 8, 2):
        d.point((x + side + k, y + mid), fill=t["border"])
        d.point((x + mid, y + side + k), fill=t["border"])
    return Box(x, y, side, side)


def _tree(theme: str, side: int) -> tuple[np.ndarray, list[tuple[Box, str]]]:
    t = THEMES[theme]
    img = Image.new("RGB", (420, 260), t["bg"])
    d = ImageDraw.Draw(img)
    font = ImageFont.truetype(FONT, 14)
    truth = [(_boxed(d, t, 10, 12, side, True), "expand"),
             (_boxed(d, t, 10, 52, side, False), "collapse"),
             (_boxed(d, t, 30, 92, side, True), "expand")]
    for (box, _), name in zip(truth, ("Jerald", "Bernardine", "Kenda"), strict=True):
        d.text((box.right + 14, box.top - 2), name, fill=t["fg"], font=font)
    d.polygon([(12, 140), (12, 150), (17, 145)], fill=t["fg"])          # ▸
    truth.append((Box(12, 140, 6, 11), "expand"))
    d.polygon([(10, 180), (20, 180), (15, 185)], fill=t["fg"])          # ▾
    truth.append((Box(10, 180, 11, 6), "collapse"))
    d.text((30, 138), "Documents", fill=t["fg"], font=font)
    d.text((30, 176), "Pictures", fill=t["fg"], font=font)
    # look-alikes that are not expanders: an empty and a ticked check box, a letter
    d.rectangle([220, 12, 233, 25], fill=t["bg"], outline=t["fg"])
    d.rectangle([220, 52, 233, 65], fill=t["bg"], outline=t["fg"])
    d.line([(223, 59), (226, 62), (231, 55)], fill=t["fg"], width=2)
    d.text((220, 92), "Box H A D", fill=t["fg"], font=font)
    return np.asarray(img), truth


@pytest.mark.parametrize("theme", list(THEMES))
@pytest.mark.parametrize("side", [9, 11, 17])
def test_expanders_are_found_and_labelled(theme, side):
    rgb, truth = _tree(theme, side)
    gray = np.asarray(Image.fromarray(rgb).convert("L"))
    found = tree_expanders(gray)
    assert len(found) == len(truth), [str(e) for e in found]
    for box, label in truth:
        hit = [e for e in found if e.box.iou(box) > 0.4]
        assert len(hit) == 1 and hit[0].label == label and hit[0].kind is ElementKind.ICON, (box, label)


@pytest.mark.parametrize("theme", list(THEMES))
def test_fused_expanders_are_icons_not_checkboxes(theme):
    rgb, truth = _tree(theme, 13)
    elements = fuse([], detect_widgets(rgb), rgb)
    for box, label in truth:
        at = [e for e in elements if e.box.iou(box) > 0.3]
        assert [(e.kind, e.label) for e in at] == [(ElementKind.ICON, label)], [str(e) for e in at]
    boxes = [e for e in elements if e.kind is ElementKind.CHECKBOX]
    assert len(boxes) == 2 and sorted(e.checked for e in boxes) == [False, True]


def test_a_blank_screen_has_no_expanders():
    assert tree_expanders(np.full((120, 200), 240, np.uint8)) == []
