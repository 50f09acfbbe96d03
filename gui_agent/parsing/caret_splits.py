"""A focused field split in two by its caret: the caret's stroke, nearly touching a thick focus
ring, closes the field's inside in two, and the widget detector finds two fields side by side."""

from __future__ import annotations

import numpy as np

from ..geometry import Box
from .elements import Element, ElementKind

_SEAM_PX = 6    # px two halves of one field split by its caret overlap at most


def join_caret_splits(gray: np.ndarray, elements: list[Element]) -> list[Element]:
    """A focused field whose caret nearly touches its thick focus ring is found as two fields
    side by side (the caret's stroke closes the inside in two), and with the next field of the
    form they passed for a table's cells. Two fields that share their top and bottom and abut
    are one when the line between them stops short of the borders (a caret); a table's cell
    border runs from border to border."""
    fields = sorted((e for e in elements if e.kind == ElementKind.TEXT_FIELD), key=lambda e: e.box.left)
    joined: dict[int, Element] = {}
    gone: set[int] = set()
    for a in fields:
        if id(a) in gone:
            continue
        for b in fields:
            if b is a or id(b) in gone or not _caret_between(gray, joined.get(id(a), a).box, b.box):
                continue
            whole = joined.get(id(a), a)
            joined[id(a)] = Element(ElementKind.TEXT_FIELD, whole.box.union(b.box), score=whole.score,
                                    source=whole.source)
            gone.add(id(b))
    return [joined.get(id(e), e) for e in elements if id(e) not in gone]


def _caret_between(gray: np.ndarray, a: Box, b: Box) -> bool:
    if abs(a.top - b.top) > 2 or abs(a.bottom - b.bottom) > 2 or not -_SEAM_PX <= b.left - a.right <= 1:
        return False
    top, bottom = max(a.top, b.top) + 1, min(a.bottom, b.bottom) - 1
    x0, x1 = min(a.right, b.left) - 2, max(a.right, b.left) + 2
    if bottom - top < 6 or x0 < 0 or x1 > gray.shape[1]:
        return False
    strip = gray[top:bottom, x0:x1].astype(np.int16)
    ground = int(np.median(strip))                     # the field's own colour, either theme
    off = np.abs(strip - ground)
    seam = int(np.argmax(off.mean(axis=0)))            # the column most unlike it: the line between
    column = off[:, seam]
    if int(column.max()) < 40:
        return False
    gaps = column < int(column.max()) // 2
    return bool(gaps[:len(gaps) // 3].any() and gaps[-(len(gaps) // 3):].any())
