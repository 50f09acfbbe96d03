"""One element list from two sources: the accessibility tree and the pixels.

The tree is the more certain (it names icons, symbol keys, unlabelled fields and says their
states), the pixels see what the tree lacks (a canvas, a window whose toolkit has no bridge,
text drawn on a web page without accessibility). So:

- every tree element stays; an unnamed button, icon or tab takes the OCR text written inside it;
- a pixel widget the tree also has (the same place, a compatible kind) goes;
- an OCR text or a pixel widget mostly covered by named tree elements is theirs (a menu bar
  read as one line or taken for one field, a button's caption) and goes; text inside a field (its content, a document's words) stays, so that a
  word in a text view can still be clicked;
- what reads a window's title (the tree knows it) in the band along the window's top is the
  window manager's title bar, a decoration, and goes;
- every other pixel element stays.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..geometry import Box
from .elements import Element, ElementKind, ScreenParse, Window
from .reading_order import reading_order

K = ElementKind
_TEXTS = (K.TEXT, K.LINK)
_NAMEABLE = (K.BUTTON, K.ICON, K.TAB, K.CLOSE, K.MENU, K.MENU_ITEM, K.LINK)
_HOLDERS = (K.TEXT_FIELD, K.COMBO)   # their inside shows content, not their name
COVERED = 0.6        # share of an OCR line's box under named tree elements that makes it theirs
SAME_PLACE = 0.4     # IoU above which a pixel widget and a tree element are one control
COVER_SPAN = 30      # a tree element this many times bigger than a pixel one is a container
WIDGET_SPAN = 4      # a pixel widget inside a tree control up to this many times its size is it
TITLE_BAR_PX = 32    # a window's title bar lies within this many pixels of its top


def fuse_tree(pixels: ScreenParse, tree: ScreenParse) -> ScreenParse:
    """The tree's elements and the pixel elements it lacks, in reading order, with the tree's
    windows."""
    ocr_texts = [e for e in pixels.elements if e.kind in _TEXTS and e.text]
    named = [_named_by_text(t, ocr_texts) for t in tree.elements]
    kept = [p for p in pixels.elements if not _known(p, named) and not _title_bar(p, tree.windows)]
    elements = reading_order([*named, *kept], lambda e: e.box)
    return ScreenParse(tuple(elements), pixels.width, pixels.height, tree.windows)


def _named_by_text(e: Element, texts: list[Element]) -> Element:
    """An unnamed control takes the OCR text inside it (an icon button's caption the tree
    left out)."""
    if e.text or e.label or e.kind not in _NAMEABLE:
        return e
    inside = [t for t in texts if e.box.contains(t.box.center) and t.box.area <= 2 * e.box.area]
    if not inside:
        return e
    words = " ".join(t.text for t in reading_order(inside, lambda t: t.box))
    return replace(e, text=words)


def _known(p: Element, tree: list[Element]) -> bool:
    """Whether the tree already has the pixel element ``p``: the same control at the same
    place, or (a text, a bar of words) the named elements that cover most of it."""
    if p.kind in _TEXTS and any(t.kind in _HOLDERS and t.box.contains(p.box.center) for t in tree):
        return False       # a field's content: the words stay clickable
    if p.kind not in _TEXTS and any(
            p.box.iou(t.box) >= SAME_PLACE
            or (t.box.contains(p.box.center) and t.box.area <= WIDGET_SPAN * p.box.area)
            for t in tree if t.kind != K.TEXT):
        return True
    covers = [t.box for t in tree if (t.text or t.label) and t.kind not in _HOLDERS
              and t.box.area <= COVER_SPAN * p.box.area]
    return _covered_share(p.box, covers) >= COVERED


def _title_bar(p: Element, windows: tuple[Window, ...]) -> bool:
    """Whether a pixel element is a window's title bar: in the band along the top of a window
    (inside or just above the box the tree gives it), reading the title the tree knows."""
    text = _plain(p.text or p.label)
    if not text:
        return False
    return any(_plain(w.title) and _plain(w.title) in text
               and w.box.left - 4 <= p.box.center.x < w.box.right + 4
               and w.box.top - TITLE_BAR_PX <= p.box.center.y < w.box.top + TITLE_BAR_PX
               for w in windows)


def _plain(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def _covered_share(box: Box, covers: list[Box]) -> float:
    """The share of ``box``'s area that lies under any of ``covers``."""
    if box.area <= 0:
        return 0.0
    near = [c for c in covers if c.intersection(box)]
    if not near:
        return 0.0
    mask = np.zeros((box.height, box.width), bool)
    for c in near:
        x0, y0 = max(0, c.left - box.left), max(0, c.top - box.top)
        x1, y1 = min(box.width, c.right - box.left), min(box.height, c.bottom - box.top)
        mask[y0:y1, x0:x1] = True
    return float(mask.mean())
