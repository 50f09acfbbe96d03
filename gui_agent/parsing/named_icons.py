"""Caption-less icons named by the icon-font glyph they look like.

A reply arrow, a heart or a trash can is a button with no words: OCR reads nothing and a
description that names it ('the "Reply" button', 'the trash icon') found no target. Here every
icon-sized shape of ink that no text covers is compared with the glyphs of the installed icon
fonts (:mod:`.icon_fonts`); when one glyph fits it clearly, the shape becomes an ICON that
``looks_like`` every name of that glyph and the words people use for it ("favorite", "like",
"love", "heart"). It is a likeness, not a caption: grounding prices it below a read name, and the
accessibility tree's name, where there is one, still names the icon. Works on ink, so light and
dark themes alike.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np

from ..geometry import Box
from .elements import Element, ElementKind
from .icon_fonts import catalogue, shape_vector, words_for
from .tree_glyphs import ink_strength

K = ElementKind
MIN_SIDE, MAX_SIDE = 8, 64    # px: an icon's extent
MAX_ASPECT = 3.0              # wider or taller than this is a bar or a line, not an icon
FIT = 0.80                    # the least likeness (cosine of the two shapes) that names a shape
NEAR_BEST = 0.04              # glyphs this close to the best fit are the same drawing (a heart in two fonts)
WEAK_FIT = 0.6                # the least likeness for a shape asked for by a glyph's name
WEAK_MARGIN = 0.08            # ... when another glyph fits it better by no more than this
_INK = 30                     # grey levels above the surroundings
_KERNEL = 49                  # px: wider than an icon's thickest stroke
_GAP = 3                      # px: parts of one icon (the two arrows of a "retweet") lie this close
_NAMELESS = (K.ICON, K.BUTTON)


def name_icons(gray: np.ndarray, elements: list[Element]) -> list[Element]:
    """``elements`` with the icons on screen named: a caption-less ICON or BUTTON over a named
    shape takes its names; a named shape that no element covers is added as an ICON."""
    shapes = catalogue()
    if not len(shapes):
        return elements
    covered = [e.box for e in elements if not _glyph_read(e)]
    out = list(elements)
    for box, names, fit in _named_shapes(gray, covered):
        twin = next((i for i, e in enumerate(out) if (e.kind in _NAMELESS or e.kind == K.TEXT)
                     and _glyph_read(e) and not e.label and e.box.iou(box) > 0.3), None)
        if twin is not None:
            kind = K.ICON if out[twin].kind == K.TEXT else out[twin].kind   # its symbol stays its text
            out[twin] = replace(out[twin], kind=kind, looks_like=names)
        elif not any(e.box.iou(box) > 0.3 for e in out):
            out.append(Element(K.ICON, box, score=round(fit, 3), source="detector", looks_like=names))
    return out


def _glyph_read(e: Element) -> bool:
    """No caption: no text, or one symbol OCR made of a picture (a reply arrow read "↑"); a
    letter or a digit is a caption (a pager's "5")."""
    text = e.text.strip()
    return len(text) <= 1 and not text.isalnum()


def shapes_like(gray: np.ndarray, elements: list[Element], name: str) -> list[tuple[Box, float]]:
    """The icon-sized shapes that no word covers and no glyph names clearly, each with how much
    it looks like a glyph called ``name`` ('trash'): those at least WEAK_FIT alike, and not
    clearly more like another glyph. A trash can with a badge on its corner fits no glyph well
    enough to be named on its own, yet of the shapes on the screen it is the one like a trash
    can when a task asks for that."""
    wanted = _glyphs_called(name.strip().lower())
    if not wanted.any():
        return []
    words = [e.box for e in elements if sum(c.isalnum() for c in e.text) >= 2]   # "T." may be a bin
    boxes, fits = _shape_fits(gray, words)
    out = []
    for k, box in enumerate(boxes):
        best, like = float(fits[:, k].max()), float(fits[wanted, k].max())
        if best < FIT and like >= WEAK_FIT and like >= best - WEAK_MARGIN:
            out.append((box, like))
    return out


@functools.cache
def _glyphs_called(name: str) -> np.ndarray:
    """Which glyphs of the catalogue ``name`` is one of the words for."""
    return np.array([name in words_for(n) for n in catalogue().names], bool)


def _named_shapes(gray: np.ndarray, covered: list[Box]) -> list[tuple[Box, tuple[str, ...], float]]:
    boxes, fits = _shape_fits(gray, covered)
    if not boxes:
        return []
    cat = catalogue()
    found: list[tuple[Box, tuple[str, ...], float]] = []
    best = fits.max(axis=0)
    for k in np.argsort(-best):     # the best fits first: light ink between dark icons is no icon
        box = boxes[k]
        if best[k] < FIT or any(box.intersection(f[0]) for f in found):
            continue
        names = tuple(n for i in np.flatnonzero(fits[:, k] >= best[k] - NEAR_BEST) for n in cat.names[i])
        found.append((box, words_for(names), float(best[k])))
    return found


def _shape_fits(gray: np.ndarray, covered: list[Box]) -> tuple[list[Box], np.ndarray]:
    """The icon-sized shapes of ink outside ``covered``, and how well each fits each glyph of
    the catalogue (glyphs x shapes)."""
    import cv2

    g = gray if gray.dtype == np.uint8 else np.clip(gray, 0, 255).astype(np.uint8)
    boxes: list[Box] = []
    vectors: list[np.ndarray] = []
    aspects: list[float] = []
    for strength in ink_strength(g, _KERNEL):      # darker ink, then lighter ink
        ink = (strength > _INK).astype(np.uint8)
        for b in covered:
            ink[b.top:b.bottom, b.left:b.right] = 0
        for box in _shapes(ink, cv2):
            if not _stands_out(g, ink, box):
                continue
            crop = strength[box.top:box.bottom, box.left:box.right].astype(np.float32)
            shape = shape_vector(crop / max(1.0, float(crop.max())))
            if shape is not None:
                boxes.append(box)
                vectors.append(shape[0])
                aspects.append(shape[1])
    cat = catalogue()
    if not boxes or not len(cat):
        return [], np.zeros((len(cat), 0), np.float32)
    likeness = cat.shapes @ np.stack(vectors).T                  # glyphs x shapes, in one product
    proportion = np.abs(np.log(cat.aspects[:, None] / np.array(aspects, np.float32)[None, :]))
    return boxes, likeness * np.exp(-2.0 * proportion)


def _shapes(ink: np.ndarray, cv2) -> list[Box]:
    """Icon-sized groups of ink: parts within _GAP of each other are one shape (a "retweet" is
    two arrows), then kept by size and proportions."""
    joined = cv2.dilate(ink, np.ones((_GAP + 2, _GAP + 2), np.uint8))
    _, _, groups, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    pad = (_GAP + 1) // 2
    out: list[Box] = []
    for x, y, w, h, _area in groups[1:]:
        box = Box(int(x) + pad, int(y) + pad, int(w) - 2 * pad, int(h) - 2 * pad)
        short, long = sorted((box.width, box.height))
        if short >= MIN_SIDE and long <= min(MAX_SIDE, MAX_ASPECT * short):
            out.append(box)
    return out


def _stands_out(gray: np.ndarray, ink: np.ndarray, box: Box) -> bool:
    """The shape's ink differs from the colour around it. Background hemmed in by shapes of the
    other polarity passes the morphology too (light gaps between dark icons), but it is the
    colour of its own surroundings."""
    H, W = gray.shape
    outer = box.expand(3)
    x0, y0, x1, y1 = max(0, outer.left), max(0, outer.top), min(W, outer.right), min(H, outer.bottom)
    around = np.ones((y1 - y0, x1 - x0), bool)
    around[box.top - y0:box.bottom - y0, box.left - x0:box.right - x0] = False
    if not around.any():
        return False
    surround = float(np.median(gray[y0:y1, x0:x1][around]))
    mark = gray[box.top:box.bottom, box.left:box.right][ink[box.top:box.bottom, box.left:box.right] > 0]
    return mark.size > 0 and abs(float(mark.mean()) - surround) > _INK


TICK_FIT = 0.7       # the least likeness of a box's mark to a tick glyph ("check", "done")


def looks_like_tick(gray: np.ndarray, b: Box) -> bool:
    """Whether the mark inside a box is shaped like a tick, whatever its colours (a white tick
    on a filled box, a dark one on a light box)."""
    inset = max(2, b.width // 8)
    inside = gray[b.top + inset:b.bottom - inset, b.left + inset:b.right - inset].astype(np.float32)
    if inside.size == 0:
        return False
    ink = np.abs(inside - float(np.median(inside)))
    shape = shape_vector(ink / max(1.0, float(ink.max())))
    cat = catalogue()
    ticks = [i for i, names in enumerate(cat.names) if set(names) & _TICK_NAMES]
    if shape is None or not ticks:
        return False
    return float((cat.shapes[ticks] @ shape[0]).max()) >= TICK_FIT


_TICK_NAMES = {"check", "done"}
