"""What lets a skill find its target again: an image crop of the element and nearby text.

Taken from the clean screenshot at the moment the agent acted (the run's saved screenshots have
the click marker drawn on them, so crops are never cut from those).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from ..geometry import Box
from ..grounding.template import ANCHOR_MARGIN, crop_around
from ..parsing.elements import Element, ElementKind

__all__ = ["ANCHOR_MARGIN", "crop_around", "fixed_texts", "folded_text", "landmarks_for"]

LANDMARK_RADIUS = 300      # only text this close (centre to centre) is a landmark


def fixed_texts(elements: Iterable[Element]) -> list[Element]:
    """Elements whose text a replay can expect again where it was: not a field's or a drop-down's
    value (it changes, and it sits at the left of a box whose centre is elsewhere), not dots,
    not a text shown more than once (three "Edit" buttons locate nothing)."""
    elements = list(elements)
    counts = Counter(folded_text(e.text or "") for e in elements)
    return [e for e in elements
            if e.kind not in (ElementKind.TEXT_FIELD, ElementKind.COMBO)
            and any(c.isalnum() for c in e.text or "") and counts[folded_text(e.text or "")] == 1]


def folded_text(text: str) -> str:
    """A text compared regardless of letter case and spacing."""
    return " ".join(text.casefold().split())


def landmarks_for(elements: Iterable[Element], box: Box, k: int = 3) -> tuple[tuple[str, int, int], ...]:
    """Up to ``k`` texts near the element: (text, dx, dy) from the text's centre to the element's.

    ``elements``: the candidates, normally :func:`fixed_texts` of the screen."""
    cx, cy = box.center.x, box.center.y
    near: list[tuple[float, str, int, int]] = []
    for el in elements:
        text = (el.text or "").strip()
        if not text or len(text) > 40:
            continue
        ex, ey = el.box.center.x, el.box.center.y
        if el.box.corners == box.corners:
            continue
        dist = math.hypot(cx - ex, cy - ey)
        if dist <= LANDMARK_RADIUS:
            near.append((dist, text, cx - ex, cy - ey))
    near.sort(key=lambda n: n[0])
    seen: set[str] = set()
    out: list[tuple[str, int, int]] = []
    for _, text, dx, dy in near:
        if text in seen:
            continue
        seen.add(text)
        out.append((text, int(dx), int(dy)))
        if len(out) == k:
            break
    return tuple(out)
