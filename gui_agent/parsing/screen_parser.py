"""Pixels -> typed elements in reading order, fast enough to run on every agent step.

``ScreenParser`` keeps the previous frame and its text lines internally (one parser per
screen stream; call :meth:`ScreenParser.reset` to forget them). Each ``parse``:

1. returns at once the parse of a frame seen recently (whole-frame cache keyed by its pixels);
2. otherwise diffs the frame against the previous one; when a small part changed, text is
   re-detected only in the changed regions (padded, and grown to cover the old text lines they
   touch) and the lines of unchanged regions are kept; else text is detected on the full frame;
3. detects widgets on the full frame (tens of ms) and cuts check boxes / radios out of the
   text boxes that swallowed them (:mod:`.fusion`);
4. recognises only line crops the OCR cache has not seen, and fuses widgets and lines.

``last_timings`` holds seconds per stage of the latest parse: ``hash``, ``diff``, ``detect``,
``recognize``, ``widgets``, ``fuse``, ``total`` (and ``cached`` = 1.0 for a cache hit).
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from ..geometry import Box
from .elements import ScreenParse
from .fusion import fuse
from .indicators import cut_boxes_at_indicators
from .ocr import OcrEngine, TextLine
from .ocr_cache import crop_key
from .reading_order import reading_order
from .text_regions import merge_overlapping
from .underlines import without_underlines
from .widgets import detect_widgets

log = logging.getLogger(__name__)

_TILE = 16
_LONE_TEXT_WIDTH = 320   # a field's value read alone: the recogniser's trained strip width
_MISSED_INK = 60          # grey levels of contrast that say a box still holds glyphs


@dataclass(frozen=True)
class _Frame:
    parse: ScreenParse
    lines: tuple[TextLine, ...]


def _lone_one(ink: np.ndarray, x: int) -> bool:
    """Whether the tall line at column ``x`` of ``ink`` is the stem of a lone "1": all the ink
    there is joins it, some of it reaches past the line (a flag, a foot), and none beside the
    middle of the stem (a caret touching a "0" has the "0"'s side there)."""
    import cv2

    count, parts, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    joined = {int(i) for i in np.unique(parts[:, x]) if i}
    marks = {i for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] >= 4}
    if not joined or not marks <= joined or all(stats[i, cv2.CC_STAT_WIDTH] <= 3 for i in joined):
        return False
    rows = np.flatnonzero(ink[:, x])
    middle = slice(int(rows.min() + 0.35 * (rows.max() - rows.min())), int(rows.min() + 0.65 * (rows.max() - rows.min())) + 1)
    beside = np.isin(parts[middle], list(joined))
    beside[:, max(0, x - 2):x + 3] = False
    return not beside.any()


class ScreenParser:
    """Parses screenshots into a :class:`ScreenParse`; reuse one instance across steps."""

    def __init__(self, ocr: OcrEngine | None = None, *, incremental: bool = True,
                 max_changed_fraction: float = 0.4, frame_cache_size: int = 8,
                 region_pad: int = 8) -> None:
        self.ocr = ocr or OcrEngine()
        self.incremental = incremental
        self.max_changed_fraction = max_changed_fraction
        self.region_pad = region_pad
        self.last_timings: dict[str, float] = {}
        self.last_regions: list[Box] = []   # regions re-read by the latest parse (full frame = one)
        self._frames: OrderedDict[bytes, _Frame] = OrderedDict()
        self._frame_cache_size = frame_cache_size
        self._prev_rgb: np.ndarray | None = None
        self._prev: _Frame | None = None

    def read_text(self, image, box: Box, inset: int = 0) -> str | None:
        """Read the text inside ``box`` directly: a field's value that text detection missed
        (a single digit squeezed between a thick focus border and the caret, say).

        The crop loses border remnants along its edges, is cut to its ink, enlarged and padded
        with its own background before recognition.
        """
        import cv2

        rgb = _as_rgb(image)
        inner = Box(box.left + inset, box.top + inset, box.width - 2 * inset,
                    box.height - 2 * inset).clip(rgb.shape[1], rgb.shape[0])
        if inner.width < 4 or inner.height < 4:
            return None
        crop = rgb[inner.top:inner.bottom, inner.left:inner.right].astype(np.int16)
        background = np.median(crop.reshape(-1, 3), axis=0)
        ink = np.abs(crop - background).max(axis=2) > 60
        for y in np.flatnonzero(_longest_runs(ink) >= 0.8 * ink.shape[1]):
            crop[y], ink[y] = background, False           # a border line crossing the region
        rows = ink.mean(axis=1)
        top, bottom, left, right = 0, ink.shape[0], 0, ink.shape[1]
        while top < bottom and rows[top] > 0.5:           # top and bottom border lines
            top += 1
        while bottom > top and rows[bottom - 1] > 0.5:
            bottom -= 1
        cols = ink[top:bottom].mean(axis=0) if bottom > top else ink.mean(axis=0)
        # Side borders: strip the columns that are ink nearly all the way down.
        while left < right and cols[left] > 0.7:
            left += 1
        while right > left and cols[right - 1] > 0.7:
            right -= 1
        # A caret is a line taller than the text, at most 3 px wide: paint it out, unless it is
        # a lone "1" (not an empty field's caret, nor one touching a "0"; see _lone_one).
        tall = cols > 0.6
        for x in np.flatnonzero(tall):
            run = tall[max(0, x - 3):x + 4]
            if run.sum() <= 3 and not _lone_one(ink[top:bottom], x):
                crop[:, x] = background
                ink[:, x] = False
        body = ink[top:bottom, left:right].astype(np.uint8)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(body, connectivity=8)
        for i in range(1, count):                          # specks: anti-aliased corners
            if stats[i, cv2.CC_STAT_AREA] < 4:
                body[labels == i] = 0
        if not body.any():
            return None
        ys, xs = np.nonzero(body)
        y0, y1 = top + max(0, ys.min() - 2), top + min(body.shape[0], ys.max() + 3)
        x0, x1 = left + max(0, xs.min() - 2), left + min(body.shape[1], xs.max() + 3)
        # a mnemonic's underline under one letter ("F" of "File") reads as another letter
        piece = without_underlines(np.ascontiguousarray(crop[y0:y1, x0:x1].astype(np.uint8)))
        zoom = max(1.0, 32.0 / max(1, piece.shape[0]))     # the recogniser reads ~32 px text best
        piece = cv2.resize(piece, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_CUBIC)
        fill = [int(v) for v in background]
        padded = cv2.copyMakeBorder(piece, 8, 8, 8, 8, cv2.BORDER_CONSTANT, value=fill)
        (text, confidence), = self.ocr.recognize([cv2.cvtColor(padded, cv2.COLOR_RGB2BGR)],
                                                 min_width=_LONE_TEXT_WIDTH)
        text = text.strip()
        return text if text and confidence >= self.ocr.min_confidence else None

    def reset(self, *, ocr_cache: bool = False) -> None:
        """Forget the frames seen; with ``ocr_cache`` also every text read (a fresh start, as a
        new `gui-agent run` makes, with the models still loaded)."""
        self._frames.clear()
        self._prev_rgb, self._prev = None, None
        if ocr_cache:
            self.ocr.cache.clear()

    def parse(self, image) -> ScreenParse:
        """Parse an Observation, a PIL image or an RGB array."""
        import cv2

        t0 = time.perf_counter()
        timings: dict[str, float] = {}
        rgb = _as_rgb(image)
        h, w = rgb.shape[:2]

        t = time.perf_counter()
        key = crop_key(rgb)
        timings["hash"] = time.perf_counter() - t
        hit = self._frames.get(key)
        if hit is not None:
            self._frames.move_to_end(key)
            self._prev_rgb, self._prev = rgb, hit
            timings.update(cached=1.0, total=time.perf_counter() - t0)
            self.last_timings, self.last_regions = timings, []
            return hit.parse

        t = time.perf_counter()
        regions = self._changed_regions(rgb)
        timings["diff"] = time.perf_counter() - t
        bgr = np.ascontiguousarray(rgb[:, :, ::-1])

        t = time.perf_counter()
        if regions is None:
            kept: list[TextLine] = []
            boxes = self.ocr.detect(bgr)
            self.last_regions = [Box(0, 0, w, h)]
        else:
            kept = [ln for ln in self._prev.lines if not any(ln.box.intersection(r) for r in regions)]
            boxes = [b for r in regions for b in self.ocr.detect(bgr, r)]
            self.last_regions = regions
        timings["detect"] = time.perf_counter() - t

        t = time.perf_counter()
        widgets = detect_widgets(rgb)
        timings["widgets"] = time.perf_counter() - t

        t = time.perf_counter()
        gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
        boxes = cut_boxes_at_indicators(boxes, widgets, gray)
        read = self.ocr.recognize_boxes(bgr, boxes)
        if regions is not None:
            read += self.ocr.recognize_boxes(bgr, _missed_lines(self._prev.lines, regions, read, rgb))
        lines = kept + read
        timings["recognize"] = time.perf_counter() - t

        t = time.perf_counter()
        elements = fuse(lines, widgets, rgb, reread=lambda boxes: self.ocr.recognize_boxes(bgr, boxes), gray=gray)
        parsed = ScreenParse(tuple(reading_order(elements, lambda e: e.box)), w, h)
        timings["fuse"] = time.perf_counter() - t

        frame = _Frame(parsed, tuple(lines))
        self._frames[key] = frame
        while len(self._frames) > self._frame_cache_size:
            self._frames.popitem(last=False)
        self._prev_rgb, self._prev = rgb, frame
        timings["total"] = time.perf_counter() - t0
        self.last_timings = timings
        log.debug("parsed %dx%d in %.3fs: %s", w, h, timings["total"], timings)
        return parsed

    def _changed_regions(self, rgb: np.ndarray) -> list[Box] | None:
        """Padded, merged regions that differ from the previous frame; None = parse everything."""
        import cv2

        prev = self._prev_rgb
        if not self.incremental or prev is None or self._prev is None or prev.shape != rgb.shape:
            return None
        h, w = rgb.shape[:2]
        changed = np.any(prev != rgb, axis=2)
        th, tw = -(-h // _TILE), -(-w // _TILE)
        padded = np.zeros((th * _TILE, tw * _TILE), bool)
        padded[:h, :w] = changed
        tiles = padded.reshape(th, _TILE, tw, _TILE).any(axis=(1, 3)).astype(np.uint8)
        if tiles.mean() > self.max_changed_fraction:
            return None
        count, _labels, stats, _ = cv2.connectedComponentsWithStats(tiles, connectivity=8)
        regions: list[Box] = []
        for x, y, bw, bh, _area in stats[1:count]:
            # tight box of the changed pixels inside the component's tiles
            sub = changed[y * _TILE:(y + bh) * _TILE, x * _TILE:(x + bw) * _TILE]
            ys, xs = np.nonzero(sub.any(axis=1))[0], np.nonzero(sub.any(axis=0))[0]
            box = Box.from_corners(x * _TILE + xs[0], y * _TILE + ys[0],
                                   x * _TILE + xs[-1] + 1, y * _TILE + ys[-1] + 1)
            regions.append(box.expand(self.region_pad).clip(w, h))
        regions = _grow_over_lines(regions, self._prev.lines, w, h)
        if sum(r.area for r in regions) > self.max_changed_fraction * w * h:
            return None
        return regions


def _missed_lines(lines: tuple[TextLine, ...], regions: list[Box], read: list[TextLine],
                  rgb: np.ndarray) -> list[Box]:
    """The boxes of the previous frame's lines in a changed region where no new line was read,
    and where there is still ink: read again where they were. The detector misses a lone glyph
    in a small crop (a key's "3" under its hover highlight) that it finds on the whole screen;
    a line that is gone reads as nothing and is dropped."""
    out = []
    for ln in lines:
        if not any(ln.box.intersection(r) for r in regions) or any(ln.box.intersection(n.box) for n in read):
            continue
        b = ln.box.clip(rgb.shape[1], rgb.shape[0])
        patch = rgb[b.top:b.bottom, b.left:b.right].astype(np.int16)
        if patch.size and int(np.ptp(patch.mean(axis=2))) > _MISSED_INK:
            out.append(b)
    return out


def _grow_over_lines(regions: list[Box], lines: tuple[TextLine, ...], w: int, h: int) -> list[Box]:
    """Grow regions over old text lines they touch, and merge overlapping ones, until stable."""
    changed = True
    while changed:
        changed = False
        for i, r in enumerate(regions):
            for ln in lines:
                if not r.intersection(ln.box):
                    continue
                grown = r.union(ln.box.expand(4)).clip(w, h)
                if grown != r:  # compare after clipping, or a line at the edge never settles
                    regions[i] = r = grown
                    changed = True
        merged = merge_overlapping(regions)
        changed = changed or len(merged) < len(regions)
        regions = merged
    return regions


def _longest_runs(mask: np.ndarray) -> np.ndarray:
    """Per row of a boolean mask, the length of its longest run of True."""
    padded = np.zeros((mask.shape[0], mask.shape[1] + 2), np.int8)
    padded[:, 1:-1] = mask
    out = np.zeros(mask.shape[0], int)
    for y, row in enumerate(np.diff(padded, axis=1)):
        starts, ends = np.flatnonzero(row == 1), np.flatnonzero(row == -1)
        if starts.size:
            out[y] = int((ends - starts).max())
    return out


def _as_rgb(image) -> np.ndarray:
    if hasattr(image, "image") and hasattr(image, "monitor"):   # an Observation
        image = image.image
    if isinstance(image, np.ndarray):
        arr = image
    else:
        arr = np.asarray(image.convert("RGB") if image.mode != "RGB" else image)
    if arr.ndim != 3 or arr.shape[2] != 3:
        from ..errors import CaptureError

        raise CaptureError(f"expected an RGB image, got an array of shape {arr.shape}")
    return arr
