"""A resize grip: the two or three short parallel diagonal strokes in a box's bottom-right corner
that a browser draws on a text area (a multi-line field that can be made larger), whatever its
height; a one-line field has none."""

from __future__ import annotations

import numpy as np

from ..geometry import Box
from .indicators import INK

BORDER_INSET = 2    # px of the field's own border left out


def has_resize_grip(gray: np.ndarray, box: Box) -> bool:
    """Whether ``box`` (a field) shows a resize grip in its bottom-right corner."""
    side = int(min(28, max(10, round(0.45 * box.height))))
    right, bottom = box.right - BORDER_INSET, box.bottom - BORDER_INSET
    patch = gray[max(0, bottom - side):bottom, max(0, right - side):right].astype(np.int16)
    if patch.shape != (side, side) or box.width < 2 * side:
        return False
    ink = np.abs(patch - int(np.median(patch))) > INK
    ink[:, ink.mean(axis=0) > 0.6] = False     # the field's border, where the inset left some
    ink[ink.mean(axis=1) > 0.6, :] = False
    ys, xs = np.nonzero(ink)
    if xs.size < side // 2:
        return False
    diagonal = xs + ys                          # constant along a stroke from bottom-left to top-right
    if diagonal.min() < side - 2 or np.ptp(xs - ys) < 0.4 * side:
        return False                            # ink in the corner's upper-left half, or dots
    counts = np.bincount(diagonal - diagonal.min())
    strokes, gap, in_stroke = 0, 0, False
    for c in counts:
        if c > 0 and not in_stroke:
            strokes, in_stroke = strokes + 1, True
        elif c == 0:
            gap, in_stroke = gap + 1, False
    return 2 <= strokes <= 3 and gap >= 2
