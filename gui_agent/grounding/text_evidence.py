"""How much a text match on the screen says about where the target is.

The same words appear on a screen in several roles: as the whole caption of a control (the
target itself), as one word of a sentence (prose that talks about it: an instruction, a help
text), or in quotation marks (a *mention* of the name: 'Click "Save" to continue'). The
grounder weighs a match by these, from the text and the pixels only:

- :func:`prose_factor`: a word inside a longer line counts less the more other words the line
  holds, so a control whose whole text is the target clearly outranks a sentence naming it;
- :func:`is_mention`: the matched words stand in quotation marks;
- :func:`span_kind`: whether the matched words themselves are link-styled (a paragraph can hold
  a link among plain words; OCR reads the line as one run).
"""

from __future__ import annotations

import re
from typing import Any

from ..geometry import Box
from ..parsing.elements import ElementKind
from .description import CLOSING_MARKS, QUOTE_MARKS

PROSE_STEP = 0.03          # per word of the line outside the match
PROSE_FLOOR = 0.8          # a word in a long sentence keeps at least this share
# A quoted mention of a name is text about the target ('click on the file named "Ann"'),
# not the target: below the ladder's threshold even as a perfect match, so it never decides a
# step by itself (an offline worker then explores collapsed nodes for the real one).
MENTION_FACTOR = 0.45
_OPEN_QUOTES = QUOTE_MARKS
_CLOSE_QUOTES = CLOSING_MARKS   # not ' or ’: they may be an apostrophe ("users'")
_TRAILING = ".,;:!?)]"
_WORD_RE = re.compile(r"[^\W_]+")


def prose_factor(text: str, start: int, end: int) -> float:
    """Share of a partial match's score kept for the other words of its line.

    Words are runs of letters and digits, so a line OCR read without its spaces
    ("SelectT5,OyS7nO,GgnkT") still counts all of them.
    """
    extra = len(_WORD_RE.findall(text)) - len(_WORD_RE.findall(text[start:end]))
    return max(PROSE_FLOOR, 1.0 - PROSE_STEP * max(0, extra))


def is_mention(text: str, start: int, end: int) -> bool:
    """True when ``text[start:end]`` (a whole line too) stands in quotation marks."""
    span = text[start:end].strip()
    before = text[:start].rstrip()
    after = text[end:].lstrip()
    core = span.rstrip(_TRAILING)
    opened = _one_of(span[:1], _OPEN_QUOTES) or _one_of(before[-1:], _OPEN_QUOTES)
    closed = (len(core) > 1 and _one_of(core[-1:], _CLOSE_QUOTES)) or _one_of(after[:1], _CLOSE_QUOTES)
    return bool(span) and (opened or closed)


def _one_of(char: str, chars: frozenset[str]) -> bool:
    return len(char) == 1 and char in chars


def span_kind(rgb: Any, box: Box, default: ElementKind) -> ElementKind:
    """LINK when the words in ``box`` are link-styled, TEXT when they are plain, ``default``
    when the pixels show no glyphs there (``box`` is an estimate, so its ends are trimmed to
    keep the neighbouring words out)."""
    import numpy as np

    from ..parsing.fusion import text_run_kind

    trim = round(box.width * 0.12)
    inner = Box(box.left + trim, box.top, max(1, box.width - 2 * trim), box.height)
    inner = inner.clip(rgb.shape[1], rgb.shape[0])
    patch = np.asarray(rgb[inner.top:inner.bottom, inner.left:inner.right], dtype=float).mean(axis=2)
    if patch.size == 0 or float(patch.max() - patch.min()) < 40:
        return default
    return text_run_kind(rgb, inner)
