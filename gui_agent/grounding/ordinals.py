"""'The 2nd checkbox', 'the last link': picking one of equally good candidates by its place in
reading order (top to bottom, then left to right within a row)."""

from __future__ import annotations

from dataclasses import replace

from .description import ordinal_word
from .scored import Scored


def reading_order(items: list[Scored]) -> list[Scored]:
    """Top to bottom, then left to right within a row (rows: overlapping vertical centres)."""
    rows: list[list[Scored]] = []
    for s in sorted(items, key=lambda s: s.box.top + s.box.height / 2):
        cy = s.box.top + s.box.height / 2
        if rows:
            last = rows[-1][-1].box
            if abs(cy - (last.top + last.height / 2)) <= max(6, min(s.box.height, last.height) / 2):
                rows[-1].append(s)
                continue
        rows.append([s])
    return [s for row in rows for s in sorted(row, key=lambda s: s.box.left)]


def apply_ordinal(ordinal: int, scored: list[Scored], band_width: float) -> list[Scored]:
    """The ``ordinal``-th (from the end when negative) of the best-scored candidates (those within
    ``band_width`` of the best) in reading order, first; the others at half their score."""
    if not scored:
        return []
    band = [s for s in scored if s.score >= scored[0].score - band_width]
    ordered = reading_order(band)
    index = ordinal - 1 if ordinal > 0 else len(ordered) + ordinal
    if not 0 <= index < len(ordered):
        return []
    chosen = ordered[index]
    rest = [replace(s, score=s.score * 0.5) for s in scored if s is not chosen]
    label = "last" if ordinal == -1 else ordinal_word(ordinal) if ordinal > 0 else f"{-ordinal} from last"
    return [replace(chosen, why=f"{chosen.why}; {label} of {len(ordered)} in reading order"), *rest]
