"""Fusing a screen compares each widget and line with its neighbours, not with every other one:
a 4K spreadsheet's thousands of cells took 20 s of pairwise comparisons before its words were
even read."""

from __future__ import annotations

import numpy as np

from gui_agent.geometry import Box
from gui_agent.parsing import fusion, table_cells
from gui_agent.parsing.elements import Element, ElementKind
from gui_agent.parsing.ocr import TextLine

COLS, ROWS, W, H = 40, 50, 90, 28


def _spreadsheet() -> tuple[list[TextLine], list[Element]]:
    cells, lines = [], []
    for r in range(ROWS):
        for c in range(COLS):
            box = Box(10 + c * W, 10 + r * H, W + 1, H + 1)     # neighbours share their borders
            cells.append(Element(ElementKind.TEXT_FIELD, box, source="detector"))
            lines.append(TextLine(f"v{r}x{c}", Box(box.left + 4, box.top + 7, 40, 14), 0.9))
    return lines, cells


def test_a_spreadsheet_of_2000_cells_is_fused_by_comparing_neighbours_only(monkeypatch):
    lines, cells = _spreadsheet()
    counts = {"pairs": 0}
    touching, intersection = table_cells._touching, Box.intersection

    def counted_touching(a, b):
        counts["pairs"] += 1
        return touching(a, b)

    def counted_intersection(self, other):
        counts["pairs"] += 1
        return intersection(self, other)

    monkeypatch.setattr(table_cells, "_touching", counted_touching)
    monkeypatch.setattr(Box, "intersection", counted_intersection)
    rgb = np.full((10 + ROWS * H + 20, 10 + COLS * W + 20, 3), 255, np.uint8)
    out = fusion.fuse(lines, cells, rgb)
    n = len(cells)
    assert counts["pairs"] < 60 * n, counts          # every pair of 2,000 would be 4,000,000
    texts = {e.text for e in out if e.kind == ElementKind.TEXT}
    assert not [e for e in out if e.kind == ElementKind.TEXT_FIELD]   # the grid's cells are text
    assert {"v0x0", "v49x39", "v17x23"} <= texts


def test_the_widgets_of_a_drawn_grid_are_deduplicated_by_comparing_neighbours_only(monkeypatch):
    from PIL import Image, ImageDraw

    from gui_agent.parsing.widgets import detect_widgets

    img = Image.new("RGB", (10 + COLS * W + 20, 10 + ROWS * H + 20), "white")
    d = ImageDraw.Draw(img)
    for c in range(COLS + 1):
        d.line((10 + c * W, 10, 10 + c * W, 10 + ROWS * H), fill=(150, 150, 150))
    for r in range(ROWS + 1):
        d.line((10, 10 + r * H, 10 + COLS * W, 10 + r * H), fill=(150, 150, 150))
    counts = {"pairs": 0}
    intersection = Box.intersection

    def counted_intersection(self, other):
        counts["pairs"] += 1
        return intersection(self, other)

    monkeypatch.setattr(Box, "intersection", counted_intersection)
    found = detect_widgets(np.asarray(img))
    assert len(found) >= 0.9 * COLS * ROWS, len(found)
    assert counts["pairs"] < 60 * len(found), counts
