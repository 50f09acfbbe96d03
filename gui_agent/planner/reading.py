"""Texts a task asks to read off the screen and type: 'the value of Color', 'the last word of
the paragraph'. The phrases are the language file's (``texts.value_phrases``,
``texts.word_phrases``); a reading is planned as ``type('', into=..., read_from=...)`` and the
worker reads it when the step is due (:func:`read_value`), so the text typed is the one shown
at that moment.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..actions import Scroll
from ..grounding.description import ORDINAL_WORDS, ordinal_word
from . import vocabulary as vocab
from .clauses import Clause
from .phrases import Tokens, desc, fail, lower_word, render

VALUE_OF = "the value of"
# Every labelled field filled with the value its label names elsewhere on the screen (a table
# row, a list of "Label value" lines): planned as one step with this reading, which the worker
# turns into one fill per field once it sees them (screen_aids.ScreenAids.each_label).
EACH_LABEL = "the value of each label"
_WORD_NAMES = {1: "first", 2: "second", 3: "third", -1: "last"}
_WORD_RE = re.compile(r"^the (\w+) word of (.+)$")
# 'the 5th word in the paragraph', 'the fourth word of X': any ordinal (the language file's
# phrases name the common ones)
_NTH_WORD = re.compile(r"^the (?P<n>\d{1,2}(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|"
                       r"seventh|eighth|ninth|tenth|last|final) word (?:of|in) ")
# description -> the text the element it names shows; None: not found.
TextReader = Callable[[str], "str | None"]


def reading_of(clause: Clause, toks: Tokens) -> str | None:
    """The canonical reading a value's tokens ask for ('the value of "Color"', 'the last word of
    the paragraph'), or None when they are a text to type as it is."""
    low = [lower_word(t) for t in toks]
    if is_each_label(low):
        return EACH_LABEL
    vague = next((p for p in vocab.VAGUE_READINGS if low[:len(p.split())] == p.split()), None)
    if vague is not None:
        raise fail(clause, f"{' '.join(toks)!r} describes a text to read off the screen without "
                           "naming it; quote the text ('type \"abc\" into the Code field') or name "
                           "where it is shown, one field at a time: 'enter the value of Color into "
                           "the Color field' (or every labelled field: 'enter the value of each label into "
                           "the form')")
    if len(low) > 3 and low[0] in vocab.ARTICLES and (low[2] in vocab.RELATIVE_WORDS
                                                      or low[3] in vocab.RELATIVE_WORDS):
        raise fail(clause, f"{render(toks, clause)!r} describes a text by what it is like without giving "
                           "it; quote the text to type ('enter \"Gambia\" into the field')")
    nth = _NTH_WORD.match(" ".join(low))
    if nth is not None and len(toks) > 4:
        which = nth.group("n")
        n = ORDINAL_WORDS.get(which, -1 if which == "final" else None) or int(which[:-2])
        name = _WORD_NAMES.get(n) or ordinal_word(n)
        return f"the {name} word of {desc(clause, toks[4:])}"
    for phrases, is_value in ((vocab.VALUE_PHRASES, True), (tuple(vocab.WORD_PHRASES), False)):
        for phrase in phrases:
            words = phrase.split()
            if low[:len(words)] != words or len(toks) == len(words):
                continue
            rest = toks[len(words):]
            if is_value:
                name = " ".join(clause.quoted(t) or t for t in rest)
                return f'{VALUE_OF} "{name}"'
            return f"the {vocab.WORD_PHRASES[phrase]} word of {desc(clause, rest)}"
    return None


def is_each_label(low: list[str]) -> bool:
    """Whether a text's (lower-case) words ask for the value of every field's label: 'the value
    that corresponds with each label', 'the values for every label'."""
    said = f" {' '.join(low)} "
    return bool(low) and low[0] == "the" and any(w in ("value", "values") for w in low) and any(
        f" {phrase} " in said for phrase in vocab.EACH_LABEL_WORDS)


def read_value(reading: str, read: TextReader) -> str | None:
    """What ``reading`` names, read with ``read`` (a description -> the text it shows): a value
    beside its name, first to its right then below it, or one word of an element's text."""
    if reading.startswith(VALUE_OF):
        name = reading[len(VALUE_OF):].strip()
        for place in vocab.VALUE_PLACES:
            shown = read(f"{place} {name}")
            if shown and shown.strip():
                return shown.strip()
        return None
    m = _WORD_RE.match(reading)
    if m is None:
        return None
    word = m.group(1)
    which = next((n for n, w in _WORD_NAMES.items() if w == word), None)
    if which is None and re.fullmatch(r"\d{1,2}(?:st|nd|rd|th)", word):
        which = int(word[:-2])
    shown = read(m.group(2))
    words = re.findall(r"[^\W_][\w'’-]*", shown or "")
    if which is None or not words or not -len(words) <= (which - 1 if which > 0 else which) < len(words):
        return None
    return words[which - 1 if which > 0 else which]


def scroll_first(reading: str) -> Scroll | None:
    """The scroll that brings the end of a text area (or list) into view before its last word
    is read ('the last word of the text area'); None for any other reading."""
    m = _WORD_RE.match(reading)
    if m is None or m.group(1) != "last":
        return None
    where = m.group(2)
    words = {w.strip('.,"').lower() for w in where.split()}
    if not words & (vocab.EDITABLE_WORDS | {"list"}):
        return None
    return Scroll("down", vocab.SCROLL_AMOUNT_WORDS["to the end"], where)
