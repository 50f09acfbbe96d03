"""Classical (OpenCV) detection of widgets whose shape matters: fields, boxes, buttons, icons.

Works on edges, so light and dark themes alike: a widget is a closed outline whose bounding
rectangle's border is mostly edge pixels (rectangles, rounded rectangles) or a round outline
(radio buttons). Kinds come from size, aspect and interior; the screen parser refines
buttons / fields / tabs with the text inside them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..geometry import Box, BoxGrid
from .caret_splits import join_caret_splits
from .elements import Element, ElementKind
from .named_icons import looks_like_tick
from .sliders import on_a_track

_MIN_BORDER_COVER = 0.82   # share of a rectangle's perimeter that must be edge pixels
_MARK_CONTRAST = 60        # grey levels between a check mark and the box interior
_BAND_RADIUS = 0.62        # of a radio's radius: between its dot and its ring
_BAND_INK = 0.25           # share of that band a radio's own drawing may ink


TEXT_AREA_HEIGHT = 64      # px: a bordered text box taller than this holds several lines
LARGE_BOX_FACTOR = 1.35    # a blank square face up to this many times a check box's size is one


@dataclass(frozen=True)
class WidgetSettings:
    small_min: int = 10      # checkbox / radio side, pixels
    small_max: int = 26
    field_min_width: int = 36
    field_min_height: int = 16
    field_max_height: int = TEXT_AREA_HEIGHT
    icon_min: int = 7
    icon_max: int = 28


_GLYPH_ROW_HEIGHT = 12     # px: a line of glyphs posing as a field is no taller than twice this
_BORDER_CONTRAST = 20      # grey levels between a faint field border and the field's inside


def detect_widgets(rgb: np.ndarray, settings: WidgetSettings | None = None,
                   offset: tuple[int, int] = (0, 0)) -> list[Element]:
    """Widgets in an RGB array; boxes in image pixels shifted by ``offset`` (for crops)."""
    import cv2

    s = settings or WidgetSettings()
    gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    edges = cv2.Canny(gray, 20, 60, L2gradient=True)
    grown = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    contours, hierarchy = cv2.findContours(grown, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    found: list[Element] = []
    for i, contour in enumerate(contours):
        x, y, w, h = cv2.boundingRect(contour)
        if w < s.small_min - 5 or h < s.small_min - 5 or w * h > 0.9 * gray.size:
            continue
        # the dilated stroke is ~2 px wide on each side of the drawn border: an outer outline
        # lies 2 px outside it, a hole (the inside of a box, e.g. of a tab sharing borders) 2 px in
        is_hole = hierarchy[0][i][3] != -1
        box = Box(x - 2, y - 2, w + 4, h + 4) if is_hole else Box(x + 2, y + 2, w - 4, h - 4)
        element = _classify(gray, edges, box, s)
        if element is not None:
            found.append(element)
    found = _dedupe(join_caret_splits(gray, _dedupe(found)))
    dx, dy = offset
    if dx or dy:
        found = [_shift(e, dx, dy) for e in found]
    return found


def _classify(gray: np.ndarray, edges: np.ndarray, inner: Box, s: WidgetSettings) -> Element | None:
    w, h = inner.width, inner.height
    small = s.small_min <= w <= s.small_max and s.small_min <= h <= s.small_max and abs(w - h) <= 2
    if small:
        # corners tell a square from a circle: a circle leaves its bounding box's corners blank
        if _corner_ink(gray, inner) >= 0.4:
            cover = _border_cover(edges, inner)
            if cover >= _MIN_BORDER_COVER and _weakest_side(edges, inner) >= 0.85:   # not a "G", "D"
                return Element(ElementKind.CHECKBOX, inner, score=round(cover, 2), source="detector",
                               checked=_has_mark(gray, inner, inset=max(2, w // 5)))
            if is_cross(gray, inner):
                return Element(ElementKind.CLOSE, inner, score=0.9, source="detector")
            return None
        ring = _ring_cover(edges, inner)
        if ring > 0.7 and abs(w - h) <= 1:
            return Element(ElementKind.RADIO, inner, score=round(ring, 2), source="detector",
                           checked=_has_mark(gray, inner, inset=max(2, round(w * 0.3))))
        return None
    if w >= s.field_min_width and s.field_min_height <= h <= s.field_max_height and w >= 1.6 * h:
        cover = _border_cover(edges, inner)
        if cover >= _MIN_BORDER_COVER and not _glyph_row(gray, inner):
            kind = ElementKind.COMBO if _has_arrow(gray, inner) else ElementKind.TEXT_FIELD
            return Element(kind, inner, score=round(cover, 2), source="detector")
        return None
    if s.field_max_height < h <= 2 * s.field_max_height and 2 * s.field_min_height <= w < h \
            and _border_cover(edges, inner) >= _MIN_BORDER_COVER:
        # a face taller than wide: a key spanning two rows (a calculator's "=", a keypad's "+")
        return Element(ElementKind.BUTTON, inner, score=round(_border_cover(edges, inner), 2), source="detector")
    if h > s.field_max_height and w >= 2 * s.field_min_width and _border_cover(edges, inner) >= 0.9:
        # a multi-line text area (or a framed panel: fusion drops those that hold other controls)
        return Element(ElementKind.TEXT_FIELD, inner, score=0.8, source="detector")
    if s.field_min_height <= h <= s.field_max_height and s.field_min_height <= w < 1.6 * h:
        cover = _border_cover(edges, inner)
        ticked = _large_box(gray, edges, inner, s) if cover >= _MIN_BORDER_COVER else None
        if ticked is not None:
            # a check box drawn large (a zoomed page, a touch layout): square, closed, and blank
            # or holding a check mark
            return Element(ElementKind.CHECKBOX, inner, score=round(cover, 2), source="detector", checked=ticked)
        if cover >= _MIN_BORDER_COVER:   # a squarish bordered face: an icon button
            return Element(ElementKind.BUTTON, inner, score=round(cover, 2), source="detector")
    return None


def _large_box(gray: np.ndarray, edges: np.ndarray, b: Box, s: WidgetSettings) -> bool | None:
    """A square face up to LARGE_BOX_FACTOR times a check box's usual size, closed on all four
    sides, square-cornered, and blank inside (False: an unticked check box) or holding a mark
    shaped like a tick (True); None: not a check box (a button's face holds its icon or its
    caption)."""
    if not (b.width <= LARGE_BOX_FACTOR * s.small_max and abs(b.width - b.height) <= 2
            and _rounded_square(gray, b) and _weakest_side(edges, b) >= 0.85):
        return None
    if on_a_track(gray, b):
        return None             # a slider's thumb
    if not _has_mark(gray, b, inset=max(3, b.width // 5)):
        return False
    return True if looks_like_tick(gray, b) else None


def _rounded_square(gray: np.ndarray, b: Box) -> bool:
    """Ink near each corner of the outline, along its diagonal within a sixth of its side: a
    square with rounded corners has it, a circle (its corners blank for 0.29 of its side along
    the diagonal) does not."""
    outer = b.expand(3).clip(gray.shape[1], gray.shape[0])
    patch = gray[outer.top:outer.bottom, outer.left:outer.right].astype(int)
    rim = np.concatenate([patch[0], patch[-1], patch[:, 0], patch[:, -1]])
    ys, xs = np.nonzero(np.abs(patch - int(np.median(rim))) > 20)
    if ys.size == 0:
        return False
    inked = np.abs(patch - int(np.median(rim))) > 20
    t, bt, lt, rt = int(ys.min()), int(ys.max()), int(xs.min()), int(xs.max())
    reach = max(2, (bt - t) // 6)
    for y, x, dy, dx in ((t, lt, 1, 1), (t, rt, 1, -1), (bt, lt, -1, 1), (bt, rt, -1, -1)):
        if not any(inked[y + k * dy, x + k * dx] for k in range(reach + 1)):
            return False
    return True


def _glyph_row(gray: np.ndarray, b: Box) -> bool:
    """An underlined run of glyphs ('487-625-9172' as a link) outlines a box too: its "top
    border" is the glyphs' tops, broken into short pieces, and the rows just under it are inked
    here and there, where a field's top border is one line over blank padding."""
    if b.height > 2 * _GLYPH_ROW_HEIGHT or b.width < 8:
        return False
    ground = float(np.median(gray[b.top + 3:b.bottom - 3, b.left + 3:b.right - 3]))
    inside = np.abs(gray[b.top + 2:b.top + 6, b.left + 3:b.right - 3] - ground) > _MARK_CONTRAST
    if inside.size == 0 or inside.any(axis=0).mean() <= 0.15:
        return False
    top = np.abs(gray[max(0, b.top - 1):b.top + 2, b.left:b.right] - ground) > _BORDER_CONTRAST
    runs = np.diff(np.concatenate(([0], top.any(axis=0).astype(np.int8), [0])))
    starts, ends = np.flatnonzero(runs == 1), np.flatnonzero(runs == -1)
    longest = int((ends - starts).max()) if starts.size else 0
    return longest < 0.5 * b.width


def _border_cover(edges: np.ndarray, b: Box) -> float:
    """Share of the rectangle's four sides (each +-1 px, corners excluded) lying on edges."""
    sides = _side_hits(edges, b)
    total = sum(len(x) for x in sides)
    return float(sum(int(x.sum()) for x in sides) / total) if total else 0.0


def _weakest_side(edges: np.ndarray, b: Box) -> float:
    """Share of the least covered side: a box is closed on all four sides, a letter is not."""
    return min((float(x.mean()) for x in _side_hits(edges, b) if len(x)), default=0.0)


def _side_hits(edges: np.ndarray, b: Box) -> list[np.ndarray]:
    """Per side of the rectangle (corners excluded), which positions lie on an edge (+-1 px)."""
    H, W = edges.shape
    if b.right + 1 > W or b.bottom + 1 > H:
        return []
    c = max(2, min(b.width, b.height) // 4)   # ignore rounded corners

    def band(y0: int, y1: int, x0: int, x1: int, axis: int) -> np.ndarray:
        return edges[max(0, y0):y1, max(0, x0):x1].any(axis=axis)

    top = band(b.top - 1, b.top + 2, b.left + c, b.right - c, 0)
    bottom = band(b.bottom - 2, b.bottom + 1, b.left + c, b.right - c, 0)
    left = band(b.top + c, b.bottom - c, b.left - 1, b.left + 2, 1)
    right = band(b.top + c, b.bottom - c, b.right - 2, b.right + 1, 1)
    return [top, bottom, left, right]


def _corner_ink(gray: np.ndarray, b: Box) -> float:
    """How inked the corners of the outline's tight bounding box are, relative to the middles of
    its sides: ~1 for a square (even with 1 px rounding), ~0 for a circle."""
    outer = b.expand(3).clip(gray.shape[1], gray.shape[0])
    patch = gray[outer.top:outer.bottom, outer.left:outer.right].astype(int)
    if patch.shape[0] < 6 or patch.shape[1] < 6:
        return 0.0
    rim = np.concatenate([patch[0], patch[-1], patch[:, 0], patch[:, -1]])
    dev = np.abs(patch - int(np.median(rim)))
    ys, xs = np.nonzero(dev > 20)
    if ys.size == 0:
        return 0.0
    t, bt, lt, rt = int(ys.min()), int(ys.max()), int(xs.min()), int(xs.max())
    if bt - t < 5 or rt - lt < 5:
        return 0.0

    def corner(y: int, x: int, dy: int, dx: int) -> int:
        return max(dev[y, x], dev[y, x + dx], dev[y + dy, x])

    corners = [corner(t, lt, 1, 1), corner(t, rt, 1, -1), corner(bt, lt, -1, 1), corner(bt, rt, -1, -1)]
    my, mx = (t + bt) // 2, (lt + rt) // 2
    sides = [dev[t, mx - 1:mx + 2].max(), dev[bt, mx - 1:mx + 2].max(),
             dev[my - 1:my + 2, lt].max(), dev[my - 1:my + 2, rt].max()]
    return float(np.mean(corners) / max(1.0, float(np.mean(sides))))


def _ring_cover(edges: np.ndarray, b: Box) -> float:
    """Share of points on the inscribed circle lying on edges (+-1 px)."""
    cx, cy = b.left + (b.width - 1) / 2, b.top + (b.height - 1) / 2
    r = (min(b.width, b.height) - 1) / 2
    t = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    hits = 0
    for dr in (-1.0, 0.0, 1.0):
        xs = np.clip(np.round(cx + (r + dr) * np.cos(t)).astype(int), 0, edges.shape[1] - 1)
        ys = np.clip(np.round(cy + (r + dr) * np.sin(t)).astype(int), 0, edges.shape[0] - 1)
        hits = np.maximum(hits, edges[ys, xs] > 0)
    return float(np.mean(hits))


def blank_inside_ring(gray: np.ndarray, b: Box) -> bool:
    """A radio button is blank between its ring and its dot; a round glyph taken for one (a
    magnifier, "确" of a script) has strokes across that band."""
    cx, cy = b.left + (b.width - 1) / 2, b.top + (b.height - 1) / 2
    r = _BAND_RADIUS * (min(b.width, b.height) - 1) / 2
    t = np.linspace(0, 2 * np.pi, 32, endpoint=False)
    xs = np.clip(np.round(cx + r * np.cos(t)).astype(int), 0, gray.shape[1] - 1)
    ys = np.clip(np.round(cy + r * np.sin(t)).astype(int), 0, gray.shape[0] - 1)
    band = gray[ys, xs].astype(int)
    return float(np.mean(np.abs(band - np.median(band)) > _MARK_CONTRAST)) <= _BAND_INK


def is_cross(gray: np.ndarray, b: Box, max_ink: float = 0.5) -> bool:
    """A close glyph: ink along both diagonals of the box and none at the middle of its sides.

    ``max_ink``: the share of the box the strokes may fill (a heavy "✖" fills ~0.8 of it).
    """
    outer = b.expand(2)
    H, W = gray.shape
    if outer.left < 0 or outer.top < 0 or outer.right > W or outer.bottom > H:
        return False
    around = gray[outer.top:outer.bottom, outer.left:outer.right]
    background = np.median(np.concatenate([around[0], around[-1], around[:, 0], around[:, -1]]))
    ink = np.abs(gray[b.top:b.bottom, b.left:b.right].astype(int) - background) > _MARK_CONTRAST
    h, w = ink.shape
    if not 0.15 < ink.mean() < max_ink:
        return False

    def inked(x: float, y: float) -> bool:
        xi, yi = round(x), round(y)
        return bool(ink[max(0, yi - 1):yi + 2, max(0, xi - 1):xi + 2].any())

    t = np.linspace(0.1, 0.9, 12)
    down = np.mean([inked(k * (w - 1), k * (h - 1)) for k in t])
    up = np.mean([inked(k * (w - 1), (1 - k) * (h - 1)) for k in t])
    sides = [inked(0, (h - 1) / 2), inked(w - 1, (h - 1) / 2), inked((w - 1) / 2, 0), inked((w - 1) / 2, h - 1)]
    return bool(down >= 0.9 and up >= 0.9 and not any(sides))


def _has_mark(gray: np.ndarray, b: Box, inset: int) -> bool:
    """True when the centre of a box holds a mark: pixels far from the interior's own colour."""
    ring = gray[b.top + 2:b.bottom - 2, b.left + 2:b.right - 2]
    centre = gray[b.top + inset:b.bottom - inset, b.left + inset:b.right - inset]
    if ring.size == 0 or centre.size == 0:
        return False
    rim = np.concatenate([ring[0], ring[-1], ring[:, 0], ring[:, -1]]).astype(int)
    background = int(np.median(rim))
    far = np.abs(centre.astype(int) - background) > _MARK_CONTRAST
    return bool(far.mean() > 0.12)


def _has_arrow(gray: np.ndarray, b: Box) -> bool:
    """A combo box shows a small glyph (arrow, chevron) in a square at its right end."""
    side = b.height
    if b.width < 2.5 * side:
        return False
    inset = max(3, side // 5)
    area = gray[b.top + inset:b.bottom - inset, b.right - side - inset:b.right - inset].astype(int)
    if area.size == 0:
        return False
    # the interior's commonest shade (a thin strip at the left edge may hold the border itself)
    background = int(np.median(gray[b.top + inset:b.bottom - inset, b.left + inset:b.right - inset]))
    ink = np.abs(area - background) > _MARK_CONTRAST
    cols = ink.any(axis=0)
    rows = ink.any(axis=1)
    if not cols.any():
        return False
    ink_w = int(np.flatnonzero(cols)[-1] - np.flatnonzero(cols)[0] + 1)
    ink_h = int(np.flatnonzero(rows)[-1] - np.flatnonzero(rows)[0] + 1)
    # an arrow is a small, wider-than-tall glyph; text reaching the right end is taller/denser
    # (a close cross "x" at the end of a title bar is as tall as it is wide)
    shape_ok = 4 <= ink_w <= side and 2 <= ink_h <= 0.6 * side and ink_h <= 0.8 * ink_w
    fill = ink.sum() / max(1, ink_w * ink_h)
    # an arrow or chevron tapers: its first and last rows of ink differ in span (a dash does not)
    spans = [int(np.flatnonzero(r)[-1] - np.flatnonzero(r)[0] + 1) for r in ink[rows]]
    tapered = abs(spans[0] - spans[-1]) >= 2
    # isolated: blank columns between the glyph and whatever lies left of it (text ends earlier)
    isolated = int(np.flatnonzero(cols)[0]) >= max(3, side // 4)
    return bool(shape_ok and isolated and tapered and fill < 0.85)


def _dedupe(elements: list[Element]) -> list[Element]:
    """Outlines are found twice (inside and outside of a stroke): keep one per widget; drop a
    strip that only frames a row of same-height widgets (a tab bar's outline)."""
    seen: BoxGrid[Element] = BoxGrid(box=lambda e: e.box)
    for e in sorted(elements, key=lambda e: -e.box.area):
        if not any(_same_outline(k.box, e.box) for k in seen.near(e.box)):
            seen.add(e)
    small = (ElementKind.CHECKBOX, ElementKind.RADIO)
    kept = [e for e in seen if not (e.kind in small and any(
        o.kind in small and o is not e and o.box.intersection(e.box) >= 0.8 * e.box.area
        for o in seen.near(e.box)))]
    grid = BoxGrid(kept, lambda e: e.box)
    return [e for e in kept if sum(
        1 for o in grid.near(e.box) if o is not e and abs(o.box.height - e.box.height) <= 6
        and o.box.intersection(e.box) >= 0.8 * o.box.area and o.box.area < 0.8 * e.box.area) < 2]


def _same_outline(a: Box, b: Box) -> bool:
    """Two outlines of one widget: mostly overlapping, and no side moved by more than a stroke's
    width (or a tenth of the widget). A text view under a window's menu bar overlaps the window's
    own frame as much, but its top lies a menu bar lower: two widgets, not one."""
    if a.iou(b) <= 0.7:
        return False
    dx = max(8, 0.1 * max(a.width, b.width))
    dy = max(8, 0.1 * max(a.height, b.height))
    return (abs(a.left - b.left) <= dx and abs(a.right - b.right) <= dx
            and abs(a.top - b.top) <= dy and abs(a.bottom - b.bottom) <= dy)


def _shift(e: Element, dx: int, dy: int) -> Element:
    from dataclasses import replace

    b = e.box
    return replace(e, box=Box(b.left + dx, b.top + dy, b.width, b.height))


def arrow_glyphs(gray: np.ndarray, box: Box) -> list[tuple[Box, str]]:
    """Arrow glyphs (solid triangles or chevrons) inside ``box``, each with the way it points:
    "up", "down", "left" or "right" (a spinner's two arrows, a drop-down's chevron)."""
    import cv2

    inner = box.expand(-3).clip(gray.shape[1], gray.shape[0])
    patch = gray[inner.top:inner.bottom, inner.left:inner.right].astype(int)
    if patch.shape[0] < 5 or patch.shape[1] < 5:
        return []
    ink = (np.abs(patch - int(np.median(patch))) > _MARK_CONTRAST).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    found: list[tuple[Box, str]] = []
    for i in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area < 6 or w < 4 or h < 2 or w > 0.9 * patch.shape[1] and h > 0.9 * patch.shape[0]:
            continue
        way = _pointing(labels[y:y + h, x:x + w] == i)
        if way is not None:
            found.append((Box(inner.left + x, inner.top + y, w, h), way))
    return found


def _pointing(mask: np.ndarray) -> str | None:
    """Which way a glyph tapers to a point: spans of ink shrink steadily towards its tip."""
    def spans(m: np.ndarray) -> list[int]:
        out = []
        for row in m:
            cols = np.flatnonzero(row)
            out.append(int(cols[-1] - cols[0] + 1) if cols.size else 0)
        return out

    for way, m in (("up", mask), ("down", mask[::-1]), ("left", mask.T), ("right", mask.T[::-1])):
        s = spans(m)
        if len(s) < 3 or s[0] == 0 or s[-1] == 0:
            continue
        steady = all(b >= a - 1 for a, b in zip(s, s[1:], strict=False))
        if steady and s[-1] >= 3 * max(1, s[0]) and s[-1] >= 4:
            return way
    return None
