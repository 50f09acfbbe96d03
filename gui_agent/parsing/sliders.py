"""Sliders: a square thumb sitting on a thin track, and the number shown beside them.

The widget detector sees a slider's thumb as a small captionless face (or, rounded and
focused, as a radio button; OCR may read its outline as an "0") and, at best, pieces of the
track it cuts in two. A thumb is a slider's when, through its centre, two parallel border
lines (the track's edges, closer together than the thumb is wide) run on past the thumb for
at least the thumb's own length, along a row (horizontal) or a column (vertical). The value a
slider shows is the number written nearest to its track.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..geometry import Box
from .elements import Element, ElementKind, ScreenParse

K = ElementKind
THUMB_MIN, THUMB_MAX = 10, 48      # px: a thumb's side
EDGE_CONTRAST = 24                 # grey levels between a track's border and what is beside it
# what the widget detector may take a thumb for (its look changes with focus and hover); OCR
# may also read a thumb's outline as one glyph ("0", "o")
_THUMB_KINDS = (K.BUTTON, K.ICON, K.RADIO, K.CHECKBOX, K.CLOSE)
_DIGITS = "123456789"              # a one-digit value beside a slider, never its thumb (read as "0")
_NUMBER = re.compile(r"^[-\u2212]?\d+(?:[.,]\d+)?$")


@dataclass(frozen=True)
class Slider:
    thumb: Box
    track: Box
    horizontal: bool
    value: float | None            # the number shown beside it; None: none readable


def _edges_across(gray: np.ndarray, line: np.ndarray) -> list[int]:
    """Offsets along a short line of grey levels where the level jumps (a border)."""
    diff = np.abs(np.diff(line.astype(np.int32)))
    return [int(i) for i in np.flatnonzero(diff >= EDGE_CONTRAST)]


def _track_run(gray: np.ndarray, thumb: Box, horizontal: bool, step: int) -> int:
    """How far past the thumb (in pixels, going ``step`` = -1 or +1) a thin banded track runs."""
    h, w = gray.shape
    side = thumb.height if horizontal else thumb.width
    centre = thumb.top + thumb.height // 2 if horizontal else thumb.left + thumb.width // 2
    start = (thumb.right + 1 if step > 0 else thumb.left - 2) if horizontal else \
        (thumb.bottom + 1 if step > 0 else thumb.top - 2)
    limit = w if horizontal else h
    half = side // 2 + 2
    run, pos, misses = 0, start, 0
    while 0 <= pos < limit and run < 40 * side:
        lo, hi = max(0, centre - half), min(h if horizontal else w, centre + half + 1)
        across = gray[lo:hi, pos] if horizontal else gray[pos, lo:hi]
        edges = _edges_across(gray, across)
        above = [e for e in edges if lo + e < centre - 1]
        below = [e for e in edges if lo + e > centre + 1]
        if above and below and (min(below) - max(above)) < 0.8 * side:
            run, misses = run + 1 + misses, 0
        else:
            misses += 1
            if misses > 3:
                break
        pos += step
    return run


def on_a_track(gray: np.ndarray, box: Box) -> bool:
    """Whether a thin banded track runs on past ``box`` (along a row or a column) for at least
    its own length: a slider's thumb, not a button or a box of its own."""
    for horizontal in (True, False):
        side = box.width if horizontal else box.height
        if _track_run(gray, box, horizontal, -1) + _track_run(gray, box, horizontal, +1) >= side:
            return True
    return False


def find_sliders(parse: ScreenParse, gray: np.ndarray) -> list[Slider]:
    """The sliders on a screen, from its parse (thumb candidates, numbers) and its pixels."""
    thumbs = [e.box for e in parse.elements if THUMB_MIN <= e.box.width <= THUMB_MAX and (
        e.kind in _THUMB_KINDS and not e.text and abs(e.box.width - e.box.height) <= 4
        or len(e.text.strip()) == 1 and e.text.strip() not in _DIGITS and 0.7 <= e.box.width / e.box.height <= 1.4)]
    # a focused thumb at its track's end, read with a speck beside it as two glyphs ("口:")
    thumbs += [sq for e in parse.elements if 1 < len(e.text.strip()) <= 2 and e.box.height <= THUMB_MAX + 8
               for sq in [_square_in(gray, e.box)] if sq is not None]
    numbers = [e for e in parse.elements if _NUMBER.match(e.text.strip())]     # a label of any kind
    found: list[tuple[Box, Box, bool]] = []
    for thumb in thumbs:
        best: tuple[int, bool, int, int] | None = None
        for horizontal in (True, False):
            before, after = _track_run(gray, thumb, horizontal, -1), _track_run(gray, thumb, horizontal, +1)
            side = thumb.width if horizontal else thumb.height
            if before + after >= side and (best is None or before + after > best[2] + best[3]):
                best = (0, horizontal, before, after)
        if best is None:
            continue
        _, horizontal, before, after = best
        if horizontal:
            track = Box(thumb.left - before, thumb.top, thumb.width + before + after, thumb.height)
        else:
            track = Box(thumb.left, thumb.top - before, thumb.width, thumb.height + before + after)
        found.append((thumb, track, horizontal))
    tracks = [track for _, track, _ in found]
    return [Slider(thumb, track, horizontal, _shown_value(track, _owned(track, tracks, numbers), thumb.width))
            for thumb, track, horizontal in found]


def _owned(track: Box, tracks: list[Box], numbers: list[Element]) -> list[Element]:
    """The numbers nearer to ``track`` than to any other slider's: with sliders side by side,
    a neighbour's value is never this one's (when its own was not read)."""
    return [e for e in numbers if all(track.distance(e.box) < other.distance(e.box) or other == track
                                      for other in tracks)]


def _square_in(gray: np.ndarray, box: Box) -> Box | None:
    """The largest square outline of a thumb's size inside ``box``, or None."""
    import cv2

    b = box.expand(2).clip(gray.shape[1], gray.shape[0])
    patch = np.ascontiguousarray(gray[b.top:b.bottom, b.left:b.right])
    if patch.size == 0:
        return None
    contours, _ = cv2.findContours(cv2.Canny(patch, 20, 60), cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    squares = [(w * h, Box(b.left + x, b.top + y, w, h)) for x, y, w, h in map(cv2.boundingRect, contours)
               if THUMB_MIN <= w <= THUMB_MAX and abs(w - h) <= 2]
    return max(squares, key=lambda s: s[0])[1] if squares else None


def _shown_value(track: Box, numbers: list[Element], side: int) -> float | None:
    near = [(track.distance(e.box), e) for e in numbers if not track.contains(e.box.center)]
    near = [(d, e) for d, e in near if d <= 4 * side]
    if not near:
        return None
    return number_shown(min(near, key=lambda de: de[0])[1].text)


def number_shown(text: str | None) -> float | None:
    """The number a slider's label reads ("-4", "−4", "2,5"); None for anything else."""
    text = (text or "").strip().replace("\u2212", "-")
    return float(text.replace(",", ".")) if _NUMBER.match(text) else None


def value_places(slider: Slider) -> list[Box]:
    """Where a slider's value is written when text detection missed it (a short "-4" often is):
    past either end of its track, on its row (horizontal); above it, below it or beside it
    (vertical)."""
    t, side = slider.track, max(slider.thumb.width, slider.thumb.height)
    reach, band = 4 * side, side
    if slider.horizontal:
        row = t.top + t.height // 2
        return [Box(t.right + 2, row - band, reach, 2 * band), Box(t.left - 2 - reach, row - band, reach, 2 * band)]
    column = t.left + t.width // 2
    return [Box(column - 2 * band, t.top - 2 - 2 * band, 4 * band, 2 * band),
            Box(column - 2 * band, t.bottom + 2, 4 * band, 2 * band),
            Box(t.right + 2, t.top - band, reach, t.height + 2 * band)]
