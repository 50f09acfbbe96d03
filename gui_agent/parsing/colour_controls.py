"""A text editor's colour control: a letter standing on a bar.

Word processors and web editors alike (LibreOffice, Google Docs, Quill, TinyMCE) draw the
button that sets a text's colour as an "A" over a short bar in the colour it applies. OCR reads
the letter, if at all, as a word of the toolbar ("A U I") and nothing names the button, so 'the
text color button' found nothing. Here a letter peaked as an "A" (an underlined "U" is the
underline button) that stands alone over a solid bar about as wide as itself becomes a button
that looks like a text colour control.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..geometry import Box
from .elements import Element, ElementKind

K = ElementKind
NAMES = ("text color", "text colour", "font color", "font colour", "color", "colour")
BAR_WIDTH = (10, 48)        # px: the bar under the letter
BAR_HEIGHT = (1, 7)         # px
BAR_FILL = 0.8              # of the bar's box its ink covers (a solid bar)
GAP = 6                     # px: between the letter's foot and the bar, at most
ALONE = 0.6                 # of the letter's height on either side that holds no other ink (the
                            # space between words is less; toolbar buttons stand further apart)
PEAK = 0.6                  # of the letter's width its top quarter spans at most ("A", not "U")


def _components(mask: np.ndarray) -> np.ndarray:
    """The mask's connected parts, one row each: left, top, width, height, area."""
    import cv2

    count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    return stats[1:count, :5].astype(np.int64)


def _peaked(mask: np.ndarray, letter: Box) -> bool:
    """Whether the letter narrows to a peak at its top, as an "A" does (a "U" does not)."""
    top = mask[letter.top:letter.top + max(1, letter.height // 4), letter.left:letter.right]
    columns = np.flatnonzero(top.any(axis=0))
    return columns.size > 0 and (columns[-1] - columns[0] + 1) < PEAK * letter.width


def _controls(mask: np.ndarray) -> list[Box]:
    """The boxes of letter-on-bar shapes in one ink mask."""
    parts = _components(mask)
    x, y, pw, ph, area = parts.T
    bars = np.flatnonzero((pw >= BAR_WIDTH[0]) & (pw <= BAR_WIDTH[1]) & (ph >= BAR_HEIGHT[0])
                          & (ph <= BAR_HEIGHT[1]) & (pw >= 3 * ph) & (area >= BAR_FILL * pw * ph))
    found = []
    for k in bars:
        bar = Box(*map(int, parts[k, :4]))
        w, h = bar.width, bar.height
        under = mask[bar.bottom:bar.bottom + max(3, h), max(0, bar.left - 2):bar.right + 2]
        if under.size == 0 or under.any():
            continue                    # ink goes on under it: a letter's crossbar, not a bar
        centre = x + pw // 2
        letters = np.flatnonzero((y + ph >= bar.top - GAP) & (y + ph <= bar.top + 1)
                                 & (centre >= bar.left + w // 4) & (centre <= bar.right - w // 4)
                                 & (pw >= 0.4 * w) & (pw <= 1.3 * w) & (ph >= 0.6 * w) & (ph <= 2 * w))
        if len(letters) != 1:
            continue
        letter = Box(*map(int, parts[letters[0], :4]))
        if not _peaked(mask, letter):
            continue                    # an underlined "U" is the underline button
        shape = Box.from_corners(min(bar.left, letter.left), letter.top, max(bar.right, letter.right), bar.bottom)
        side = int(ALONE * letter.height)
        reach = Box(shape.left - side, shape.top, shape.width + 2 * side, shape.height).clip(mask.shape[1], mask.shape[0])
        around = mask[reach.top:reach.bottom, reach.left:reach.right].copy()
        around[shape.top - reach.top:shape.bottom - reach.top, shape.left - reach.left:shape.right - reach.left] = 0
        if around.sum() <= 2:           # no other letter beside it: not an underlined word
            found.append(shape)
    return found


def colour_controls(masks: tuple[np.ndarray, np.ndarray], elements: list[Element]) -> list[Element]:
    """``elements`` with the colour controls on screen named (``masks``: dark and light ink, as
    tree_glyphs.ink_masks gives them): the element over one (OCR's "A") becomes a button that
    looks like one, or a button is added where no element is."""
    out = list(elements)
    for mask in masks:
        for shape in _controls(mask):
            twin = next((i for i, e in enumerate(out) if e.box.iou(shape) > 0.3), None)
            if twin is not None:
                out[twin] = replace(out[twin], kind=K.BUTTON, looks_like=NAMES)
            else:
                out.append(Element(K.BUTTON, shape, score=0.8, source="detector", looks_like=NAMES))
    return out
