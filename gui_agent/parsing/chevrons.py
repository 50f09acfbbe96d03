"""Chevrons read by their shape: a pager's '<' and '>' ("< 3 >", "1 >").

The text recogniser reads a lone chevron as a letter ('>' as "V" or "N", "< 3 >" as "ЗN" with too
little confidence to be kept), so the pager that leads to a list's next page goes unseen. Only a
short line whose read is short or dropped is read again so (parsing/ocr.py); in a line of words
the recogniser reads its own '<' and '>' ("Profile: Ann <ann@example.org>"). A
chevron is two straight strokes meeting at a point: column by column its ink spans a steadily,
evenly growing height from the tip, mirrored about its middle row, and at its open end the middle
rows are blank; a pager's chevron stands a space apart from its neighbours. The chevrons at either end of
a text crop are taken out (painted in the background colour) and put back as '<' or '>' around
what the recogniser reads of the rest.
"""

from __future__ import annotations

import numpy as np

INK_CONTRAST = 60           # grey levels between a stroke and its background
_MIN_HEIGHT = 6             # px: smaller ink is a dot or a dash, not a chevron
MAX_GLYPHS = 8              # a pager ("< 3 >", "1 2 3 >", "Next ›") is a short line


def split_chevrons(crop: np.ndarray) -> tuple[np.ndarray, str, str]:
    """(the crop with its end chevrons painted out, the one leading '<' or "", the one trailing
    '>' or ""); the crop itself and two empty strings when neither end is a chevron."""
    import cv2

    gray = crop.mean(axis=2) if crop.ndim == 3 else crop.astype(float)
    ground = float(np.median(gray))
    ink = (np.abs(gray - ground) > INK_CONTRAST).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    parts = sorted((int(stats[i][0]), i) for i in range(1, count) if stats[i][4] >= 4)
    if not parts or len(parts) > MAX_GLYPHS:
        return crop, "", ""       # a line of words: its '<' and '>' are the recogniser's to read
    lead = trail = ""
    out = crop
    for end, (x, i) in (("lead", parts[0]), ("trail", parts[-1])):
        if end == "trail" and len(parts) == 1 and lead:
            break
        w, h = int(stats[i][2]), int(stats[i][3])
        y = int(stats[i][1])
        others = [k for _, k in parts if k != i]
        if others and _gap(stats, i, others) < 0.25 * h:
            continue              # glued to a word: a letter of it, not a pager's chevron
        way = chevron_way(labels[y:y + h, x:x + w] == i)
        if (end, way) not in (("lead", "left"), ("trail", "right")):
            continue
        if out is crop:
            out = crop.copy()
        background = np.median(crop.reshape(-1, crop.shape[-1]) if crop.ndim == 3 else crop, axis=0)
        out[labels == i] = background
        lead, trail = ("<", trail) if end == "lead" else (lead, ">")
    return out, lead, trail


def _gap(stats: np.ndarray, i: int, others: list[int]) -> int:
    """Columns between component ``i`` and the nearest of ``others``."""
    left, right = int(stats[i][0]), int(stats[i][0] + stats[i][2])
    return min(max(int(stats[k][0]) - right, left - int(stats[k][0] + stats[k][2])) for k in others)


def chevron_way(mask: np.ndarray) -> str | None:
    """"left" ('<') or "right" ('>') when the component is an open chevron, else None."""
    h, w = mask.shape
    if h < _MIN_HEIGHT or w < 0.45 * h or w > 1.5 * h:     # a "(" is narrower
        return None
    spans = []
    for col in mask.T:
        rows = np.flatnonzero(col)
        if not rows.size:
            return None
        if abs((rows[0] + rows[-1]) / 2 - (h - 1) / 2) > max(1.5, 0.15 * h):
            return None           # its two strokes mirror each other about the middle row ('y' not)
        spans.append(int(rows[-1] - rows[0] + 1))
    for way, s in (("right", spans), ("left", spans[::-1])):
        # from the open end (its stroke ends may be rounded: the widest column is near it) to
        # the tip the spanned height shrinks steadily, a little per column
        widest = s.index(max(s))
        if widest > max(1, len(s) // 4):
            continue
        s = s[widest:]
        steady = all(b <= a + 1 for a, b in zip(s, s[1:], strict=False))
        gradual = all(a - b <= max(2, 0.4 * h) for a, b in zip(s, s[1:], strict=False))
        # straight strokes: halfway to the tip the height is about halved (a round 'C' or 'O'
        # keeps most of its height until close to its side)
        straight = s[len(s) // 2] <= 0.75 * s[0]
        if not (steady and gradual and straight and s[0] >= 0.8 * h and s[-1] <= 0.45 * h):
            continue
        wide_col = widest if way == "right" else w - 1 - widest
        middle = mask[h // 3: h - h // 3, wide_col]
        if not middle.any():          # open at the wide end: two strokes, not a letter's stem
            return way
    return None
