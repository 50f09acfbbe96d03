"""Text crops as the recogniser reads them best: a detected box with blank rows above and below
its glyphs, and a box cut where a wide gap separates two texts detection joined."""

from __future__ import annotations

import numpy as np

from ..geometry import Box

_INK_CONTRAST = 40      # grey levels between text and its background


def with_air(bgr: np.ndarray, box: Box) -> np.ndarray:
    """The crop of ``box`` with blank rows above and below its glyphs: ~15 % of its height each
    side (3 px at least), taken from the frame's blank rows beyond the box where the box has
    too few (never over a border or the next line, which confuse the recogniser more).

    On a crop cut tight to the glyphs the recogniser drops the spaces between words
    ("Crasvitaenunc." for "Cras vitae nunc.").
    """
    pad = max(3, round(0.15 * box.height))
    h = bgr.shape[0]

    def blank(y: int) -> bool:
        row = bgr[y, box.left:box.right]
        return row.size > 0 and int(row.max()) - int(row.min()) < 40

    inked = [y for y in range(box.top, box.bottom) if not blank(y)]
    if not inked:
        return bgr[box.top:box.bottom, box.left:box.right]
    above, below = inked[0] - box.top, box.bottom - 1 - inked[-1]
    top = box.top
    while above < pad and top > 0 and blank(top - 1):
        top, above = top - 1, above + 1
    bottom = box.bottom
    while below < pad and bottom < h and blank(bottom):
        bottom, below = bottom + 1, below + 1
    return bgr[top:bottom, box.left:box.right]


def split_at_gaps(crop: np.ndarray, box: Box) -> list[Box]:
    """Split a detected box where a blank gap wider than ~1.2 text heights separates two texts.

    Detection often joins two labels that sit close on one row ("Name  Cancel"), or a label and
    the text inside the field beside it ("Region:Europe", across the field's border); splitting
    them keeps each element's text and box its own.
    """
    patch = crop[box.top:box.bottom, box.left:box.right]
    if patch.size == 0 or box.width < 2 * box.height:
        return [box]
    gray = patch.mean(axis=2)
    border = np.concatenate([gray[0], gray[-1], gray[:, 0], gray[:, -1]])
    ink = np.abs(gray - np.median(border)) > _INK_CONTRAST
    col_fill = ink.mean(axis=0)
    # a column inked from the top rows to the bottom rows is a widget border, not text; a letter's
    # stem ("L", "I") may fill most of a tight box's height but leaves its top or bottom blank
    is_border = (col_fill >= 0.8) & ink[:2].any(axis=0) & ink[-2:].any(axis=0)
    cols = (col_fill > 0) & ~is_border
    if not cols.any():
        return [box]
    # a word space is up to ~0.7 em in monospaced fonts; two labels lie further apart than that
    rows = np.flatnonzero(ink[:, cols].any(axis=1))
    min_gap = max(10, round(1.2 * (rows[-1] - rows[0] + 1)))
    xs = np.flatnonzero(cols)
    first, last = int(xs[0]), int(xs[-1])
    parts: list[tuple[int, int]] = []
    start, run, fenced = first, 0, False
    for x in range(first, last + 1):
        if cols[x]:
            # a wide gap, or a widget's border with space around it (not a '$' or 'l' stem)
            if run >= min_gap or (fenced and run >= 5):
                parts.append((start, x - run))
                start = x
            run, fenced = 0, False
        else:
            run += 1
            fenced = fenced or bool(col_fill[x] >= 0.95)
    parts.append((start, last + 1))
    borders = np.flatnonzero(is_border)
    pad = max(2, box.height // 6)
    out = []
    for a, b in parts:
        lo = int(borders[borders < a].max()) + 1 if (borders < a).any() else 0
        hi = int(borders[borders >= b].min()) if (borders >= b).any() else box.width
        a, b = max(lo, a - pad), min(hi, b + pad)
        out.append(Box(box.left + a, box.top, b - a, box.height))
    return out
