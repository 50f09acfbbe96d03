"""Where on a screen text can be: the few rectangles worth running the text detector on.

A UI screen is mostly flat background. The detector (a convolutional network) costs in
proportion to the pixels it sees, so running it on the whole 1280x800 frame spends most of
its time on nothing. This finds the rectangles that hold *fine detail* (glyph edges) cheaply:

1. edges: pixels that differ from their right or lower neighbour by more than a grey-level
   step (any channel), so text in any colour on any flat or gently graded background counts;
2. long, thin straight edges (window, panel and field borders, separators) are dropped, or
   a frame around the whole window would join everything into one rectangle;
3. what remains is pooled into 8 px tiles, grown by a tile or two (letters of a word, words
   of a line join), and each connected group becomes a rectangle with a margin of blank
   pixels all round; overlapping rectangles are merged until none overlap.

Text is never cut: a glyph is fine detail, so its tile is in a group, and the margin keeps a
band of its own background around it. When detail covers most of the region (a photo, a
dense page) the caller should detect on the whole region instead: ``None`` says so.
"""

from __future__ import annotations

import numpy as np

from ..geometry import Box

_TILE = 8
_EDGE_STEP = 24          # grey levels between neighbours: a glyph's edge, not a gradient
_LINE_LENGTH = 48        # straight edge runs at least this long are borders, not text
_THICK = 8               # ... unless stacked this many rows deep: that is texture
_MARGIN = 8              # blank pixels kept around each rectangle


def text_regions(bgr: np.ndarray, region: Box | None = None, *,
                 max_fraction: float = 0.6) -> list[Box] | None:
    """Rectangles (image pixels) of ``region`` that may hold text; ``[]`` when it is blank.

    ``None`` when they would cover more than ``max_fraction`` of the region: detecting on the
    whole region is then as cheap and simpler.
    """
    import cv2

    h, w = bgr.shape[:2]
    region = (region or Box(0, 0, w, h)).clip(w, h)
    if region.width < 4 or region.height < 4:
        return []
    crop = bgr[region.top:region.bottom, region.left:region.right]
    rh, rw = crop.shape[:2]
    edges = np.zeros((rh, rw), np.uint8)
    edges[:, 1:] = _channel_max(cv2.absdiff(crop[:, 1:], crop[:, :-1])) > _EDGE_STEP
    edges[1:, :] |= _channel_max(cv2.absdiff(crop[1:], crop[:-1])) > _EDGE_STEP
    borders = _thin_lines(edges, horizontal=True) | _thin_lines(edges, horizontal=False)
    edges &= 1 - borders
    th, tw = -(-rh // _TILE), -(-rw // _TILE)
    padded = np.zeros((th * _TILE, tw * _TILE), np.uint8)
    padded[:rh, :rw] = edges
    tiles = padded.reshape(th, _TILE, tw, _TILE).max(axis=3).max(axis=1)
    if not tiles.any():
        return []
    # one tile up and down, two left and right: the letters of a word and the words of a line join
    tiles = cv2.dilate(tiles, np.ones((3, 5), np.uint8))
    count, _labels, stats, _ = cv2.connectedComponentsWithStats(tiles, connectivity=8)
    boxes = [
        Box(region.left + x * _TILE, region.top + y * _TILE, bw * _TILE, bh * _TILE)
        .expand(_MARGIN)
        for x, y, bw, bh, _area in stats[1:count]
    ]
    boxes = [_clip_to(b, region) for b in merge_overlapping(boxes)]
    if sum(b.area for b in boxes) > max_fraction * region.area:
        return None
    return boxes


def _thin_lines(edges: np.ndarray, *, horizontal: bool) -> np.ndarray:
    """Edge pixels on long straight runs a few pixels thick: borders and separators.

    Runs stacked thicker than that are texture (a photo, a hatched pattern): kept as detail.
    """
    import cv2

    along = (1, _LINE_LENGTH) if horizontal else (_LINE_LENGTH, 1)
    across = (_THICK, 1) if horizontal else (1, _THICK)
    runs = cv2.morphologyEx(edges, cv2.MORPH_OPEN, np.ones(along, np.uint8))
    thick = cv2.morphologyEx(runs, cv2.MORPH_OPEN, np.ones(across, np.uint8))
    return runs & (1 - thick)


def _channel_max(diff: np.ndarray) -> np.ndarray:
    return np.maximum(np.maximum(diff[..., 0], diff[..., 1]), diff[..., 2])


def merge_overlapping(boxes: list[Box]) -> list[Box]:
    """Replace overlapping boxes by their union, until no two overlap."""
    boxes = list(boxes)
    merged_any = True
    while merged_any:
        merged_any = False
        out: list[Box] = []
        for b in boxes:
            for i, m in enumerate(out):
                if m.intersection(b):
                    out[i] = m.union(b)
                    merged_any = True
                    break
            else:
                out.append(b)
        boxes = out
    return boxes


def _clip_to(box: Box, region: Box) -> Box:
    return Box.from_corners(max(box.left, region.left), max(box.top, region.top),
                            min(box.right, region.right), min(box.bottom, region.bottom))
