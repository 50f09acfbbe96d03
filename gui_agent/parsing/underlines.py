"""Lines under text are not text: a link's underline (or a rule just below a line) is painted
over before the line is recognised.

The recogniser reads an underlined short text badly: the underline joins the words, so their
spaces go, and a symbol over it becomes another ('>' over a line reads as '≥', then '2': a
pager's "1 2 3 >" was read "1232"). An underline is the lowest band of a text crop's inked rows
when it is thin, long (its runs as long as the text is tall) and apart from the glyphs above it
by a blank row; descenders ('g', 'y') touch the glyphs and are kept.
"""

from __future__ import annotations

import numpy as np

INK_CONTRAST = 40     # grey levels between ink and the background
MAX_BANDS = 2         # an underline and a rule under it (a page's footer edge) at most


def without_underlines(crop: np.ndarray) -> np.ndarray:
    """``crop`` (BGR, with blank rows above its text) with the line-like bands at its bottom
    painted in its background colour; the crop itself when there are none."""
    h, w = crop.shape[:2]
    if h < 8 or w < 8:
        return crop
    gray = crop.mean(axis=2)
    background = np.median(crop[0], axis=0)          # the blank row above the glyphs
    ink = np.abs(gray - float(np.median(gray[0]))) > INK_CONTRAST
    rows = ink.any(axis=1)
    out = crop
    for _ in range(MAX_BANDS):
        inked = np.flatnonzero(rows)
        if len(inked) == 0:
            break
        top, bottom = int(inked[0]), int(inked[-1])
        y = bottom
        while y >= top and rows[y]:
            y -= 1
        if y < top:                                  # one band: the text itself
            break
        above = np.flatnonzero(rows[:y + 1])
        text_height = int(above[-1] - above[0] + 1)
        band = slice(y + 1, bottom + 1)
        if bottom - y > max(2, text_height // 6) or _longest_run(ink[band]) < 0.8 * text_height:
            break                                    # thick, or short: glyphs, not a line
        if out is crop:
            out = crop.copy()
        out[band] = background
        rows[band] = False
    return out


def _longest_run(ink: np.ndarray) -> int:
    """The longest horizontal run of ink in any of the rows."""
    best = 0
    for row in ink:
        padded = np.concatenate(([0], row.astype(np.int8), [0]))
        edges = np.flatnonzero(np.diff(padded))
        if len(edges):
            best = max(best, int((edges[1::2] - edges[::2]).max()))
    return best
