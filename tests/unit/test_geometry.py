"""Boxes and the grid that finds the boxes near a box without looking at all of them."""

from __future__ import annotations

import random

import pytest

from gui_agent.geometry import Box, BoxGrid


def _near(a: Box, b: Box, margin: int) -> bool:
    return (a.left <= b.right + margin and a.right >= b.left - margin
            and a.top <= b.bottom + margin and a.bottom >= b.top - margin)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("cell", [8, 64, 500])
def test_the_grid_finds_exactly_the_boxes_a_scan_finds_in_their_order(seed, cell):
    rng = random.Random(seed)
    boxes = [Box(rng.randint(-50, 1900), rng.randint(-50, 1000), rng.randint(1, 400 if rng.random() < 0.1 else 40),
                 rng.randint(1, 300 if rng.random() < 0.1 else 30)) for _ in range(400)]
    grid = BoxGrid(boxes, cell=cell)
    assert len(grid) == 400 and list(grid) == boxes
    for _ in range(100):
        q = Box(rng.randint(-100, 1900), rng.randint(-100, 1000), rng.randint(1, 200), rng.randint(1, 200))
        margin = rng.choice([0, 1, 2, 30, 200])
        assert grid.near(q, margin) == [b for b in boxes if _near(b, q, margin)]


def test_boxes_that_only_touch_are_near_and_items_keep_their_identity():
    a, b = Box(0, 0, 10, 10), Box(10, 0, 10, 10)     # b starts where a ends
    far = Box(13, 0, 5, 5)
    grid = BoxGrid([("a", a), ("b", b), ("far", far)], lambda item: item[1])
    assert [n for n, _ in grid.near(a)] == ["a", "b"]
    assert [n for n, _ in grid.near(a, 3)] == ["a", "b", "far"]
    grid.add(("late", Box(5, 5, 1, 1)))
    assert [n for n, _ in grid.near(Box(0, 0, 1, 1), 5)] == ["a", "late"]
