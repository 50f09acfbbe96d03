"""Points and boxes in pixels. Image coordinates unless a name says otherwise."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, order=True)
class Point:
    x: int
    y: int

    def offset(self, dx: int, dy: int) -> Point:
        return Point(self.x + dx, self.y + dy)

    def distance(self, other: Point) -> float:
        return math.hypot(self.x - other.x, self.y - other.y)


@dataclass(frozen=True, order=True)
class Box:
    """An axis-aligned rectangle: ``left``/``top`` inclusive, ``width``/``height`` in pixels."""

    left: int
    top: int
    width: int
    height: int

    @classmethod
    def from_corners(cls, x1: float, y1: float, x2: float, y2: float) -> Box:
        left, right = sorted((x1, x2))
        top, bottom = sorted((y1, y2))
        return cls(round(left), round(top), max(1, round(right - left)), max(1, round(bottom - top)))

    @property
    def right(self) -> int:
        return self.left + self.width

    @property
    def bottom(self) -> int:
        return self.top + self.height

    @property
    def center(self) -> Point:
        return Point(self.left + self.width // 2, self.top + self.height // 2)

    @property
    def area(self) -> int:
        return self.width * self.height

    @property
    def corners(self) -> tuple[int, int, int, int]:
        """(left, top, right, bottom): the form used in action text."""
        return (self.left, self.top, self.right, self.bottom)

    def contains(self, p: Point) -> bool:
        return self.left <= p.x < self.right and self.top <= p.y < self.bottom

    def intersection(self, other: Box) -> int:
        w = min(self.right, other.right) - max(self.left, other.left)
        h = min(self.bottom, other.bottom) - max(self.top, other.top)
        return max(0, w) * max(0, h)

    def iou(self, other: Box) -> float:
        inter = self.intersection(other)
        union = self.area + other.area - inter
        return inter / union if union else 0.0

    def union(self, other: Box) -> Box:
        """The smallest box holding both."""
        return Box.from_corners(min(self.left, other.left), min(self.top, other.top),
                                max(self.right, other.right), max(self.bottom, other.bottom))

    def expand(self, margin: int) -> Box:
        return Box(self.left - margin, self.top - margin, self.width + 2 * margin, self.height + 2 * margin)

    def clip(self, width: int, height: int) -> Box:
        left, top = max(0, self.left), max(0, self.top)
        right, bottom = min(width, self.right), min(height, self.bottom)
        return Box(left, top, max(0, right - left), max(0, bottom - top))

    def distance(self, other: Box) -> float:
        """Gap between the two boxes (0 when they touch or overlap)."""
        dx = max(0, max(self.left, other.left) - min(self.right, other.right))
        dy = max(0, max(self.top, other.top) - min(self.bottom, other.bottom))
        return math.hypot(dx, dy)


class BoxGrid(Generic[T]):
    """Items bucketed by the grid cells their boxes cover, so that the items near a box are found
    without looking at every item: fusing a spreadsheet's thousands of cells and lines compares
    each with its neighbours, not with all of them."""

    def __init__(self, items: Iterable[T] = (), box: Callable[[T], Box] = lambda item: item,
                 cell: int = 64) -> None:
        self._box = box
        self._cell = cell
        self._items: list[T] = []
        self._boxes: list[Box] = []
        self._cells: dict[tuple[int, int], list[int]] = defaultdict(list)
        for item in items:
            self.add(item)

    def add(self, item: T) -> None:
        b, n = self._box(item), len(self._items)
        self._items.append(item)
        self._boxes.append(b)
        c = self._cell
        for cx in range(b.left // c, b.right // c + 1):
            for cy in range(b.top // c, b.bottom // c + 1):
                self._cells[(cx, cy)].append(n)

    def __iter__(self) -> Iterator[T]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def near(self, box: Box, margin: int = 0) -> list[T]:
        """The items whose boxes overlap ``box``, touch it, or come within ``margin`` px of it,
        in the order they were added."""
        c = self._cell
        left, top, right, bottom = box.left - margin, box.top - margin, box.right + margin, box.bottom + margin
        found: set[int] = set()
        for cx in range(left // c, right // c + 1):
            for cy in range(top // c, bottom // c + 1):
                found.update(self._cells.get((cx, cy), ()))
        out = []
        for n in sorted(found):
            b = self._boxes[n]
            if b.left <= right and b.right >= left and b.top <= bottom and b.bottom >= top:
                out.append(self._items[n])
        return out
