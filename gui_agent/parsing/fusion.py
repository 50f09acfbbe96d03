"""Fusion of OCR text lines and detected widgets into typed elements.

Two sources disagree in predictable ways, and each is untangled from pixels, not from words:
- a round or square letter ("O", "o", "C", "D") looks like a radio or a check box to the widget
  detector: a real indicator stands apart, with blank columns on both sides, a letter touches
  its neighbours;
- text detection reads an indicator and its label as one line ("O Red", "口Remember me"): the
  line is cut after the indicator and its label re-read;
- a bordered box with text is a button when the text's ink is centred, a field when it is not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from ..geometry import Box
from .elements import Element, ElementKind
from .ocr import TextLine
from .reading_order import same_row
from .tree_glyphs import tree_expanders
from .widgets import arrow_glyphs, is_cross

K = ElementKind
CLOSE_GLYPHS = {"x", "X", "×", "✕", "✖", "⨯"}
_CONTAINERS = (K.TEXT_FIELD, K.COMBO, K.BUTTON)
_INDICATORS = (K.CHECKBOX, K.RADIO, K.CLOSE)
_INK = 40            # grey levels between ink and its background
TEXT_AREA_HEIGHT = 64   # px: a bordered text box taller than this holds several lines
_APART = 3           # blank columns that separate a widget from the text beside it

Reread = Callable[[list[Box]], list[TextLine]]


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
    expanders = tree_expanders(gray)
    widgets = [w for w in widgets if not any(w.box.iou(x.box) > 0.4 for x in expanders)]
    widgets, lines = untangle_indicators(widgets, lines, gray, reread)
    widgets = _drop_glyphs_in_fields(widgets, gray)
    widgets = [w for w in widgets if not (w.kind == K.TEXT_FIELD and _is_frame(w, widgets, rgb, gray))]
    tall = [w for w in widgets if w.kind == K.TEXT_FIELD and w.box.height > TEXT_AREA_HEIGHT]
    faces = [w for w in tall if _tall_face(gray, w.box, [ln.box for ln in lines if w.box.contains(ln.box.center)])]
    areas = [w for w in tall if w not in faces]
    used: set[int] = set()
    out: list[Element] = []
    for wd in sorted(widgets, key=lambda e: e.box.area):
        if wd.kind not in _CONTAINERS or wd in areas:   # a text area's lines stay lines
            out.append(wd)
            continue
        inside = [i for i, ln in enumerate(lines) if i not in used and wd.box.contains(ln.box.center)]
        used.update(inside)
        text = " ".join(lines[i].text for i in sorted(inside, key=lambda i: (lines[i].box.top, lines[i].box.left)))
        text = text.strip("[]|").strip()   # OCR reads a border touching the crop as a bracket
        kind = wd.kind
        if kind == K.TEXT_FIELD and inside and (wd in faces or _ink_centred(gray, wd.box)
                                                and not _text_at_left(wd.box, [lines[i].box for i in inside])):
            kind = K.BUTTON
        out.append(replace(wd, kind=kind, text=text))
    out = _mark_tabs(out, rgb)
    out = [_own_icon(e, out) for e in out]
    out = [part for e in out for part in _arrows_named(e, gray)]
    out = [_cross_named(e, gray) for e in out]
    free = [ln for i, ln in enumerate(lines) if i not in used]
    out = [_with_label(e, free) for e in out]
    out = [replace(e, kind=K.ICON) if e.kind == K.RADIO and not e.label else e for e in out]
    for ln in free:
        out.append(Element(_text_kind(ln, rgb), ln.box, ln.text, round(ln.confidence, 3), "ocr"))
    return out + expanders


# -- indicators and the text around them ------------------------------------------------------

def untangle_indicators(widgets: list[Element], lines: list[TextLine], gray: np.ndarray,
                        reread: Reread | None = None) -> tuple[list[Element], list[TextLine]]:
    """Drop indicators that are letters of a text line; cut indicators out of the lines that
    swallowed them (re-reading what is left)."""
    kept: list[Element] = []
    lines = list(lines)
    to_read: list[Box] = []
    fallback: list[TextLine] = []
    for wd in widgets:
        if wd.kind not in _INDICATORS:
            kept.append(wd)
            continue
        i = _overlapping(wd.box, [ln.box if ln is not None else None for ln in lines])
        if i is None:
            kept.append(wd)
            continue
        ln = lines[i]
        if wd.kind == K.CLOSE and ln.text.strip() in CLOSE_GLYPHS:
            lines[i] = None          # the OCR read of the glyph itself
            kept.append(wd)
            continue
        parts = split_around(gray, wd.box, ln.box)
        if parts is None:
            continue                 # a letter: no gap between it and its neighbours
        kept.append(wd)
        lines[i] = None
        if reread is not None:
            to_read += parts
        else:
            fallback += [_drop_glyph_token(ln, p) for p in parts]
    lines = [ln for ln in lines if ln is not None]
    if to_read:
        lines += reread(to_read)
    lines += [ln for ln in fallback if ln is not None and ln.text]
    return kept, lines


def cut_boxes_at_indicators(boxes: list[Box], widgets: list[Element], gray: np.ndarray) -> list[Box]:
    """Text boxes with the indicators that stand apart cut out, before anything is recognised
    (so that a toggled check box does not make its label line new pixels to read)."""
    boxes = list(boxes)
    for wd in widgets:
        if wd.kind not in _INDICATORS:
            continue
        i = _overlapping(wd.box, boxes)
        if i is not None:
            parts = split_around(gray, wd.box, boxes[i])
        else:
            # a box that only grazes the indicator (detection drew it a few pixels too wide):
            # cut the indicator's sliver off, or it is read as a "]" or "l" before the label
            i = _grazing(wd.box, boxes)
            if i is None:
                continue
            parts = split_around(gray, wd.box, boxes[i].union(wd.box))
        if parts is not None:
            boxes[i:i + 1] = parts
    return boxes


def _grazing(box: Box, others: list[Box]) -> int | None:
    """Index of a box on the same row that overlaps ``box`` at one of its ends, or None."""
    for i, o in enumerate(others):
        if o.intersection(box) and box.top <= o.center.y <= box.bottom and (
                o.left > box.left or o.right < box.right):
            return i
    return None


def _overlapping(box: Box, others: list[Box | None]) -> int | None:
    """Index of the box that covers most of ``box`` (at least 30 % of it), or None."""
    best, best_area = None, 0.3 * box.area
    for i, o in enumerate(others):
        if o is not None and o.intersection(box) >= best_area:
            best, best_area = i, o.intersection(box)
    return best


def split_around(gray: np.ndarray, indicator: Box, line: Box) -> list[Box] | None:
    """The parts of ``line`` left and right of ``indicator`` when blank columns separate them
    from it; None when the indicator touches its neighbours (it is a letter of the line)."""
    rows = gray[indicator.top:indicator.bottom]
    background = _line_background(gray, line)
    right = _blank_run(rows, background, indicator.right + 1, min(gray.shape[1], line.right + 2), +1)
    left = _blank_run(rows, background, indicator.left - 2, max(-1, line.left - 3), -1)
    if right < _APART or left < _APART:
        return None
    if right < _APART + 2 and not _filled_apart(gray, indicator):
        return None                # a narrow gap and the see-through inside of a letter "O"
    parts = []
    if right < line.right - indicator.right:       # text right of the indicator
        start = indicator.right + 1 + right - 2
        parts.append(Box(start, line.top, line.right - start, line.height))
    if left < indicator.left - line.left - 1:        # text left of it
        end = indicator.left + 1 - left
        parts.append(Box(line.left, line.top, end - line.left, line.height))
    return [p for p in parts if p.width >= 4]


def _filled_apart(gray: np.ndarray, box: Box) -> bool:
    """True when the inside of an outline has its own fill (an indicator's base colour), unlike
    a letter's counter, which shows the background around it."""
    outer = box.expand(3).clip(gray.shape[1], gray.shape[0])
    around = gray[outer.top:outer.bottom, outer.left:outer.right]
    inner = gray[box.top + 3:box.bottom - 3, box.left + 3:box.right - 3]
    if inner.size == 0 or around.size == 0:
        return False
    rim = np.concatenate([around[0], around[-1], around[:, 0], around[:, -1]])
    ring = np.concatenate([inner[0], inner[-1], inner[:, 0], inner[:, -1]])
    return abs(float(np.median(ring)) - float(np.median(rim))) >= 3


def _line_background(gray: np.ndarray, box: Box) -> float:
    """The commonest shade around a line (a little outside it: OCR boxes may cut through a frame)."""
    box = box.expand(2).clip(gray.shape[1], gray.shape[0])
    patch = gray[box.top:box.bottom, box.left:box.right]
    if patch.size == 0:
        return 0.0
    return float(np.median(np.concatenate([patch[0], patch[-1], patch[:, 0], patch[:, -1]])))


def _blank_run(rows: np.ndarray, background: float, start: int, stop: int, step: int) -> int:
    """Blank columns of ``rows`` from ``start`` towards ``stop`` (exclusive) before the first ink;
    reaching ``stop`` counts as far apart."""
    for run, x in enumerate(range(start, stop, step)):
        if x < 0 or x >= rows.shape[1]:
            break
        if (np.abs(rows[:, x] - background) > _INK).any():
            return run
    return 99


def _drop_glyph_token(ln: TextLine, part: Box) -> TextLine | None:
    """Without re-reading: keep the words of ``ln`` that lie in ``part`` (the indicator was read
    as a leading one-character token)."""
    words = ln.text.split()
    if part.left > ln.box.left and len(words) > 1 and (len(words[0]) == 1 or not words[0].isalnum()):
        words = words[1:]
    elif part.left <= ln.box.left:
        return None   # text left of an indicator that OCR read with it: too unsure to split
    return TextLine(" ".join(words), part, ln.confidence) if words else None


# -- buttons, fields, tabs ----------------------------------------------------------------------

def _drop_glyphs_in_fields(widgets: list[Element], gray: np.ndarray) -> list[Element]:
    """Indicators inside a one-line field that touch the ink beside them are glyphs of its
    value: the masked dots of a password and the caret after them look like a row of check
    boxes, and a field holding check boxes would be taken for a group frame."""
    fields = [w.box for w in widgets if w.kind == K.TEXT_FIELD and w.box.height <= TEXT_AREA_HEIGHT]
    return [w for w in widgets if not (
        w.kind in _INDICATORS and any(f.contains(w.box.center) and f.area > 2 * w.box.area for f in fields)
        and not _stands_apart(gray, w.box))]


def _stands_apart(gray: np.ndarray, box: Box) -> bool:
    """Blank columns on both sides of ``box`` along its rows, as around a real indicator."""
    rows = gray[box.top:box.bottom]
    background = _line_background(gray, box.expand(3))
    right = _blank_run(rows, background, box.right + 1, min(gray.shape[1], box.right + 2 + _APART), +1)
    left = _blank_run(rows, background, box.left - 2, max(-1, box.left - 3 - _APART), -1)
    return right >= _APART and left >= _APART


def _is_frame(box: Element, widgets: list[Element], rgb: np.ndarray, gray: np.ndarray) -> bool:
    """A bordered box that is no field: a bar along the screen's edge, a group frame around
    other controls, or a coloured title bar (a field's inside is a neutral base colour; a
    coloured face with its caption in the middle is a selected tab or a primary button)."""
    b = box.box
    H, W = rgb.shape[:2]
    if b.height <= TEXT_AREA_HEIGHT and (b.left <= 1 or b.right >= W - 1):
        return True       # a strip from the screen's edge: a menu, tool or status bar
    inner = [w for w in widgets if w is not box and b.contains(w.box.center) and w.box.area < 0.5 * b.area]
    if any(w.kind in (K.CHECKBOX, K.RADIO, K.TEXT_FIELD, K.COMBO) for w in inner) or \
            sum(w.kind == K.BUTTON for w in inner) >= 2:
        return True
    patch = rgb[b.top + 2:b.bottom - 2, b.left + 2:b.right - 2].reshape(-1, 3)
    if patch.size == 0:
        return False
    colour = np.median(patch, axis=0)
    return float(colour.max() - colour.min()) > 60 and not _ink_centred(gray, b)


def _ink_centred(gray: np.ndarray, box: Box) -> bool:
    """True when the ink inside a bordered box sits in its middle (a caption), not at its left."""
    inset = max(3, box.height // 8)
    patch = gray[box.top + inset:box.bottom - inset, box.left + inset:box.right - inset]
    if patch.size == 0:
        return False
    background = float(np.median(patch))
    cols = np.flatnonzero((np.abs(patch - background) > _INK).any(axis=0))
    if cols.size == 0:
        return False
    lgap, rgap = int(cols[0]), patch.shape[1] - 1 - int(cols[-1])
    return lgap >= 4 and abs(lgap - rgap) <= max(4, 0.25 * (lgap + rgap))


def _own_icon(e: Element, elements: list[Element]) -> Element:
    """A captionless face inside a field or drop-down (a spinner's arrows, a clear or calendar
    button) belongs to that field: an icon, not one more button on the screen."""
    if e.kind != K.BUTTON or e.text:
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
    ink = np.abs(patch - np.median(patch)) > _INK
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
    text area (whose text starts at the top)."""
    if not texts or box.height > 4 * TEXT_AREA_HEIGHT:
        return False
    if not _ink_centred(gray, box) and box.width > 1.6 * box.height:
        return False   # (a squarish face is a button even when its caption overflows a side)
    # the margins of the caption's ink, not of the text boxes: detection draws those a few
    # pixels beyond the glyphs, by an amount that varies from one read to the next
    rows = _ink_rows(gray, box)
    top, bottom = (rows[0] - box.top, box.bottom - 1 - rows[1]) if rows else (
        min(t.top for t in texts) - box.top, box.bottom - max(t.bottom for t in texts))
    return top >= 8 and abs(top - bottom) <= max(6.0, 0.25 * (top + bottom)) \
        and not _text_at_left(box, texts)


def _ink_rows(gray: np.ndarray, box: Box) -> tuple[int, int] | None:
    """The first and last rows (image rows) with ink inside a bordered box: its border, and the
    rounded corners next to it, left out."""
    side = 8
    patch = gray[box.top:box.bottom, box.left + side:box.right - side]
    if patch.size == 0:
        return None
    ink = np.abs(patch.astype(np.int16) - np.median(patch)) > _INK
    fill = ink.mean(axis=1)
    inner = np.flatnonzero(fill < 0.8)            # a row inked across is the top or bottom border
    if inner.size < 3:
        return None
    first_inner, last_inner = int(inner[0]), int(inner[-1])
    rows = [y for y in range(first_inner, last_inner + 1) if 0 < fill[y] < 0.8]
    return (box.top + rows[0], box.top + rows[-1]) if rows else None


def _mark_tabs(elements: list[Element], rgb: np.ndarray) -> list[Element]:
    """Two or more captioned faces side by side with shared top and bottom form a tab bar."""
    faces = [i for i, e in enumerate(elements) if e.kind == K.BUTTON and e.text]
    faces.sort(key=lambda i: elements[i].box.left)
    groups: list[list[int]] = []
    for i in faces:
        b = elements[i].box
        for g in groups:
            last = elements[g[-1]].box
            gap = b.left - last.right   # (a few px more on a HiDPI screen)
            if abs(last.top - b.top) <= 3 and abs(last.bottom - b.bottom) <= 3 and -4 <= gap <= max(4, b.height // 8):
                g.append(i)
                break
        else:
            groups.append([i])
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


def _with_label(e: Element, lines: list[TextLine]) -> Element:
    """Name a widget by the text beside it: right of a checkbox/radio, left of or above a field."""
    if e.kind in (K.CHECKBOX, K.RADIO):
        right = [ln for ln in lines if same_row(ln.box, e.box) and -e.box.width // 2 <= ln.box.left - e.box.right <= 3 * e.box.width + 12]
        left = [ln for ln in lines if same_row(ln.box, e.box) and 0 <= e.box.left - ln.box.right <= 2 * e.box.width]
        pick = min(right, key=lambda ln: ln.box.left) if right else (max(left, key=lambda ln: ln.box.right) if left else None)
        return replace(e, label=pick.text) if pick else e
    if e.kind in (K.TEXT_FIELD, K.COMBO) and e.box.height <= TEXT_AREA_HEIGHT:
        # (a text area is left unnamed: the text above it is as often a menu or a heading)
        left = [ln for ln in lines if same_row(ln.box, e.box) and 0 <= e.box.left - ln.box.right <= 200]
        if left:
            return replace(e, label=max(left, key=lambda ln: ln.box.right).text)
        above = [ln for ln in lines if 0 <= e.box.top - ln.box.bottom <= 30
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
    ink = np.abs(gray - np.median(border)) > _INK
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
