"""Where each word of a text line lies, from the blank columns between them.

OCR reads a line as one box; a target that is some of its words ('the start of "over the"',
a word to double-click) needs those words' own place. Estimating it from the characters' share
of the line is off by a letter or more in a proportional font, which a drag that selects the
words cannot afford. The gaps between words are the widest blank runs of columns across the
line: when a line of n words has n - 1 such runs clearly wider than any gap between letters,
they cut it into its words.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..geometry import Box

INK = 40              # grey levels between ink and the line's background
WORD_GAP_RATIO = 1.5  # the narrowest word gap is at least this many times the widest letter gap


def word_boxes(pixels: Any, box: Box, text: str) -> list[Box] | None:
    """One box per whitespace-separated word of ``text``, the line OCR read in ``box`` of
    ``pixels`` (grey levels, or RGB); None when the blank columns do not cut the line into that many words
    unambiguously (the caller then estimates)."""
    words = len(text.split())
    b = box.clip(pixels.shape[1], pixels.shape[0])
    if words == 0 or b.width < 2 or b.height < 2:
        return None
    crop = np.asarray(pixels[b.top:b.bottom, b.left:b.right], dtype=np.int32)
    if crop.ndim == 3:
        crop = crop.mean(axis=2).astype(np.int32)
    rim = np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]])
    inked = np.flatnonzero((np.abs(crop - int(np.median(rim))) > INK).any(axis=0))
    if inked.size == 0:
        return None
    runs = np.split(inked, np.flatnonzero(np.diff(inked) > 1) + 1)     # inked column runs
    gaps = [int(nxt[0] - cur[-1] - 1) for cur, nxt in zip(runs, runs[1:], strict=False)]
    if len(gaps) < words - 1:
        return None
    order = sorted(range(len(gaps)), key=lambda i: -gaps[i])
    cuts = sorted(order[:words - 1])
    rest = [gaps[i] for i in order[words - 1:]]
    if cuts and rest and gaps[order[words - 2]] < max(2, WORD_GAP_RATIO * max(rest)):
        return None
    out, first = [], 0
    for cut in [*cuts, len(runs) - 1]:
        left, right = int(runs[first][0]), int(runs[cut][-1])
        out.append(Box(b.left + left, b.top, right - left + 1, b.height))
        first = cut + 1
    return out
