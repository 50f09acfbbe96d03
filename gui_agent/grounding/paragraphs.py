"""Paragraphs: text lines stacked as a wrapped text is, read as one block ('the 2nd paragraph',
'the last word of the paragraph', a page's instruction bar repeating the task)."""

from __future__ import annotations

import re
from dataclasses import replace

from ..geometry import Box
from ..parsing.elements import Element, ElementKind

PARAGRAPH_SOURCE = "paragraph"      # the source of an element made of a paragraph's lines
_PROSE = (ElementKind.TEXT, ElementKind.LINK)


def letters(text: str) -> str:
    """Lower-case letters and digits only: what OCR reliably reads of a line."""
    return re.sub(r"[\W_]+", "", text.lower())


def paragraphs(elements: tuple[Element, ...]) -> list[list[Element]]:
    """Text lines grouped as a wrapped text: each line directly under the previous one (a gap
    under a line's height) and overlapping it horizontally."""
    lines = sorted((e for e in elements if e.kind in _PROSE and letters(e.text)),
                   key=lambda e: (e.box.top, e.box.left))
    groups: list[list[Element]] = []
    for line in lines:
        for group in groups:
            last = group[-1]
            gap = line.box.top - last.box.bottom
            height = max(last.box.height, line.box.height)
            overlaps = line.box.left < last.box.right and last.box.left < line.box.right
            same_row = abs(line.box.top - last.box.top) <= height / 2
            if overlaps and -height / 2 <= gap <= 0.8 * height or same_row and \
                    0 <= line.box.left - last.box.right <= height:
                group.append(line)
                break
        else:
            groups.append([line])
    return groups


def paragraph_elements(elements: tuple[Element, ...]) -> list[Element]:
    """Each paragraph as one text element: the lines' box and their words in reading order."""
    out = []
    for group in (part for block in paragraphs(elements) for part in _split_at_blank_lines(block)):
        box = Box.from_corners(min(e.box.left for e in group), min(e.box.top for e in group),
                               max(e.box.right for e in group), max(e.box.bottom for e in group))
        text = " ".join(e.text for e in sorted(group, key=lambda e: (e.box.top, e.box.left)))
        out.append(replace(group[0], kind=ElementKind.TEXT, box=box, text=text, source=PARAGRAPH_SOURCE,
                           score=min(e.score for e in group)))
    return out


def _split_at_blank_lines(group: list[Element]) -> list[list[Element]]:
    """A block whose lines are spaced more widely here and there: paragraphs set apart by a
    blank line's worth of space (the wider gaps, clearly wider than the lines' own spacing)."""
    rows = sorted(group, key=lambda e: (e.box.top, e.box.left))
    gaps = [b.box.top - a.box.bottom for a, b in zip(rows, rows[1:], strict=False)
            if b.box.top >= a.box.bottom - a.box.height / 2]
    if not gaps:
        return [group]
    tight = min(gaps)
    parts: list[list[Element]] = [[rows[0]]]
    for a, b in zip(rows, rows[1:], strict=False):
        gap = b.box.top - a.box.bottom
        if gap > tight + 0.35 * max(a.box.height, b.box.height):
            parts.append([])
        parts[-1].append(b)
    return parts
