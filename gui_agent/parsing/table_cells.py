"""Bordered boxes that tile a table are its cells, not text fields.

A table drawn with cell borders looks, box by box, like a column of text fields. What sets it
apart is that its boxes touch: each shares a border with a neighbour (side by side in a row,
one above the other in a column), where the fields of a form stand apart. Such boxes become
text (the cell's words), so that 'the text field' means the form's field and 'the value right
of Color' reads the cell beside the cell "Color".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..geometry import Box, BoxGrid
from .elements import Element, ElementKind

K = ElementKind
OVERLAP_PX = 6         # neighbouring cells' boxes overlap on their shared border, up to this
GAP_PX = 1             # ... or leave at most this gap (fields of a form stand further apart)
SHARED_SIDE = 0.6      # ... along at least this share of the shorter side


def _abut(gap: int) -> bool:
    return -OVERLAP_PX <= gap <= GAP_PX


def _touching(a: Box, b: Box) -> bool:
    """Whether ``a`` and ``b`` share a border: side by side or one above the other."""
    rows = min(a.bottom, b.bottom) - max(a.top, b.top)
    cols = min(a.right, b.right) - max(a.left, b.left)
    side_by_side = (_abut(b.left - a.right) or _abut(a.left - b.right)) and \
        rows >= SHARED_SIDE * min(a.height, b.height)
    stacked = (_abut(b.top - a.bottom) or _abut(a.top - b.bottom)) and \
        cols >= SHARED_SIDE * min(a.width, b.width)
    return side_by_side or stacked


def table_cells(elements: list[Element]) -> list[Element]:
    """``elements`` with the text fields that tile a table turned into text (empty cells are
    dropped: an empty table cell is nothing to click or read)."""
    fields = [e for e in elements if e.kind == K.TEXT_FIELD]
    grid = BoxGrid(fields, lambda e: e.box)

    def touching(field: Element) -> list[Element]:
        return [g for g in grid.near(field.box, GAP_PX + 1) if g is not field and _touching(field.box, g.box)]

    cells = {id(f) for f in fields if touching(f) and _in_grid(f, touching)}
    out = []
    for e in elements:
        if id(e) not in cells:
            out.append(e)
        elif e.text:
            out.append(replace(e, kind=K.TEXT, label=""))
    return out


def _in_grid(cell: Element, touching: Callable[[Element], list[Element]]) -> bool:
    """A cell of a grid has neighbours that touch it and also touch one another's rows or
    columns: at least two other boxes reachable by shared borders (a pair of boxes alone, a
    field with its attached button, is no table)."""
    seen, frontier = {id(cell)}, [cell]
    while frontier and len(seen) < 3:
        current = frontier.pop()
        for other in touching(current):
            if id(other) not in seen:
                seen.add(id(other))
                frontier.append(other)
    return len(seen) >= 3
