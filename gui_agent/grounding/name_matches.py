"""An element named by the description's words: its own text, the label the parser gave it,
or the icon-font glyph it looks like; and an element whose whole caption reads the description
with its role words. The first candidates of the OCR rung, before places and relations weigh
them (:mod:`.ocr_grounder`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import numpy as np

from ..geometry import Box
from ..parsing.elements import Element, ElementKind
from ..parsing.indicators import INK
from ..parsing.word_gaps import word_boxes
from .description import TargetQuery
from .kinds import kind_factor
from .matching import match_text, sub_box, symbol_fold
from .scored import Scored
from .text_evidence import MENTION_FACTOR, is_mention, prose_factor, span_kind
from .tree_evidence import partial_name_factor

K = ElementKind
CLOSE_WORDS = {"close", "x", "\u00d7", "\u2715", "\u2716"}
NAMED_CLOSE = 0.85              # a tree's button named "Close", asked for as "x": below a drawn "x"
SPELLED_SCORE = 0.97            # an element whose whole text is the description ('Tab #2')
QUOTED_CASE_FACTOR = 0.9        # quoted text in another letter case: still found, clearly second
LIKENESS_FACTOR = 0.85          # an icon named by the glyph it resembles: below any name read
VALUE_FACTOR = 0.9              # a text field or a list's box found by the text it holds
VALUE_BLANK = 0.5               # a display's value leaves this share of its width blank before it
_VALUE_KINDS = frozenset({K.TEXT_FIELD, K.COMBO})


def direct_matches(query: TargetQuery, elements: Iterable[Element], use_labels: bool = True,
                    rgb: Any = None) -> list[Scored]:
    """Elements whose own text (or, with ``use_labels``, parser-given label) matches; an icon
    that only looks like the name counts when no element reads the whole name."""
    out: list[Scored] = []
    likeness: list[Scored] = []
    read_whole = False
    close_query = query.text.strip().lower() in CLOSE_WORDS
    elements = list(elements)
    displays = [e.box for e in elements if e.kind in _VALUE_KINDS] if rgb is not None else []
    for e in elements:
        best = None
        named = (("text", e.text), ("label", e.label if use_labels else ""),
                 *(("likeness", n) for n in (e.looks_like if use_labels else ())))
        for field, value in named:
            m = match_text(query.text, value) if value else None
            if close_query and value and field == "text":
                # OCR reads a close glyph as "x"/"X", often glued to the end of a title
                glyph = max((g for g in (match_text(w, value) for w in ("x", "\u00d7")) if g),
                            key=lambda g: g.score, default=None)
                if glyph is not None and (m is None or glyph.score > m.score) \
                        and not is_mention(value, glyph.start, glyph.end):
                    box = sub_box(e.box, value, glyph.start, glyph.end)
                    out.append(Scored(e, box, 0.9 * glyph.score, f"close glyph {value[glyph.start:glyph.end]!r}"))
                    break
            if m is not None and query.quoted and m.grade in ("fuzzy", "partial-fuzzy"):
                m = None  # quoted text is matched literally (OCR confusions still allowed)
            if m is not None and query.quoted and m.grade in ("case", "partial-case") and field != "likeness":
                # quoted "yes" names the "yes" button, not the "Yes" one: letter case counts
                m = replace(m, score=m.score * QUOTED_CASE_FACTOR)
            if m is not None and field != "text" and m.partial:
                m = None  # a label names its widget as a whole, not by one of its words
            if m is not None and (best is None or m.score > best[0].score):
                best = (m, field, value)
        if out and out[-1].element is e:
            continue  # already taken as a close glyph
        if close_query and e.kind == K.CLOSE and (best is None or best[0].score < 0.95):
            out.append(Scored(e, e.box, 0.95 * kind_factor(query, e.kind), "close glyph"))
            continue
        if close_query and e.kind in (K.BUTTON, K.ICON) and e.source == "a11y" and \
                e.text.strip().lower() in CLOSE_WORDS and (best is None or best[0].score < NAMED_CLOSE):
            # the tree names a dialog's "x" by what it does: asked for "x", it is that button
            out.append(Scored(e, e.box, NAMED_CLOSE * kind_factor(query, e.kind), "a button named close"))
            continue
        if best is None:
            continue
        m, field, value = best
        box, element, score, why = e.box, e, m.score, f"{field} {value!r} matches ({m.grade})"
        if field == "likeness":
            likeness.append(Scored(e, box, score * LIKENESS_FACTOR * kind_factor(query, e.kind),
                                   f"an icon that looks like {value!r}"))
            continue
        read_whole = read_whole or not m.partial
        if field == "text" and m.partial:
            # one run of words of a longer text: weaker the more other words the line holds
            score *= prose_factor(value, m.start, m.end)
            if e.kind == K.BUTTON and e.box.width >= 2 * e.box.height:
                # two buttons side by side read as one line ("Previous cancel"): the words'
                # part of it, not the middle, which is the other button's edge
                box = sub_box(e.box, value, m.start, m.end)
            if e.kind in (K.TEXT, K.LINK):
                words = word_boxes(rgb, e.box, value) if rgb is not None else None
                box = sub_box(e.box, value, m.start, m.end, words)
                kind = span_kind(rgb, box, e.kind) if rgb is not None else e.kind
                if kind != e.kind:   # a link among plain words (or a plain word on a link line)
                    element = replace(e, kind=kind, box=box, text=value[m.start:m.end].strip())
                    why += f"; the words are {kind}-styled"
        if field == "text" and m.partial:
            factor, note = partial_name_factor(e, value, m.start)
            score, why = score * factor, why + note
            if e.kind == K.BUTTON and symbol_fold(query.text) is not None:
                continue    # "-" of a key captioned "<-" is another key, whatever else there is
        if field == "text" and is_mention(value, m.start, m.end):
            score *= MENTION_FACTOR   # the name in quotes: text that talks about the target
            why += "; quoted: a mention"
        if field == "text" and e.kind in _VALUE_KINDS and not (query.kinds & _VALUE_KINDS):
            # what a field holds is its value, not its name: "3" on a calculator's display is
            # not the "3" key, the value a list's box shows is not the item in its open list;
            # a quoted name is never a display's value (with the key hidden under a tooltip,
            # the display was clicked and the run went on)
            if query.quoted and rgb is not None and _holds_a_value(rgb, e.box):
                continue
            score, why = score * VALUE_FACTOR, why + "; the field's value, not its name"
        if field == "text" and e.kind in (K.TEXT, K.LINK) and displays and not (query.kinds & _VALUE_KINDS):
            # the same, read apart from its display (a tall display's value is a text of its own)
            host = next((d for d in displays if d.contains(e.box.center) and d.area > 2 * e.box.area
                         and _holds_a_value(rgb, d)), None)
            if host is not None:
                if query.quoted:
                    continue
                score, why = score * VALUE_FACTOR, why + "; a display's value, not a name"
        out.append(Scored(element, box, score * kind_factor(query, element.kind), why))
    return out if read_whole else out + likeness


def _holds_a_value(rgb: Any, box: Box) -> bool:
    """Whether the ink inside a bordered box is laid out as a display's value: at its right end,
    at least VALUE_BLANK of its width blank before it (a calculator's "3", an amount). A button's
    caption fills its face or sits in its middle; a list's row and a typed text start at the
    left."""
    inset = max(3, box.height // 8)
    patch = rgb[box.top + inset:box.bottom - inset, box.left + inset:box.right - inset]
    if patch.size == 0:
        return False
    patch = patch.mean(axis=2) if patch.ndim == 3 else patch.astype(np.float32)
    cols = np.flatnonzero((np.abs(patch - float(np.median(patch))) > INK).any(axis=0))
    return cols.size > 0 and cols[0] >= VALUE_BLANK * patch.shape[1]


def spelled_matches(query: TargetQuery, elements: Iterable[Element]) -> list[Scored]:
    """Elements whose whole text reads the description with its role words ('Tab #2' is a
    tab's caption, not the tab '#2'; 'the list' may be a control captioned "List")."""
    out: list[Scored] = []
    for e in elements:
        if e.kind == K.TEXT:
            continue   # a line of prose may happen to read 'button TWO' where it wraps
        m = match_text(query.spelled, e.text) if e.text else None
        if m is None or m.partial or (query.quoted and m.grade == "fuzzy") or is_mention(e.text, 0, len(e.text)):
            continue
        fits = not query.kinds or e.kind in query.kinds
        score = m.score * SPELLED_SCORE * (1.0 if fits else 0.96)
        out.append(Scored(e, e.box, score, f"text {e.text!r} reads the whole description ({m.grade})"))
    return out
