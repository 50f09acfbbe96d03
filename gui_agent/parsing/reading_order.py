"""Reading order: rows of vertically overlapping boxes, top to bottom, each left to right."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from ..geometry import Box

T = TypeVar("T")


def same_row(a: Box, b: Box) -> bool:
    """True when the boxes share at least half of the shorter one's height."""
    overlap = min(a.bottom, b.bottom) - max(a.top, b.top)
    return overlap >= 0.5 * min(a.height, b.height)


def group_rows(items: Sequence[T], box_of: Callable[[T], Box]) -> list[list[T]]:
    """Items grouped into rows; a row is joined when an item overlaps the row's first item."""
    rows: list[tuple[Box, list[T]]] = []
    for item in sorted(items, key=lambda i: (box_of(i).top, box_of(i).left)):
        box = box_of(item)
        for anchor, members in rows:
            if same_row(anchor, box):
                members.append(item)
                break
        else:
            rows.append((box, [item]))
    ordered = sorted(rows, key=lambda r: r[0].top)
    return [sorted(members, key=lambda i: box_of(i).left) for _, members in ordered]


def reading_order(items: Sequence[T], box_of: Callable[[T], Box]) -> list[T]:
    """Items sorted top to bottom by row, and left to right within a row."""
    return [item for row in group_rows(items, box_of) for item in row]
