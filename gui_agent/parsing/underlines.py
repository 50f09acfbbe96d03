"""Lines under text are not text: a link's underline (or a rule just below a line) is painted
over before the line is recognised.

The recogniser reads an underlined short text badly: the underline joins the words, so their
spaces go, and a symbol over it becomes another ('>' over a line reads as '≥', then '2': a
pager's "1 2 3 >" was read "1232"). An underline is the lowest band of a text crop's inked rows
when it is thin, long (its runs as long as the text is tall, or as wide as the glyphs right above
it: a lone underlined '>') and apart from the glyphs above it by a blank row; descenders ('g',
'y') touch the glyphs and are kept, and an underscore has no glyph above it.
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
        if y < top:                                  # one band: the text itself ...
            return _mnemonic_painted(crop, ink, background) if out is crop else out
        above = np.flatnonzero(rows[:y + 1])
        text_height = int(above[-1] - above[0] + 1)
        band = slice(y + 1, bottom + 1)
        start, run = _longest_run(ink[band])
        under_glyphs = run >= 0.4 * text_height and ink[:y + 1, start:start + run].any(axis=0).mean() >= 0.75
        if bottom - y > max(3, text_height // 6) or (run < 0.8 * text_height and not under_glyphs):
            break                                    # thick, or short and alone: glyphs, not a line
        if out is crop:
            out = crop.copy()
        out[band] = background
        rows[band] = False
    return out


def _mnemonic_painted(crop: np.ndarray, ink: np.ndarray, background: np.ndarray) -> np.ndarray:
    """... or a letter's short underline (a mnemonic: "F" of "File") whose rows a neighbour's
    tail reaches ("e"): apart from the glyph above it within its own columns, thin, and as wide as
    that glyph. Painted over in those columns only."""
    rows = np.flatnonzero(ink.any(axis=1))
    bottom = int(rows[-1])
    start, run = _longest_run(ink[bottom:bottom + 1])
    if run < 3:
        return crop
    cols = ink[:, start:start + run].any(axis=1)
    y = bottom
    while y >= 0 and cols[y]:
        y -= 1
    above = np.flatnonzero(cols[:y + 1]) if y >= 0 else np.array([], int)
    if above.size == 0:
        return crop                                  # an underscore: nothing above it
    text_height = int(rows[-1] - rows[0] + 1)
    glyph = ink[:y + 1, start:start + run].any(axis=0).mean()
    if bottom - y > max(2, text_height // 8) or run < 0.3 * text_height or glyph < 0.75:
        return crop
    # the glyph's foot right above the gap lies within the line's columns: a "0"'s bottom arc
    # under its hole has the glyph's sides beside it
    left = max(0, start - 1)
    foot = np.flatnonzero(ink[max(0, y - 3):y + 1, left:start + run + 1].any(axis=0)) + left
    if foot.size and (foot[0] < start or foot[-1] >= start + run):
        return crop
    out = crop.copy()
    out[y + 1:bottom + 1, start:start + run] = background
    return out


def _longest_run(ink: np.ndarray) -> tuple[int, int]:
    """(start column, length) of the longest horizontal run of ink in any of the rows."""
    best = (0, 0)
    for row in ink:
        padded = np.concatenate(([0], row.astype(np.int8), [0]))
        edges = np.flatnonzero(np.diff(padded))
        if len(edges):
            lengths = edges[1::2] - edges[::2]
            k = int(lengths.argmax())
            if int(lengths[k]) > best[1]:
                best = (int(edges[2 * k]), int(lengths[k]))
    return best
