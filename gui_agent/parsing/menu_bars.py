"""Bars of separate words (a menu bar, a toolbar's captions, a header row) read as one element.

Text detection joins the words of a menu bar into one line, or the widget detector takes the
bar for one wide field holding them all (its words then in no useful order): "open the Data
menu" would match a part of it and click near its middle. The words of a bar stand further
apart than the words of a sentence, so the element is cut at every gap wider than its glyphs
are tall, each piece read again on its own (:meth:`ScreenParsing.read_text`, cached on its
pixels), left to right. A plain text line is cut only at gaps twice as wide (the words of
some fonts stand a glyph height apart).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from ..geometry import Box
from .elements import Element, ElementKind, ScreenParse
from .indicators import INK

K = ElementKind
ReadBox = Callable[[Box], "str | None"]
GAP_FACTOR = 1.0          # in a bar, a gap this many glyph heights wide separates two items
TEXT_GAP_FACTOR = 2.0     # in a text line (some fonts space their words a glyph height apart)
MENU_GAP_FACTOR = 0.6     # in a window's menu bar
MENU_BAR_SPAN = 0.8       # a strip this share of the window's width across its top is its menu bar
MIN_GAP_PX = 8
MAX_HEIGHT = 44           # a bar is one line high
BAR_RATIO = 8             # a widget taken for a bar is this many times wider than high ...
BAR_ITEMS = 3             # ... and holds at least this many items
_TEXTS = (K.TEXT, K.LINK)
_STRIPS = (K.TEXT_FIELD, K.BUTTON, K.COMBO)


def split_bars(parse: ScreenParse, gray: np.ndarray, read: ReadBox, window: Box | None = None) -> ScreenParse:
    """``parse`` with every bar of separate words cut into one text element per word group;
    ``window`` (the active window's box in image pixels, when known) tells its menu bar."""
    out: list[Element] = []
    changed = False
    for e in parse.elements:
        pieces = bar_pieces(e, gray, menu_bar=window is not None and _menu_bar_of(e.box, window))
        items = [Element(K.TEXT, p, text, e.score, "ocr") for p in pieces
                 for text in [_clean(read(p))] if text] if pieces else []
        if len(items) >= 2:
            out.extend(items)
            changed = True
        else:
            out.append(e)
    return replace(parse, elements=tuple(out)) if changed else parse


def _menu_bar_of(box: Box, window: Box) -> bool:
    """A strip across the window's top: its menu bar."""
    return abs(box.top - window.top) <= box.height and box.width >= MENU_BAR_SPAN * window.width \
        and box.height <= MAX_HEIGHT


def bar_pieces(e: Element, gray: np.ndarray, menu_bar: bool = False) -> list[Box] | None:
    """The boxes of a bar's items, left to right; None when ``e`` is no bar. A ``menu_bar``'s
    titles stand apart by the menu items' padding, which larger fonts do not widen: a gap
    MENU_GAP_FACTOR of a glyph wide separates them (a space between words is a third of one)."""
    b = e.box
    if not e.text or len(e.text.split()) < 2 or b.height > MAX_HEIGHT or b.width < 4 * b.height:
        return None
    strip = e.kind in _STRIPS or menu_bar
    if not strip and e.kind not in _TEXTS:
        return None
    if strip and b.width < BAR_RATIO * b.height and not menu_bar:
        return None
    inset = 3 if e.kind in _STRIPS else 0
    top, bottom = b.top + inset, b.bottom - inset
    left, right = b.left + inset, b.right - inset
    patch = gray[max(0, top):bottom, max(0, left):right].astype(np.int16)
    if patch.size == 0 or patch.shape[0] < 4:
        return None
    background = float(np.median(patch))
    ink = np.abs(patch - background) > INK
    ink[:, ink.mean(axis=0) > 0.9] = False            # a vertical border or separator line
    ink[ink.mean(axis=1) > 0.8, :] = False             # a horizontal one
    _clear_short_lines(ink)
    rows = np.flatnonzero(ink.any(axis=1))
    if rows.size == 0:
        return None
    glyph = int(rows[-1] - rows[0] + 1)
    gap = max(MIN_GAP_PX, (MENU_GAP_FACTOR if menu_bar else GAP_FACTOR if strip else TEXT_GAP_FACTOR) * glyph)
    cols = np.flatnonzero(ink.any(axis=0))
    segments: list[tuple[int, int]] = []
    start = prev = int(cols[0])
    for x in cols[1:]:
        if x - prev - 1 >= gap:
            segments.append((start, prev))
            start = int(x)
        prev = int(x)
    segments.append((start, prev))
    segments = [(s, t) for s, t in segments if t - s + 1 >= 3]
    if len(segments) < (BAR_ITEMS if strip else 2):
        return None
    pad = 3
    return [Box.from_corners(max(b.left, left + s - pad), b.top, min(b.right, left + t + 1 + pad),
                             b.bottom) for s, t in segments]


def _clear_short_lines(ink: np.ndarray) -> None:
    """Clear the columns inked over more rows than the glyphs span: a popup's border or the
    window behind it showing at the element's edge, cut short by a separator. Left in, they set
    the glyph height (and so the gap that separates items) to the whole box's."""
    cover = ink.sum(axis=0)
    glyph_cols = cover <= 0.5 * ink.shape[0]
    band = np.flatnonzero(ink[:, glyph_cols].any(axis=1))
    if band.size:
        ink[:, cover > int(band[-1] - band[0] + 1) + 2] = False


def _clean(text: str | None) -> str:
    return " ".join((text or "").split()).strip("[]|")
