"""Layout geometry for grounding: which text names which widget, how well a box stands in a
relation ('right of', 'below', ...) to an anchor, and where the panels (dialogs, group boxes)
of a screen are. Pure functions of boxes and pixels."""

from __future__ import annotations

from typing import Any

from ..geometry import Box
from ..parsing.elements import ElementKind

K = ElementKind
LABEL_REACH = 60.0              # px: how fast a label's claim on a widget fades with distance
RELATION_REACH = 2.5            # anchor heights: the same for 'right of X', 'below X' ...


def label_affinity(label: Box, widget: Box, kind: ElementKind) -> float:
    """How plausibly the text in ``label`` names ``widget`` (0..1), by their layout."""
    lcy, wcy = label.top + label.height / 2, widget.top + widget.height / 2
    dy = abs(lcy - wcy)
    same_row = dy <= max(label.height, widget.height) / 2 + 2
    if widget.intersection(label) >= 0.8 * label.area:       # a placeholder inside the field
        return 0.97
    distances = []
    if kind in (K.CHECKBOX, K.RADIO):
        if same_row and -4 <= label.left - widget.right <= 80:          # [x] Label
            distances.append(max(0, label.left - widget.right) + dy)
        if same_row and widget.left - label.right >= -4:                 # Label ...... [x]
            distances.append(1.5 * (widget.left - label.right) + dy + 10)
    else:
        if same_row and widget.left - label.right >= -4:                 # Label [______]
            distances.append(max(0, widget.left - label.right) + 2 * dy)
        gap = widget.top - label.bottom
        if -4 <= gap <= 3 * max(label.height, 12) and abs(widget.left - label.left) <= 40:
            distances.append(max(0, gap) + 0.5 * abs(widget.left - label.left))  # label above
    if not distances:
        return 0.0
    return 1.0 / (1.0 + min(distances) / LABEL_REACH)


def relation_factor(kind: str, box: Box, anchor: Box) -> float:
    """How well ``box`` lies in relation ``kind`` to ``anchor`` (0 = not at all, 1 = touching).

    Distance counts the gap in the asked direction plus, heavily, any misalignment across it
    (a field 'right of Name' shares Name's row; an item 'below Inbox' shares its column), and
    fades on the scale of the anchor's height, so tightly packed rows still rank clearly.
    """
    bcx, bcy = box.left + box.width / 2, box.top + box.height / 2
    acx, acy = anchor.left + anchor.width / 2, anchor.top + anchor.height / 2
    vgap = max(0, max(box.top, anchor.top) - min(box.bottom, anchor.bottom))
    hgap = max(0, max(box.left, anchor.left) - min(box.right, anchor.right))
    # a box whose centre lies outside the anchor's row band is on another row (a table's next
    # line shares a border with the anchor's cell, yet is not 'right of' it)
    off_row = max(0.0, abs(bcy - acy) - min(box.height, anchor.height) / 2)
    row_off = 3 * vgap + 0.25 * abs(bcy - acy) + 2 * off_row
    col_off = 2 * hgap + 0.25 * abs(bcx - acx)
    # OCR pads its boxes: the boxes of tightly packed rows (list items) overlap by a few pixels
    overlap = 0.35 * min(box.height, anchor.height)
    if kind == "right_of":
        gap = box.left - anchor.right
        d = None if gap < -min(8, anchor.width / 4) or bcx <= acx else max(0, gap) + row_off
    elif kind == "left_of":
        gap = anchor.left - box.right
        d = None if gap < -min(8, anchor.width / 4) or bcx >= acx else max(0, gap) + row_off
    elif kind == "below":
        gap = box.top - anchor.bottom
        d = None if gap < -overlap or bcy <= acy else max(0, gap) + col_off
    elif kind == "above":
        gap = anchor.top - box.bottom
        d = None if gap < -overlap or bcy >= acy else max(0, gap) + col_off
    elif kind == "after":
        # reading order: further along the anchor's row, or on a later row at any column (the
        # parts of a record, a post or a row follow its name); the nearest row counts most
        same_row = abs(bcy - acy) <= max(box.height, anchor.height) / 2
        if same_row:
            gap = box.left - anchor.right
            d = None if gap < -min(8, anchor.width / 4) else max(0, gap) * 0.25
        else:
            gap = box.top - anchor.bottom
            d = None if gap < -overlap or bcy <= acy else max(0, gap) + 0.05 * abs(box.left - anchor.left)
    elif kind == "next_to":
        sides = [relation_factor(k, box, anchor) for k in ("right_of", "left_of")]
        return max(sides) if vgap == 0 else 0.5 * max(sides)
    else:  # near
        d = box.distance(anchor)
    scale = RELATION_REACH * max(anchor.height, 12)
    return 0.0 if d is None else 1.0 / (1.0 + d / scale)


def find_panels(image: Any, min_width: int = 80, min_height: int = 60, gray: Any = None) -> list[Box]:
    """Rectangular frames on the screen (dialogs, group boxes, panels), from their edges;
    ``gray``: the image's grey levels when the caller has them already."""
    import cv2
    import numpy as np

    if gray is None:
        gray = cv2.cvtColor(np.asarray(image.convert("RGB")), cv2.COLOR_RGB2GRAY)
    edges = cv2.dilate(cv2.Canny(gray, 20, 60), np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    panels: list[Box] = []
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if w < min_width or h < min_height:
            continue
        # a frame's outline runs along its bounding rectangle
        if cv2.contourArea(contour) < 0.85 * w * h:
            continue
        box = Box(int(x), int(y), int(w), int(h))
        if not any(abs(box.left - p.left) <= 4 and abs(box.top - p.top) <= 4
                   and abs(box.right - p.right) <= 4 and abs(box.bottom - p.bottom) <= 4 for p in panels):
            panels.append(box)
    return panels
