"""An open menu on the screen, seen from its pixels: a framed panel holding a column of short
text rows, left-aligned and evenly spaced from its top to its bottom, and nothing to fill in.

A menu that is open is on top of everything and is what the user opened it for: a name that
also appears beneath or beside it (a word of the document, a menu bar's title) is less likely
the one meant. The accessibility tree says so with its popup roles (:mod:`.tree_evidence`);
this is the same knowledge for screens without a tree.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise
from statistics import median
from typing import Any

from ..geometry import Box
from ..parsing.elements import Element, ElementKind, ScreenParse
from ..parsing.reading_order import group_rows
from .matching import match_text
from .scored import Scored
from .spatial import find_panels

K = ElementKind
MIN_ROWS = 3
MAX_ROW_WORDS = 6            # an item is a short caption (plus its shortcut), not prose
ALIGN_PX = 6                 # the items' captions start this close to one another
ALIGNED = 0.7                # ... for this share of the rows (a row may be misread)
MAX_PITCH_FACTOR = 2.2       # rows no further apart than this many row heights (separators)
EDGE_ROWS = 1.6              # first and last item within this many row pitches of the frame
MAX_SCREEN_WIDTH = 0.6       # a menu is narrower than this share of the screen
MIN_GROWTH = 12              # px: a section's frame grown by less is that section's own
SIDE_SEARCH = 3              # px: a section's side and the frame's side line lie this close
FULL_WIDTH = 0.9             # a "field" this wide in a menu is a section between separators
SEPARATOR_PX = 3             # a side line may break this many rows where a separator meets it
LINE_CONTRAST = 15           # grey levels between a frame's side line and the menu inside it
RIVAL_BAND = 0.1             # matches this close to the best one are weighed by the menu
OUTSIDE_MENU_FACTOR = 0.85   # beneath or beside an open menu: seldom what it was opened for
_INPUTS = (K.TEXT_FIELD, K.CHECKBOX, K.RADIO, K.COMBO)
_CAPTIONS = (K.TEXT, K.LINK, K.BUTTON, K.MENU_ITEM)


def open_menu(parse: ScreenParse, image: Any) -> Box | None:
    """The box of the smallest framed panel that reads as an open menu, or None."""
    import cv2
    import numpy as np

    gray = cv2.cvtColor(np.asarray(image.convert("RGB")), cv2.COLOR_RGB2GRAY)
    found: list[Box] = []
    wholes: list[Box] = []      # a section's frame grown to the whole menu's
    for panel in find_panels(image, gray=gray):
        if panel.width > MAX_SCREEN_WIDTH * parse.width or not _reads_as_menu(panel, parse.elements):
            continue
        whole = _whole_frame(panel, gray)
        if whole.height >= panel.height + MIN_GROWTH and _reads_as_menu(whole, parse.elements):
            wholes.append(whole)
        found.append(panel)
    if wholes:
        # a menu cut by separators is its sections' whole frame, not a window around it that
        # reads as one while the menu covers most of it
        return min(wholes, key=lambda b: b.area)
    outer = [b for b in found if not any(o != b and o.intersection(b) == b.area for o in found)]
    return min(outer, key=lambda b: b.area, default=None)


def _whole_frame(panel: Box, gray: Any) -> Box:
    """``panel`` grown up and down along its side lines: a menu's separators cut its frame into
    sections, each found as a panel of its own; the frame's sides run the whole menu's height."""
    left = _line_span(gray, range(panel.left - SIDE_SEARCH, panel.left + SIDE_SEARCH), 2, panel)
    right = _line_span(gray, range(panel.right - 1 - SIDE_SEARCH, panel.right + SIDE_SEARCH), -2, panel)
    top, bottom = max(left[0], right[0]), min(left[1], right[1])    # where both sides still run
    return Box.from_corners(panel.left, min(top, panel.top), panel.right, max(bottom, panel.bottom))


def _line_span(gray: Any, columns: range, inward: int, panel: Box) -> tuple[int, int]:
    """The rows of the longest line among ``columns`` through the panel's middle row: a line
    is a run of pixels that differ from the panel's inside ``inward`` pixels away (its
    outside may change along it: a bar, the window behind, the desktop)."""
    mid = panel.top + panel.height // 2
    best = (panel.top, panel.bottom)
    for x in columns:
        if not (0 <= x < gray.shape[1] and 0 <= x + inward < gray.shape[1]):
            continue
        line = abs(gray[:, x].astype(int) - gray[:, x + inward].astype(int)) >= LINE_CONTRAST
        if not line[mid]:
            continue
        top, bottom = _run_end(line, mid, -1), _run_end(line, mid, +1)
        if bottom + 1 - top > best[1] - best[0]:
            best = (top, bottom + 1)
    return best


def _run_end(line: Any, start: int, step: int) -> int:
    """The last row of the run of ``line`` from ``start`` going ``step``, across breaks of up
    to SEPARATOR_PX rows (where a separator meets the side, both are the frame's colour)."""
    end, pos = start, start + step
    while 0 <= pos < line.size:
        if line[pos]:
            end = pos
        elif abs(pos - end) > SEPARATOR_PX:
            break
        pos += step
    return end


def _reads_as_menu(panel: Box, elements: tuple[Element, ...]) -> bool:
    inside = [e for e in elements if panel.contains(e.box.center) and e.box.area < 0.5 * panel.area]
    if any(e.kind in _INPUTS and e.box.width < FULL_WIDTH * panel.width for e in inside):
        return False        # (a section between two separators may be taken for a field)
    rows = group_rows([e for e in inside if (e.kind in _CAPTIONS or e.kind in _INPUTS) and e.text.strip()],
                      lambda e: e.box)
    if len(rows) < MIN_ROWS:
        return False
    firsts = [row[0] for row in rows]          # each row's leftmost element
    if any(len(" ".join(e.text for e in row).split()) > MAX_ROW_WORDS for row in rows):
        return False
    # a row read as one block across the menu (a section between separators) starts at its
    # edge, not at its caption: the captions' alignment is told by the other rows
    captions = [e for e in firsts if e.box.width < FULL_WIDTH * panel.width]
    if len(captions) < 2:
        return False
    left = median(e.box.left for e in captions)
    if sum(abs(e.box.left - left) <= ALIGN_PX for e in captions) < ALIGNED * len(captions):
        return False
    height = median(e.box.height for e in captions)
    tops = [e.box.top for e in firsts]
    gaps = [b - a for a, b in pairwise(tops)]
    pitch = median(gaps)
    # a row read as one block with the next (two items between separators) spans more
    if pitch < height or any(g > MAX_PITCH_FACTOR * pitch + max(0, e.box.height - height)
                             for g, e in zip(gaps, firsts[:-1], strict=True)):
        return False
    return (tops[0] - panel.top <= EDGE_ROWS * pitch
            and panel.bottom - firsts[-1].box.bottom <= EDGE_ROWS * pitch)


def weighed_by_open_menu(scored: list[Scored], name: str, parse: ScreenParse, image: Any) -> list[Scored]:
    """``scored`` (matches for ``name``) with those outside an open menu weighed down, when the
    menu holds a match that rivals them (looked for only then: finding the menu costs a pass
    over the screen's edges)."""
    if image is None or len(scored) < 2:
        return scored
    best = max(s.score for s in scored)
    rivals = [s for s in scored if best - s.score <= RIVAL_BAND]
    if len(rivals) < 2:
        return scored
    menu = open_menu(parse, image)
    if menu is None or not any(menu.contains(s.box.center) for s in rivals):
        return scored
    out = []
    for s in scored:
        if not menu.contains(s.box.center):
            out.append(replace(s, score=s.score * OUTSIDE_MENU_FACTOR, why=s.why + "; outside the open menu"))
        elif not _labelled_row_block(s.element, name, menu):
            out.append(s)
    return out


def _labelled_row_block(element: Element, name: str, menu: Box) -> bool:
    """A menu holds no fields: a "field" across its whole width is an item's row between two
    separators, named by its own caption, not labelled by the item above it."""
    return element.kind in _INPUTS and element.box.width >= FULL_WIDTH * menu.width and \
        (not element.text or match_text(name, element.text) is None)
