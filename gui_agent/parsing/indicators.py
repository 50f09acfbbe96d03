"""Check boxes, radio buttons and close glyphs against the text OCR read around them.

The widget detector and text detection disagree about indicators in predictable ways, and each
is untangled from pixels, not from words: a round or square letter ("O", "C", "D") looks like
a radio or a check box to the detector, but a real indicator stands apart, with blank columns
on both sides, while a letter touches its neighbours; and text detection reads an indicator and
its label as one line ("O Red", "口Remember me"), which is cut after the indicator and re-read.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..geometry import Box
from .elements import Element, ElementKind
from .ocr import TextLine
from .widgets import TEXT_AREA_HEIGHT, blank_inside_ring

K = ElementKind
CLOSE_GLYPHS = {"x", "X", "×", "✕", "✖", "⨯"}
INDICATORS = (K.CHECKBOX, K.RADIO, K.CLOSE)
INK = 40             # grey levels between ink and its background
_APART = 3           # blank columns that separate a widget from the text beside it
_LETTER_GAP = 0.2    # of the line's height: a gap narrower than this between a round glyph and
                     # the text left of it is a letter's spacing, not the space before an indicator

Reread = Callable[[list[Box]], list[TextLine]]


def untangle_indicators(widgets: list[Element], lines: list[TextLine], gray: np.ndarray,
                        reread: Reread | None = None) -> tuple[list[Element], list[TextLine]]:
    """Drop indicators that are letters of a text line; cut indicators out of the lines that
    swallowed them (re-reading what is left)."""
    kept: list[Element] = []
    lines = list(lines)
    to_read: list[Box] = []
    fallback: list[TextLine] = []
    for wd in widgets:
        if wd.kind not in INDICATORS:
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
        if parts is None or (parts and _round_glyph(wd, gray)):
            continue                 # a letter: no gap between it and its neighbours, or "确" of "确定"
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
        if wd.kind not in INDICATORS:
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
        if parts is not None and not (parts and _round_glyph(wd, gray)):
            boxes[i:i + 1] = parts
    return boxes


def _round_glyph(wd: Element, gray: np.ndarray) -> bool:
    """A "radio button" with strokes across it: a round glyph, a letter of its line when other
    glyphs stand beside it ("确" of "确定"), an icon when alone (a magnifier)."""
    return wd.kind == K.RADIO and not blank_inside_ring(gray, wd.box)


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
    if indicator.left - line.left > _APART and left < _LETTER_GAP * line.height:
        return None                # a glyph of a large line ("e" of "Volume"): a letter's gap before it
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
        if (np.abs(rows[:, x] - background) > INK).any():
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


def drop_glyphs_in_fields(widgets: list[Element], gray: np.ndarray) -> list[Element]:
    """Indicators inside a one-line field that touch the ink beside them are glyphs of its
    value: the masked dots of a password and the caret after them look like a row of check
    boxes, and a field holding check boxes would be taken for a group frame."""
    fields = [w.box for w in widgets if w.kind == K.TEXT_FIELD and w.box.height <= TEXT_AREA_HEIGHT]
    return [w for w in widgets if not (
        w.kind in INDICATORS and any(f.contains(w.box.center) and f.area > 2 * w.box.area for f in fields)
        and not _stands_apart(gray, w.box))]


def _stands_apart(gray: np.ndarray, box: Box) -> bool:
    """Blank columns on both sides of ``box`` along its rows, as around a real indicator."""
    rows = gray[box.top:box.bottom]
    background = _line_background(gray, box.expand(3))
    right = _blank_run(rows, background, box.right + 1, min(gray.shape[1], box.right + 2 + _APART), +1)
    left = _blank_run(rows, background, box.left - 2, max(-1, box.left - 3 - _APART), -1)
    return right >= _APART and left >= _APART
