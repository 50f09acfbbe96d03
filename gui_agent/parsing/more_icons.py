"""Overflow-menu buttons: three dots in a row ("⋯", a post's or a row's "more" menu) or in a
column ("⋮", a toolbar's menu), drawn as an icon with no caption.

Each becomes an ICON labelled "more", so that 'the more icon after "@ann"' names the menu of
Ann's post, and the worker can open it to look for an item that shows only there. Three dots
are three small, round, equal blobs of ink, equally spaced on one line, standing alone (an
ellipsis ending a word is glued to its letters). Works on ink (light and dark themes alike).
"""

from __future__ import annotations

import numpy as np

from ..geometry import Box
from .elements import Element, ElementKind
from .tree_glyphs import ink_masks

LABEL = "more"
INK = 30                        # grey levels: the dots of a row's "⋯" are often a faint grey
_DOT_MIN, _DOT_MAX = 2, 14      # px: a dot's side
_SPACING = (1.3, 4.0)           # centre-to-centre distance, in dot sizes


def more_icons(gray: np.ndarray, masks: tuple[np.ndarray, np.ndarray] | None = None) -> list[Element]:
    """Three-dot menu buttons, as ICON elements labelled "more" (boxes in image pixels).
    ``masks``: :func:`ink_masks` of ``gray`` at :data:`INK`, when the caller has them already."""
    found: list[Element] = []
    for ink in masks or ink_masks(gray, INK):
        for box in _dot_rows(ink):
            if not any(box.intersection(e.box) for e in found):
                found.append(Element(ElementKind.ICON, box, score=0.85, source="detector", label=LABEL))
    return found


def _dot_rows(ink: np.ndarray) -> list[Box]:
    import cv2

    count, _, stats, centroids = cv2.connectedComponentsWithStats(ink, connectivity=8)
    w, h, area = stats[1:, 2], stats[1:, 3], stats[1:, 4]
    size = np.maximum(w, h)
    keep = (w >= _DOT_MIN) & (w <= _DOT_MAX) & (h >= _DOT_MIN) & (h <= _DOT_MAX) \
        & (np.abs(w - h) <= np.maximum(1, w // 3)) & (area >= 0.55 * w * h)
    idx = np.flatnonzero(keep)
    cx, cy, sz = centroids[1:, 0][idx], centroids[1:, 1][idx], size[idx].astype(float)
    rects = stats[1:, :4][idx]
    out: list[Box] = []
    for a in range(len(idx)):
        same = np.abs(sz - sz[a]) <= np.maximum(1, 0.35 * sz[a])
        dx, dy = cx - cx[a], cy - cy[a]
        for across, along in ((dy, dx), (dx, dy)):          # a row of dots, then a column
            step_ok = (along >= _SPACING[0] * sz[a]) & (along <= _SPACING[1] * sz[a])
            for b in np.flatnonzero(same & step_ok & (np.abs(across) <= 1.5)):
                tol = max(1.5, 0.2 * float(along[b]))
                third = np.flatnonzero(same & (np.abs(along - 2 * along[b]) <= tol)
                                       & (np.abs(across - 2 * across[b]) <= tol))
                if third.size == 0:
                    continue
                box = _union([tuple(int(v) for v in rects[k]) for k in (a, b, int(third[0]))])
                if _alone(ink, box, int(sz[a])) and not any(box.intersection(o) for o in out):
                    out.append(box)
    return out


def _union(rects: list[tuple[int, int, int, int]]) -> Box:
    left = min(r[0] for r in rects)
    top = min(r[1] for r in rects)
    right = max(r[0] + r[2] for r in rects)
    bottom = max(r[1] + r[3] for r in rects)
    return Box(left, top, right - left, bottom - top)


def _alone(ink: np.ndarray, box: Box, size: int) -> bool:
    """No other ink within a dot's spacing around the three (not the end of "Loading...")."""
    m = 2 * size + 2
    H, W = ink.shape
    around = ink[max(0, box.top - m):min(H, box.bottom + m), max(0, box.left - m):min(W, box.right + m)]
    inside = ink[box.top:box.bottom, box.left:box.right]
    return int(around.sum()) == int(inside.sum())
