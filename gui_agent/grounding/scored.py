"""A candidate element as the OCR rung scores it: the element, the box to act on, the score and
the reasons for it (shared by the rung's matching, relations and ordinals)."""

from __future__ import annotations

from dataclasses import dataclass

from ..geometry import Box
from ..parsing.elements import Element


@dataclass(frozen=True)
class Scored:
    element: Element
    box: Box
    score: float
    why: str
    via: Element | None = None     # the label text that named this widget
    segmented: bool = False        # a date or time input, typed part by part (see Candidate)
