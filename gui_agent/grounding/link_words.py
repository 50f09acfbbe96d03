"""'the link "sed"': a word inside a line of text is that link only when it is drawn as one.

OCR reads a paragraph line by line, links and plain words together, so a link is found as a
part of a line. The same word written plainly in another line is no link: a link is drawn in a
colour (blue, purple: ink with a hue, where body text is grey or black) or in another colour
than the words around it, or underlined. A part of a line that shows none of this is dropped
from the candidates of a description that asks for a link, so the page is explored further
(another section opened) instead of a plain word clicked.
"""

from __future__ import annotations

import numpy as np

from ..geometry import Box
from ..parsing.elements import ElementKind
from .description import TargetQuery
from .scored import Scored

K = ElementKind
INK = 60              # grey levels between ink and its background
HUE = 60              # the least spread of an ink's channels that is a colour, not a grey
OTHER_INK = 60        # colour distance between a word's ink and the rest of its line's
UNDERLINE = 0.85      # of a word's width a line of ink under it covers


def _ink(rgb: np.ndarray, box: Box) -> np.ndarray:
    """The ink pixels (RGB rows) inside ``box``: those clearly off its background."""
    b = box.clip(rgb.shape[1], rgb.shape[0])
    patch = rgb[b.top:b.bottom, b.left:b.right].reshape(-1, 3).astype(np.int16)
    if not len(patch):
        return patch
    background = np.median(patch, axis=0)
    return patch[np.abs(patch - background).max(axis=1) > INK]


def _underlined(rgb: np.ndarray, word: Box) -> bool:
    """A row of ink across the word in its lower part or just under it."""
    b = Box(word.left, word.top + word.height // 2, word.width, word.height // 2 + 3).clip(rgb.shape[1], rgb.shape[0])
    patch = rgb[b.top:b.bottom, b.left:b.right].astype(np.int16)
    if patch.size == 0:
        return False
    background = np.median(patch.reshape(-1, 3), axis=0)
    ink = np.abs(patch - background).max(axis=2) > INK
    return bool((ink.mean(axis=1) >= UNDERLINE).any())


def drawn_as_link(rgb: np.ndarray, word: Box, line: Box) -> bool:
    """Whether the part ``word`` of the text line ``line`` is drawn as a link."""
    ink = _ink(rgb, word)
    if len(ink) < 4:
        return True                    # nothing to judge by: leave it to the scores
    colour = ink.mean(axis=0)
    if float(colour.max() - colour.min()) >= HUE:
        return True
    rest = np.concatenate([_ink(rgb, Box(line.left, line.top, max(0, word.left - line.left), line.height)),
                           _ink(rgb, Box(word.right, line.top, max(0, line.right - word.right), line.height))])
    if len(rest) >= 4 and float(np.abs(rest.mean(axis=0) - colour).max()) >= OTHER_INK:
        return True
    return _underlined(rgb, word)


def linked_words(query: TargetQuery, scored: list[Scored], rgb: np.ndarray | None) -> list[Scored]:
    """``scored`` without the parts of text lines that are not drawn as links, when the
    description asks for a link; the accessibility tree's elements are left as they are."""
    if rgb is None or query.kinds != frozenset({K.LINK}):
        return scored
    return [s for s in scored if s.element.accessible is not None
            or s.element.kind not in (K.TEXT, K.LINK) or s.box == s.element.box
            or drawn_as_link(rgb, s.box, s.element.box)]
