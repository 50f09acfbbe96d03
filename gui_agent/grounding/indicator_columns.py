"""A check box (or radio button) whose row a list's edge cuts: found by its column.

In a check list scrolled to its top, the last row may be cut by the list's bottom edge (larger
fonts make it common): its name is read, but its box is only partly shown and is not recognised
as a check box (the row may even read as a field holding the name). When a check box asked for
by name is not found, and the name is read on the row one step past the end of a regular column
of check boxes, that column's box at that row is the target: a click on its visible part ticks
it (and lists scroll a clicked row into view).
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import median

from ..geometry import Box
from ..parsing.elements import Element, ElementKind
from .description import TargetQuery
from .matching import match_text
from .scored import Scored

K = ElementKind
INDICATORS = frozenset({K.CHECKBOX, K.RADIO})
CUT_ROW_FACTOR = 0.8     # of the name's match: an indicator inferred, not seen
MIN_COLUMN = 2           # boxes in a column
ALIGN = 3                # px: a column's boxes share their left edge and width within this
MIN_VISIBLE = 4          # px of the inferred box that must show above (or below) the edge


def _columns(boxes: Sequence[Element]) -> list[list[Element]]:
    """Regular columns: boxes of one left edge and width, evenly spaced, top to bottom."""
    columns: list[list[Element]] = []
    for box in sorted(boxes, key=lambda e: (e.box.left, e.box.top)):
        column = next((c for c in columns if abs(c[0].box.left - box.box.left) <= ALIGN
                       and abs(c[0].box.width - box.box.width) <= ALIGN), None)
        if column is None:
            columns.append([box])
        else:
            column.append(box)
    out = []
    for column in columns:
        column.sort(key=lambda e: e.box.top)
        steps = [b.box.top - a.box.top for a, b in zip(column, column[1:], strict=False)]
        if len(column) >= MIN_COLUMN and all(s > 0 and abs(s - median(steps)) <= ALIGN for s in steps):
            out.append(column)
    return out


def _row_at(column: list[Element], after: bool) -> Box:
    """Where the column's next box would be, past its last (``after``) or before its first."""
    first, last = column[0].box, column[-1].box
    pitch = round(median(b.box.top - a.box.top for a, b in zip(column, column[1:], strict=False)))
    edge = last if after else first
    return Box(edge.left, edge.top + (pitch if after else -pitch), edge.width, edge.height)


def _names_row(named: Box, row: Box, column_box: Box) -> bool:
    """The name read at ``named`` stands on ``row``: level with it, and either right of the
    column (a label) or around it (a row read as a field holding the name)."""
    level = named.top <= row.center.y <= named.bottom or row.top <= named.center.y <= row.bottom
    right = 0 <= named.left - column_box.right <= 6 * column_box.width
    around = named.left <= row.left and row.right <= named.right
    return level and (right or around)


def cut_row_indicators(query: TargetQuery, elements: Sequence[Element]) -> list[Scored]:
    """Check boxes (radio buttons) asked for by a name read on the row just past a column of
    them whose own box is not seen; the box clipped to the part that shows."""
    kinds = query.kinds & INDICATORS
    if not kinds or not query.text:
        return []
    columns = _columns([e for e in elements if e.kind in kinds])
    if not columns:
        return []
    out = []
    for named in elements:
        if named.kind not in (K.TEXT, K.LINK, K.TEXT_FIELD) or not named.text:
            continue
        m = match_text(query.text, named.text)
        if m is None or (query.quoted and "fuzzy" in m.grade):
            continue
        for column in columns:
            for after in (True, False):
                row = _row_at(column, after)
                if not _names_row(named.box, row, column[-1].box):
                    continue
                top, bottom = max(row.top, named.box.top), min(row.bottom, named.box.bottom)
                if bottom - top < MIN_VISIBLE:
                    continue
                shown = Box(row.left, top, row.width, bottom - top)
                element = Element(column[0].kind, shown, named.text, source="column")
                out.append(Scored(element, shown, m.score * CUT_ROW_FACTOR,
                                  f"{column[0].kind} of the column at the row of {named.text!r}, cut"))
    return out
