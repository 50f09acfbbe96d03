"""Sliders: a square thumb sitting on a thin track, and the number shown beside them.

The widget detector sees a slider's thumb as a small captionless face (or, rounded and
focused, as a radio button; OCR may read its outline as an "0") and, at best, pieces of the
track it cuts in two. A thumb is a slider's when, through its centre, two parallel border
lines (the track's edges, closer together than the thumb is wide) run on past the thumb for
at least the thumb's own length, along a row (horizontal) or a column (vertical). The value a
slider shows is the number written nearest to its track; with several sliders, the number on
the side of its track where every slider has one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..geometry import Box
from .elements import Element, ElementKind, ScreenParse

K = ElementKind
THUMB_MIN, THUMB_MAX = 10, 48      # px: a thumb's side
EDGE_CONTRAST = 24                 # grey levels between a track's border and what is beside it
INK_CONTRAST = 60                  # grey levels between writing and its background
# what the widget detector may take a thumb for (its look changes with focus and hover); OCR
# may also read a thumb's outline as one glyph ("0", "o")
_THUMB_KINDS = (K.BUTTON, K.ICON, K.RADIO, K.CHECKBOX, K.CLOSE)
_DIGITS = "123456789"              # a one-digit value beside a slider, never its thumb (read as "0")
# a place on the screen -> the text written there (None: none)
PlaceReader = Callable[[Box], "str | None"]
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


def find_sliders(parse: ScreenParse, gray: np.ndarray, read: PlaceReader | None = None) -> list[Slider]:
    """The sliders on a screen, from its parse (thumb candidates, numbers) and its pixels;
    ``read`` reads the text in a place of the screen that text detection may have missed."""
    thumbs = [e.box for e in parse.elements if THUMB_MIN <= e.box.width <= THUMB_MAX and (
        e.kind in _THUMB_KINDS and not e.text and abs(e.box.width - e.box.height) <= 4
        or len(e.text.strip()) == 1 and e.text.strip() not in _DIGITS and 0.7 <= e.box.width / e.box.height <= 1.4)]
    # a focused thumb at its track's end, read with a speck beside it as two glyphs ("口:"), or
    # with a piece of its track as one ("6"): the square outline inside the text's box
    thumbs += [sq for e in parse.elements if (len(e.text.strip()) == 2 or len(e.text.strip()) == 1 and e.text.strip() in _DIGITS)
               and e.box.height <= THUMB_MAX + 8 for sq in [_square_in(gray, e.box)] if sq is not None]
    # what a number is written as: text, or a link (OCR's underline guess); a field or a button
    # "showing" a number is OCR reading a track's end or a thumb
    numbers = [e for e in parse.elements if e.kind in (K.TEXT, K.LINK) and _NUMBER.match(e.text.strip())]
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
    sides = [max(thumb.width, thumb.height) for thumb, _, _ in found]
    shared, taken = _by_shared_side(tracks, [thumb for thumb, _, _ in found], numbers, gray, read) if len(found) > 1 \
        else ([None] * len(found), [])
    return [Slider(thumb, track, horizontal, value if value is not None else
                   _shown_value(track, [e for e in _owned(track, tracks, numbers) if e not in taken], side))
            for (thumb, track, horizontal), side, value in zip(found, sides, shared, strict=True)]


def _side_of(track: Box, number: Box, side: int) -> str | None:
    """Where ``number`` is written beside ``track``: above or below its length, past its left
    or right end (on its row), or None (on it, or out of reach)."""
    if track.distance(number) > 4 * side or track.contains(number.center):
        return None
    c = number.center
    if track.left - side < c.x < track.right + side and not track.top <= c.y < track.bottom:
        return "above" if c.y < track.top else "below"
    if track.top - side < c.y < track.bottom + side:
        return "left" if c.x < track.left else "right"
    return None


def _by_shared_side(tracks: list[Box], thumbs: list[Box], numbers: list[Element], gray: np.ndarray,
                    read: PlaceReader | None) -> tuple[list[float | None], list[Element]]:
    """Each track's value when sliders share a layout, and the numbers so given out. A page
    writes every slider's value on the same side of it, so the side where the most tracks have
    a number of their own says whose a number is, where distance alone does not (a value under
    one track is about as near the next one down). Where a track has none, text detection may
    have missed it (a lone "1"): writing where the others' numbers sit relative to their tracks
    counts for the side, and is read directly (``read``); the nearer numbers win a tie."""
    best: tuple[int, float, list[float | None], list[Element]] | None = None
    for where in ("above", "below", "left", "right"):
        pairs = sorted((track.distance(e.box), k, j) for k, (track, thumb) in enumerate(zip(tracks, thumbs, strict=True))
                       for j, e in enumerate(numbers) if _side_of(track, e.box, max(thumb.width, thumb.height)) == where)
        chosen: list[Element | None] = [None] * len(tracks)
        for _, k, j in pairs:           # nearest first: a number is one track's at most
            if chosen[k] is None and numbers[j] not in chosen:
                chosen[k] = numbers[j]
        mine = [(t, e) for t, e in zip(tracks, chosen, strict=True) if e is not None]
        if not mine:
            continue
        values = [number_shown(e.text) if e is not None else None for e in chosen]
        t0, e0 = mine[0]
        written = len(mine)
        for k, (track, thumb) in enumerate(zip(tracks, thumbs, strict=True)):
            if chosen[k] is None:
                # the place of a sibling's number (from the track's centre: a focused thumb is
                # drawn larger), room for a digit more either side, clear of the thumb
                top = track.center.y + e0.box.top - t0.center.y - 2
                place = Box(track.left + e0.box.left - t0.left - e0.box.width // 2 - 4, top,
                            2 * e0.box.width + 8, e0.box.height + 4)
                drawn = _outline_of(gray, thumb)
                writing = _writing_in(gray, _clear_of(place, drawn), max(6, e0.box.height // 2))
                written += writing is not None
                if writing is not None and read is not None:    # a lone glyph reads best with room
                    values[k] = number_shown(read(_clear_of(Box(writing.left - writing.height, writing.top - 3,
                                                                writing.width + 2 * writing.height, writing.height + 6),
                                                            drawn)))
        score = (written, -sum(t.distance(e.box) for t, e in mine))
        if best is None or score > best[:2]:
            best = (*score, values, [e for _, e in mine])
    return (best[2], best[3]) if best is not None else ([None] * len(tracks), [])


def _writing_in(gray: np.ndarray, place: Box, height: int) -> Box | None:
    """The box of what is written inside ``place`` (ink against its background, at least
    ``height`` tall: a border line along the place is none), or None where it is blank."""
    b = place.clip(gray.shape[1], gray.shape[0])
    if b.width < 4 or b.height < 4:
        return None
    crop = gray[b.top:b.bottom, b.left:b.right].astype(np.int16)
    ink = np.abs(crop - np.median(crop)) > INK_CONTRAST
    ink[ink.mean(axis=1) > 0.5] = False
    ys, xs = np.nonzero(ink)
    if len(ys) < 6 or ys.max() - ys.min() + 1 < height:
        return None
    return Box(b.left + int(xs.min()), b.top + int(ys.min()), int(xs.max() - xs.min()) + 1, int(ys.max() - ys.min()) + 1)


def _outline_of(gray: np.ndarray, thumb: Box) -> Box:
    """``thumb`` grown to its drawn outline: a focus ring is drawn a few pixels outside the
    box the detector gave, and writing may touch it. Each line of the outline is ink across
    most of the thumb; a glyph touching it is not."""
    h, w = gray.shape
    area = thumb.expand(max(thumb.width, thumb.height)).clip(w, h)
    background = float(np.median(gray[area.top:area.bottom, area.left:area.right]))

    def inked(line: np.ndarray) -> bool:
        return line.size > 0 and float(np.mean(np.abs(line.astype(np.int16) - background) > INK_CONTRAST)) >= 0.5

    top, bottom, left, right = max(0, thumb.top), min(h, thumb.bottom), max(0, thumb.left), min(w, thumb.right)
    for _ in range(4):
        top -= top > 0 and inked(gray[top - 1, left:right])
        bottom += bottom < h and inked(gray[bottom, left:right])
        left -= left > 0 and inked(gray[top:bottom, left - 1])
        right += right < w and inked(gray[top:bottom, right])
    return Box(left, top, right - left, bottom - top)


def _clear_of(place: Box, thumb: Box) -> Box:
    """``place`` cut back to the side of ``thumb`` it mostly lies on: a value's text is never
    inside the thumb, and a read that takes in the thumb's border misreads a lone digit."""
    if place.intersection(thumb) == 0:
        return place
    if place.center.y >= thumb.bottom - 2:
        return Box(place.left, thumb.bottom, place.width, max(0, place.bottom - thumb.bottom))
    if place.center.y <= thumb.top + 2:
        return Box(place.left, place.top, place.width, max(0, thumb.top - place.top))
    if place.center.x >= thumb.right - 2:
        return Box(thumb.right, place.top, max(0, place.right - thumb.right), place.height)
    return Box(place.left, place.top, max(0, thumb.left - place.left), place.height)


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
    past either end of its track, on its row (horizontal);
    above it, below it or beside it (vertical)."""
    t, side = slider.track, max(slider.thumb.width, slider.thumb.height)
    reach, band = 4 * side, side
    if slider.horizontal:
        row = t.top + t.height // 2
        places = [Box(t.right + 2, row - band, reach, 2 * band), Box(t.left - 2 - reach, row - band, reach, 2 * band)]
    else:
        column = t.left + t.width // 2
        places = [Box(column - 2 * band, t.top - 2 - 2 * band, 4 * band, 2 * band),
                  Box(column - 2 * band, t.bottom + 2, 4 * band, 2 * band),
                  Box(t.right + 2, t.top - band, reach, t.height + 2 * band)]
    return places
