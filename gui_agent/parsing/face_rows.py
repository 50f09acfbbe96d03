"""Faces side by side: a tab bar, a pager, a row of number buttons.

Buttons that share their top and bottom and stand a small gap apart are one row. In such a
row a face whose caption text detection missed (a lone digit, "1", is too short a line for
it) is read again on its own: the ink inside the face, cut out and recognised directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ..geometry import Box
from .elements import Element, ElementKind
from .indicators import INK, Reread

K = ElementKind
_FACE_INSET = 4          # px of a face's border (and its rounded corners) left out of its ink
_GLYPH_HEIGHT = (0.2, 0.8)   # of a face's height: what a caption's ink spans (an icon fills more)


def face_rows(elements: Sequence[Element], faces: Sequence[int]) -> list[list[int]]:
    """The indices of ``faces`` (buttons among ``elements``) grouped in rows, left to right:
    shared top and bottom (within 3 px) and at most a small gap apart."""
    groups: list[list[int]] = []
    for i in sorted(faces, key=lambda i: elements[i].box.left):
        b = elements[i].box
        for g in groups:
            last = elements[g[-1]].box
            gap = b.left - last.right   # (a few px more on a HiDPI screen)
            if abs(last.top - b.top) <= 3 and abs(last.bottom - b.bottom) <= 3 and -4 <= gap <= max(4, b.height // 8):
                g.append(i)
                break
        else:
            groups.append([i])
    return groups


def _caption_ink(gray: np.ndarray, box: Box) -> Box | None:
    """The box of the ink inside a face (its border left out) when it is the size of a
    caption's glyphs; None for a blank face or one an icon fills."""
    inner = Box(box.left + _FACE_INSET, box.top + _FACE_INSET, box.width - 2 * _FACE_INSET,
                box.height - 2 * _FACE_INSET).clip(gray.shape[1], gray.shape[0])
    if inner.width < 4 or inner.height < 4:
        return None
    patch = gray[inner.top:inner.bottom, inner.left:inner.right].astype(np.int16)
    ink = np.abs(patch - np.median(patch)) > INK
    ys, xs = np.nonzero(ink)
    if len(ys) < 4:
        return None
    height = int(ys.max() - ys.min()) + 1
    if not _GLYPH_HEIGHT[0] * box.height <= height <= _GLYPH_HEIGHT[1] * box.height:
        return None
    return Box(inner.left + int(xs.min()), inner.top + int(ys.min()), int(xs.max() - xs.min()) + 1, height)


def read_lone_captions(elements: list[Element], gray: np.ndarray, reread: Reread | None) -> list[Element]:
    """Captionless faces in a row of two or more read again, one by one, from the ink inside
    them; a read that is letters and digits becomes the face's caption."""
    if reread is None:
        return elements
    faces = [i for i, e in enumerate(elements) if e.kind == K.BUTTON]
    todo: list[tuple[int, Box]] = []
    for row in face_rows(elements, faces):
        if len(row) < 2:
            continue
        for i in row:
            if elements[i].text:
                continue
            ink = _caption_ink(gray, elements[i].box)
            if ink is not None:
                todo.append((i, ink.expand(2)))
    if not todo:
        return elements
    reads = {line.box: line.text.strip() for line in reread([box for _, box in todo])}
    out = list(elements)
    for i, box in todo:
        text = reads.get(box, "")
        if text and text.isalnum():
            out[i] = replace(out[i], text=text)
    return out
