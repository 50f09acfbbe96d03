"""Tree-view expanders: the boxed plus / minus ("⊞" / "⊟") and the disclosure triangles
("▸" / "▾") that mark collapsed and expanded nodes in file trees and outlines everywhere.

Each becomes an ICON labelled "expand" (collapsed node) or "collapse" (expanded node), so that
'the 1st expand icon' names the first collapsed node in reading order. Works on ink (pixels far
from the local background, found with morphological top/black-hat), so light and dark themes
alike, and tolerates the dotted connector lines that touch a boxed expander.
"""

from __future__ import annotations

import numpy as np

from ..geometry import Box
from .elements import Element, ElementKind

_INK = 50            # grey levels between ink and its local background
_BOX_MIN, _BOX_MAX = 5, 22      # inner side of a boxed expander, pixels
_TRI_MIN, _TRI_MAX = 5, 16      # side of a disclosure triangle, pixels


def ink_strength(gray: np.ndarray, reach: int = 13) -> tuple[np.ndarray, np.ndarray]:
    """How much darker, and how much lighter, each pixel is than its surroundings (strokes
    thinner than ``reach`` px; grey levels). Computed once per frame for every glyph finder's
    :func:`ink_masks`."""
    import cv2

    g = gray if gray.dtype == np.uint8 else np.clip(gray, 0, 255).astype(np.uint8)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (reach, reach))
    return cv2.morphologyEx(g, cv2.MORPH_BLACKHAT, kernel), cv2.morphologyEx(g, cv2.MORPH_TOPHAT, kernel)


def ink_masks(gray: np.ndarray, level: int = _INK,
              strength: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Thin strokes darker, and those lighter, than their surroundings by more than ``level``
    (1 = ink). The two are kept apart: a light box interior inside a dark outline is not ink
    of the outline's kind."""
    dark, light = strength if strength is not None else ink_strength(gray)
    return (dark > level).astype(np.uint8), (light > level).astype(np.uint8)


def tree_expanders(gray: np.ndarray, masks: tuple[np.ndarray, np.ndarray] | None = None) -> list[Element]:
    """Boxed plus/minus signs and disclosure triangles, as ICON elements labelled
    "expand" or "collapse" (boxes in the image's pixels). ``masks``: :func:`ink_masks` of
    ``gray``, when the caller has them already."""
    import cv2

    found: list[Element] = []
    for ink in masks or ink_masks(gray):
        for e in [*_boxed_signs(ink, cv2), *_triangles(ink, cv2)]:
            if not any(e.box.intersection(o.box) for o in found):
                found.append(e)
    return found


def _boxed_signs(ink: np.ndarray, cv2) -> list[Element]:
    """A closed square outline whose hole holds a centred "+" or "-" and nothing else."""
    contours, hierarchy = cv2.findContours(ink, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    out: list[Element] = []
    if hierarchy is None:
        return out
    for i, contour in enumerate(contours):
        if hierarchy[0][i][3] == -1:      # an outer outline; the holes are what we look at
            continue
        x, y, w, h = cv2.boundingRect(contour)
        # the hole contour runs on the ring's inner ink pixels: the blank interior is 1 px in
        x, y, w, h = x + 1, y + 1, w - 2, h - 2
        if not (_BOX_MIN <= w <= _BOX_MAX and _BOX_MIN <= h <= _BOX_MAX and abs(w - h) <= 2):
            continue
        sign = _sign_in(ink[y:y + h, x:x + w])
        if sign is None:
            continue
        label = "expand" if sign == "+" else "collapse"
        out.append(Element(ElementKind.ICON, Box(x - 2, y - 2, w + 4, h + 4), score=0.9,
                           source="detector", label=label))
    return out


def _sign_in(inside: np.ndarray) -> str | None:
    """"+" or "-" when the interior holds one centred bar shape and a blank margin around it."""
    import cv2

    h, w = inside.shape
    count, labels, stats, _ = cv2.connectedComponentsWithStats(inside, connectivity=8)
    # ink touching the rectangle is the ring's rounded inner corners; the sign stands free
    free = [i for i in range(1, count) if stats[i][0] > 0 and stats[i][1] > 0
            and stats[i][0] + stats[i][2] < w and stats[i][1] + stats[i][3] < h]
    if len(free) != 1 or sum(int(stats[i][4]) for i in range(1, count)) > 1.3 * stats[free[0]][4] + 8:
        return None
    ys, xs = np.nonzero(labels == free[0])
    if ys.size < 3:
        return None
    inside = (labels == free[0]).astype(np.uint8)
    top, bottom, left, right = int(ys.min()), int(ys.max()), int(xs.min()), int(xs.max())
    gw, gh = right - left + 1, bottom - top + 1
    if abs((left + right) / 2 - (w - 1) / 2) > 1.5 or abs((top + bottom) / 2 - (h - 1) / 2) > 1.5:
        return None
    if gw < 0.35 * w:
        return None
    glyph = inside[top:bottom + 1, left:right + 1]
    fill = glyph.mean()
    if gh <= max(3, 0.25 * gw) and fill > 0.8:
        return "-"
    if abs(gw - gh) > 2:
        return None
    mid_row, mid_col = glyph[gh // 2], glyph[:, gw // 2]
    corners = glyph[0, 0] + glyph[0, -1] + glyph[-1, 0] + glyph[-1, -1]
    if mid_row.mean() > 0.8 and mid_col.mean() > 0.8 and corners == 0 and fill < 0.7:
        return "+"
    return None


def _triangles(ink: np.ndarray, cv2) -> list[Element]:
    """Solid triangles pointing right (collapsed) or down (expanded), standing alone."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    out: list[Element] = []
    H, W = ink.shape
    for i in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[i])
        if not (_TRI_MIN <= w <= _TRI_MAX and _TRI_MIN <= h <= _TRI_MAX):
            continue
        mask = labels[y:y + h, x:x + w] == i
        if not 0.35 <= area / (w * h) <= 0.7:
            continue
        # alone: no other ink in a margin around it (not a letter inside a word; checked first,
        # as it is cheap and rules out most of the glyphs of a page of text)
        m = 3
        around = ink[max(0, y - m):min(H, y + h + m), max(0, x - m):min(W, x + w + m)]
        if int(around.sum()) != area:
            continue
        way = _solid_pointing(mask)
        if way is None:
            continue
        label = "expand" if way == "right" else "collapse"
        out.append(Element(ElementKind.ICON, Box(x, y, w, h), score=0.8, source="detector",
                           label=label))
    return out


def _solid_pointing(mask: np.ndarray) -> str | None:
    """"right" or "down" for a filled triangle: one span per row/column, shrinking steadily
    from a full base to a tip."""
    for way, m in (("right", mask.T), ("down", mask)):
        spans = []
        for line in m:
            cols = np.flatnonzero(line)
            if cols.size == 0 or cols[-1] - cols[0] + 1 != cols.size:
                spans = []
                break
            spans.append(int(cols.size))
        if len(spans) < 4:
            continue
        base = spans[0]
        shrinking = all(b <= a for a, b in zip(spans, spans[1:], strict=False))
        if shrinking and base >= 0.8 * m.shape[1] and spans[-1] <= max(2, base // 3):
            # the tip is centred on the base (a right triangle is a corner, not a pointer)
            rows = [np.flatnonzero(line) for line in m]
            tip_mid = (rows[-1][0] + rows[-1][-1]) / 2
            if abs(tip_mid - (m.shape[1] - 1) / 2) <= 1.5:
                return way
    return None
