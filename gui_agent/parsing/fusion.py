"""Fusion of OCR text lines and detected widgets into typed elements.

Indicators are untangled from the lines around them first (:mod:`.indicators`); then a bordered
box with text is a button when the text's ink is centred, a field when it is not; faces side by
side make a tab bar; a field or a check box takes the label beside it.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..geometry import Box, BoxGrid
from .colour_controls import colour_controls
from .elements import Element, ElementKind
from .face_rows import face_rows, read_lone_captions
from .indicators import (
    CLOSE_GLYPHS,
    INK,
    Reread,
    drop_glyphs_in_fields,
    untangle_indicators,
)
from .more_icons import INK as MORE_INK
from .more_icons import more_icons
from .named_icons import name_icons
from .ocr import TextLine
from .reading_order import same_row
from .table_cells import table_cells
from .tree_glyphs import ink_masks, ink_strength, tree_expanders
from .widgets import TEXT_AREA_HEIGHT, arrow_glyphs, blank_inside_ring, is_cross

K = ElementKind
_CONTAINERS = (K.TEXT_FIELD, K.COMBO, K.BUTTON)
CAPTION_INSIDE = 0.5   # of a text line's box a container must cover to take it as its caption or value
                       # (a glyph the detector framed, "g" of "Large", holds the line's centre only)
_BIG_BOX_MAX = 34      # px: the side of the largest empty square face read as a check box
_FIELD_LABEL_LEFT = 200   # px: a field's label may end this far left of it
_FIELD_LABEL_ABOVE = 30   # px: ... or lie this far above it


def fuse(lines: list[TextLine], widgets: list[Element], rgb: np.ndarray,
         reread: Reread | None = None, gray: np.ndarray | None = None) -> list[Element]:
    """Combine OCR lines and detected widgets into final elements (unordered).

    ``reread`` recognises text in given boxes again (the parser passes its OCR engine); without
    it, a line cut after an indicator only loses its leading one-character token. ``gray``:
    the frame in grey levels, when the caller has it already.
    """
    if gray is None:
        gray = rgb.mean(axis=2)
    # a tree's boxed "+" looks like a ticked check box to the widget detector: it is an expander
    strength = ink_strength(gray)     # read once for the glyph finders
    masks = ink_masks(gray, strength=strength)
    expanders = tree_expanders(gray, masks)
    # three dots standing alone: an overflow menu's button (a line of text is no icon)
    expanders += [m for m in more_icons(gray, ink_masks(gray, MORE_INK, strength)) if not any(
        ln.box.intersection(m.box) and any(c.isalnum() for c in ln.text) for ln in lines)]
    widgets = [w for w in widgets if not any(w.box.iou(x.box) > 0.4 for x in expanders)]
    widgets, expanders = _drop_downs(widgets, expanders, gray)
    widgets, lines = untangle_indicators(widgets, lines, gray, reread)
    widgets = drop_glyphs_in_fields(widgets, gray)
    near = BoxGrid(widgets, lambda w: w.box)
    widgets = [w for w in widgets if not (w.kind == K.TEXT_FIELD and _is_frame(w, near.near(w.box), rgb, gray))]
    tall = [w for w in widgets if w.kind == K.TEXT_FIELD and w.box.height > TEXT_AREA_HEIGHT]
    faces = [w for w in tall if _tall_face(gray, w.box, [ln.box for ln in lines if w.box.contains(ln.box.center)])]
    areas = [w for w in tall if w not in faces]
    used: set[int] = set()
    line_grid = BoxGrid(range(len(lines)), lambda i: lines[i].box)
    out: list[Element] = []
    for wd in sorted(widgets, key=lambda e: e.box.area):
        if wd.kind not in _CONTAINERS or wd in areas:   # a text area's lines stay lines
            out.append(wd)
            continue
        inside = [i for i in line_grid.near(wd.box) if i not in used and wd.box.contains(lines[i].box.center)
                  and wd.box.intersection(lines[i].box) >= CAPTION_INSIDE * lines[i].box.area]
        used.update(inside)
        text = " ".join(lines[i].text for i in sorted(inside, key=lambda i: (lines[i].box.top, lines[i].box.left)))
        text = text.strip("[]|").strip()   # OCR reads a border touching the crop as a bracket
        kind = wd.kind
        if kind == K.TEXT_FIELD and inside and (wd in faces or ink_centred(gray, wd.box)
                                                and not _text_at_left(wd.box, [lines[i].box for i in inside])):
            kind = K.BUTTON
        out.append(replace(wd, kind=kind, text=text))
    out = _mark_tabs(read_lone_captions(out, gray, reread), rgb)
    grid = BoxGrid(out, lambda e: e.box)
    out = [_own_icon(e, grid.near(e.box)) for e in out]
    out = [_blank_square(e, lines, gray) for e in out]
    out = [part for e in out for part in _arrows_named(e, gray)]
    out = [_cross_named(e, gray) for e in out]
    out = table_cells(out)
    free = [ln for i, ln in enumerate(lines) if i not in used]
    free_grid = BoxGrid(free, lambda ln: ln.box)
    indicators = [e.box for e in out if e.kind in (K.CHECKBOX, K.RADIO)]
    out = [_with_label(e, free_grid.near(e.box, _label_reach(e.box)), indicators) for e in out]
    out = [replace(e, kind=K.ICON, label="") if e.kind == K.RADIO and (
        not e.label and not _in_a_group(e, out) or not blank_inside_ring(gray, e.box)) else e for e in out]
    out = [e for e in out if not _glyph_framed(e, free_grid.near(e.box))]
    for ln in free:
        out.append(Element(_text_kind(ln, rgb), ln.box, ln.text, round(ln.confidence, 3), "ocr"))
    # a reply arrow, a heart, a trash can: named by the icon-font glyph it looks like
    return colour_controls(masks, name_icons(gray, out + expanders))


# -- buttons, fields, tabs ----------------------------------------------------------------------

def _glyph_framed(e: Element, lines: list[TextLine]) -> bool:
    """A captionless button wholly inside a line of words: the detector framed a letter of it
    ("g" of a large "Large"), no button."""
    return e.kind == K.BUTTON and not e.text and any(
        ln.box.intersection(e.box) == e.box.area and e.box.width < ln.box.width / 2
        and any(c.isalpha() for c in ln.text) for ln in lines)


def _is_frame(box: Element, widgets: list[Element], rgb: np.ndarray, gray: np.ndarray) -> bool:
    """A bordered box that is no field: a bar along the screen's edge, a group frame around
    other controls, or a coloured title bar (a field's inside is a neutral base colour; a
    coloured face with its caption in the middle is a selected tab or a primary button).
    ``widgets``: the widgets, or those near it."""
    b = box.box
    H, W = rgb.shape[:2]
    if b.height <= TEXT_AREA_HEIGHT and (b.left <= 1 or b.right >= W - 1):
        return True       # a strip from the screen's edge: a menu, tool or status bar
    inner = [w for w in widgets if w is not box and b.contains(w.box.center) and w.box.area < 0.5 * b.area]
    if any(w.kind in (K.TEXT_FIELD, K.COMBO) for w in inner) or _option_column(inner, b) or \
            sum(w.kind == K.BUTTON for w in inner) >= 2:
        return True
    patch = rgb[b.top + 2:b.bottom - 2, b.left + 2:b.right - 2].reshape(-1, 3)
    if patch.size == 0:
        return False
    colour = np.median(patch, axis=0)
    return float(colour.max() - colour.min()) > 60 and not ink_centred(gray, b)


def _blank_square(e: Element, lines: list[TextLine], gray: np.ndarray) -> Element:
    """A small, empty, square face with a line of text right beside it is a check box (larger
    than the detector's own check boxes: a page zoomed to twice the size)."""
    b = e.box
    if e.kind != K.BUTTON or e.text or abs(b.width - b.height) > 2 or not b.width <= _BIG_BOX_MAX:
        return e
    inset = max(5, b.width // 4)
    inner = gray[b.top + inset:b.bottom - inset, b.left + inset:b.right - inset]
    if inner.size == 0 or float(inner.max()) - float(inner.min()) > INK:
        return e          # something drawn inside: an icon button
    beside = any(abs(ln.box.center.y - b.center.y) <= b.height / 2 and ln.box.right > b.right + b.width / 2
                 and ln.box.left <= b.right + b.width for ln in lines)
    return replace(e, kind=K.CHECKBOX, checked=False) if beside else e


def _drop_downs(widgets: list[Element], glyphs: list[Element], gray: np.ndarray
                ) -> tuple[list[Element], list[Element]]:
    """A field with a down-pointing triangle at its right end is a drop-down (a light, empty
    <select> whose arrow the detector took for a tree's "collapse" mark); the triangle is its.
    One with an up-pointing arrow above it too is a spinner."""
    taken: set[int] = set()
    out = []
    for w in widgets:
        b = w.box
        arrow = next((k for k, g in enumerate(glyphs) if g.label == "collapse" and b.contains(g.box.center)
                      and g.box.center.x >= b.left + 0.65 * b.width), None) \
            if w.kind == K.TEXT_FIELD and b.height <= 2 * TEXT_AREA_HEIGHT else None
        if arrow is not None and not any(way == "up" for _, way in arrow_glyphs(
                gray, Box(b.left + round(0.6 * b.width), b.top, b.width - round(0.6 * b.width), b.height))):
            taken.add(arrow)
            w = replace(w, kind=K.COMBO)
        out.append(w)
    return out, [g for k, g in enumerate(glyphs) if k not in taken]


def _in_a_group(radio: Element, elements: list[Element]) -> bool:
    """An unlabelled circle is an icon unless it is one of a row or column of alike circles,
    evenly apart (three bare radio buttons: 'check the 2nd radio button')."""
    b = radio.box
    alike = [e.box for e in elements if e is not radio and e.kind == K.RADIO
             and abs(e.box.width - b.width) <= 2 and abs(e.box.height - b.height) <= 2
             and (abs(e.box.top - b.top) <= 2 or abs(e.box.left - b.left) <= 2)
             and e.box.distance(b) <= 4 * max(b.width, b.height)]
    return bool(alike)


def _option_column(inner: list[Element], frame: Box) -> bool:
    """Check boxes or radio buttons inside a box make it a group frame when they are options:
    in a one-line box any one, in a taller box two or more sharing a left edge (a column of
    options). In a text area, letters such as "o" and "q" of its text may look like single
    indicators here and there."""
    marks = [w.box for w in inner if w.kind in (K.CHECKBOX, K.RADIO)]
    if frame.height <= TEXT_AREA_HEIGHT:
        # an option has its label to its right; a mark at the right end is the field's own
        # icon (a date field's calendar, a time field's clock)
        return any(m.left < frame.left + 0.6 * frame.width for m in marks)
    return any(abs(a.left - c.left) <= 4 for i, a in enumerate(marks) for c in marks[i + 1:])


def ink_centred(gray: np.ndarray, box: Box) -> bool:
    """True when the ink inside a bordered box sits in its middle (a caption), not at its left."""
    inset = max(3, box.height // 8)
    patch = gray[box.top + inset:box.bottom - inset, box.left + inset:box.right - inset]
    if patch.size == 0:
        return False
    background = float(np.median(patch))
    cols = np.flatnonzero((np.abs(patch - background) > INK).any(axis=0))
    if cols.size == 0:
        return False
    lgap, rgap = int(cols[0]), patch.shape[1] - 1 - int(cols[-1])
    return lgap >= 4 and abs(lgap - rgap) <= max(4, 0.25 * (lgap + rgap))


def _own_icon(e: Element, elements: list[Element]) -> Element:
    """A captionless face inside a field or drop-down (a spinner's arrows, a clear or calendar
    button, a clock) belongs to that field: an icon, not one more button or check box."""
    if e.kind not in (K.BUTTON, K.CHECKBOX) or e.text:
        return e
    host = any(o.kind in (K.TEXT_FIELD, K.COMBO) and o.box.area > 2 * e.box.area
               and o.box.intersection(e.box) >= 0.7 * e.box.area for o in elements)
    return replace(e, kind=K.ICON) if host else e


def _arrows_named(e: Element, gray: np.ndarray) -> list[Element]:
    """A captionless face holding arrow glyphs is named by them ("up arrow"); one holding two
    (a spinner's up and down) is two icons, one per arrow, each clickable on its own half."""
    if e.kind not in (K.ICON, K.BUTTON) or e.text or e.label:
        return [e]
    arrows = arrow_glyphs(gray, e.box)
    if len(arrows) == 1:
        return [replace(e, label=f"{arrows[0][1]} arrow")]
    if len(arrows) != 2 or arrows[0][1] == arrows[1][1]:
        return [e]
    b = e.box
    (first, way1), (second, way2) = sorted(arrows, key=lambda a: (a[0].top, a[0].left))
    if first.bottom <= second.top:      # stacked: split the face at the gap between them
        cut = (first.bottom + second.top) // 2
        halves = [Box(b.left, b.top, b.width, cut - b.top), Box(b.left, cut, b.width, b.bottom - cut)]
    else:                               # side by side
        cut = (first.right + second.left) // 2
        halves = [Box(b.left, b.top, cut - b.left, b.height), Box(cut, b.top, b.right - cut, b.height)]
    return [replace(e, kind=K.ICON, box=h, label=f"{way} arrow") for h, way in zip(halves, (way1, way2), strict=True)]


def _cross_named(e: Element, gray: np.ndarray) -> Element:
    """A captionless face whose one glyph is a cross ("✖", "×") is a close button, whether or
    not OCR read the glyph as an "x"."""
    if e.kind not in (K.ICON, K.BUTTON) or e.text or e.label:
        return e
    glyph = _inner_ink(gray, e.box)
    heavy = 0.85   # the strokes of a bold cross fill most of its box; the sides' middles stay blank
    return replace(e, kind=K.CLOSE) if glyph is not None and is_cross(gray, glyph, heavy) else e


def _inner_ink(gray: np.ndarray, box: Box) -> Box | None:
    """The tight box of the ink inside a bordered face (its border and a 2 px rim left out)."""
    inset = max(3, min(box.width, box.height) // 8)
    inner = Box(box.left + inset, box.top + inset, box.width - 2 * inset, box.height - 2 * inset)
    if inner.width < 5 or inner.height < 5:
        return None
    patch = gray[inner.top:inner.bottom, inner.left:inner.right].astype(np.int16)
    ink = np.abs(patch - np.median(patch)) > INK
    if not ink.any():
        return None
    ys, xs = np.nonzero(ink)
    return Box.from_corners(inner.left + xs.min(), inner.top + ys.min(),
                            inner.left + xs.max() + 1, inner.top + ys.max() + 1)


def _text_at_left(box: Box, texts: list[Box]) -> bool:
    """True when the text in a bordered box starts at its left and leaves its right side empty
    (a field's value; ink at the right end is then a field's own icon, e.g. a spinner's arrows)."""
    left = min(t.left for t in texts) - box.left
    right = box.right - max(t.right for t in texts)
    return left < 0.5 * right - 4


def _tall_face(gray: np.ndarray, box: Box, texts: list[Box]) -> bool:
    """A bordered box taller than a text line whose caption sits in its middle (vertically, and
    across unless the box is squarish): a big button (its caption may wrap over two lines), not a
    text area (whose text starts at the top) nor a list of items (a column of lines)."""
    if not texts or box.height > 4 * TEXT_AREA_HEIGHT:
        return False
    rows = sorted(t.center.y for t in texts)
    if sum(1 for a, b in zip(rows, rows[1:], strict=False) if b - a > 0.6 * min(t.height for t in texts)) >= 2:
        return False   # three lines or more, one under another: a list or a menu, not a caption
    if _left_aligned(texts):
        return False   # lines of several lengths flush left: a text area's, a caption's are centred
    if not ink_centred(gray, box) and box.width > 1.6 * box.height:
        return False   # (a squarish face is a button even when its caption overflows a side)
    # the margins of the caption's ink, not of the text boxes: detection draws those a few
    # pixels beyond the glyphs, by an amount that varies from one read to the next
    rows = _ink_rows(gray, box)
    top, bottom = (rows[0] - box.top, box.bottom - 1 - rows[1]) if rows else (
        min(t.top for t in texts) - box.top, box.bottom - max(t.bottom for t in texts))
    return top >= 8 and abs(top - bottom) <= max(6.0, 0.25 * (top + bottom)) \
        and not _text_at_left(box, texts)


def _left_aligned(texts: list[Box]) -> bool:
    """Two lines or more, one under another, that start at the same place and end at clearly
    different ones (a wrapped caption's lines are centred, each on its own middle)."""
    lines = sorted(texts, key=lambda t: t.top)
    if len(lines) < 2:
        return False
    widest = max(t.width for t in lines)
    return max(t.left for t in lines) - min(t.left for t in lines) <= 4 and \
        max(t.center.x for t in lines) - min(t.center.x for t in lines) > 0.2 * widest


def _ink_rows(gray: np.ndarray, box: Box) -> tuple[int, int] | None:
    """The first and last rows (image rows) with ink inside a bordered box: its border, and the
    rounded corners next to it, left out."""
    side = 8
    patch = gray[box.top:box.bottom, box.left + side:box.right - side]
    if patch.size == 0:
        return None
    ink = np.abs(patch.astype(np.int16) - np.median(patch)) > INK
    fill = ink.mean(axis=1)
    inner = np.flatnonzero(fill < 0.8)            # a row inked across is the top or bottom border
    if inner.size < 3:
        return None
    first_inner, last_inner = int(inner[0]), int(inner[-1])
    rows = [y for y in range(first_inner, last_inner + 1) if 0 < fill[y] < 0.8]
    return (box.top + rows[0], box.top + rows[-1]) if rows else None


def _mark_tabs(elements: list[Element], rgb: np.ndarray) -> list[Element]:
    """Two or more captioned faces side by side with shared top and bottom form a tab bar."""
    groups = face_rows(elements, [i for i, e in enumerate(elements) if e.kind == K.BUTTON and e.text])
    result = list(elements)
    for g in (g for g in groups if len(g) >= 2):
        shades = [float(rgb[elements[i].box.top + 2:elements[i].box.bottom - 2,
                            elements[i].box.left + 2:elements[i].box.right - 2].mean()) for i in g]
        median = float(np.median(shades))
        odd = max(range(len(g)), key=lambda k: abs(shades[k] - median))
        for k, i in enumerate(g):
            selected = k == odd and abs(shades[k] - median) > 4
            result[i] = replace(elements[i], kind=K.TAB, checked=selected)
    return result


def _label_reach(box: Box) -> int:
    """How far from a widget a line may lie and still be its label (see _with_label)."""
    return max(_FIELD_LABEL_LEFT, 3 * box.width + 12, _FIELD_LABEL_ABOVE + 12)


def _with_label(e: Element, lines: list[TextLine], indicators: list[Box]) -> Element:
    """Name a widget by the text beside it: right of a checkbox/radio (left of it when none is
    right of it, unless that text is another box's: in a grid of boxes each with its label on
    its right, a label text detection missed leaves its box with no name, not its neighbour's),
    left of or above a field. ``lines``: the free lines, or those within _label_reach of it;
    ``indicators``: the boxes of the screen's check boxes and radio buttons."""
    if e.kind in (K.CHECKBOX, K.RADIO):
        right = [ln for ln in lines if same_row(ln.box, e.box) and -e.box.width // 2 <= ln.box.left - e.box.right <= 3 * e.box.width + 12]
        left = [ln for ln in lines if same_row(ln.box, e.box) and 0 <= e.box.left - ln.box.right <= 2 * e.box.width
                and not any(b != e.box and same_row(b, ln.box) and -b.width // 2 <= ln.box.left - b.right <= 3 * b.width + 12
                            for b in indicators)]
        pick = min(right, key=lambda ln: ln.box.left) if right else (max(left, key=lambda ln: ln.box.right) if left else None)
        return replace(e, label=pick.text) if pick else e
    if e.kind in (K.TEXT_FIELD, K.COMBO) and e.box.height <= TEXT_AREA_HEIGHT:
        # (a text area is left unnamed: the text above it is as often a menu or a heading)
        left = [ln for ln in lines if same_row(ln.box, e.box) and 0 <= e.box.left - ln.box.right <= _FIELD_LABEL_LEFT]
        if left:
            return replace(e, label=max(left, key=lambda ln: ln.box.right).text)
        above = [ln for ln in lines if 0 <= e.box.top - ln.box.bottom <= _FIELD_LABEL_ABOVE
                 and e.box.left - 12 <= ln.box.left <= e.box.left + e.box.width // 2]
        if above:
            return replace(e, label=max(above, key=lambda ln: ln.box.bottom).text)
    return e


def _text_kind(ln: TextLine, rgb: np.ndarray) -> ElementKind:
    if ln.text.strip() in CLOSE_GLYPHS and ln.box.width <= 32:
        return K.CLOSE
    return text_run_kind(rgb, ln.box)


def text_run_kind(rgb: np.ndarray, b: Box) -> ElementKind:
    """LINK when the text in ``b`` is link-styled (blue ink, or underlined), else TEXT; also
    used on one word of a line, since a paragraph may hold a link among plain words."""
    b = b.clip(rgb.shape[1], rgb.shape[0])
    patch = rgb[b.top:b.bottom, b.left:b.right].astype(int)
    if patch.size == 0:
        return K.TEXT
    gray = patch.mean(axis=2)
    border = np.concatenate([gray[0], gray[-1], gray[:, 0], gray[:, -1]])
    ink = np.abs(gray - np.median(border)) > INK
    if ink.sum() < 8:
        return K.TEXT
    r, g, bl = (patch[..., c][ink].mean() for c in range(3))
    if bl > r + 50 and bl > g + 20:
        return K.LINK
    cols = np.flatnonzero(ink.any(axis=0))
    span = ink[:, cols[0]:cols[-1] + 1]
    lower = span[span.shape[0] // 2:]
    if lower.size and (lower.mean(axis=1) > 0.9).any() and span.shape[1] > 2 * span.shape[0] // 3:
        return K.LINK   # a solid row under the glyphs: underlined text
    return K.TEXT
