"""A scored guess for where a target is."""

from __future__ import annotations

from dataclasses import dataclass

from ..geometry import Box, Point
from ..parsing.elements import Element


@dataclass(frozen=True)
class Candidate:
    box: Box                    # image pixels
    score: float                # 0..1, higher is better
    source: str                 # which grounder: "ocr", "template", "accessibility", "vlm", "point"
    element: Element | None = None
    why: str = ""
    # a browser's date or time input: it takes its value part by part, skipping separators, and
    # a space opens its picker over the page, so the value is typed without spaces
    segmented: bool = False

    @property
    def point(self) -> Point:
        """Where to act: the centre of the box (image pixels)."""
        return self.box.center

    def __str__(self) -> str:
        what = str(self.element) if self.element else f"box {self.box.corners}"
        return f"{what} (score {self.score:.2f}, {self.source})"


def visible_text(cand: Candidate | None) -> str | None:
    """The text shown on a resolved element (what the safety gate judges), if any."""
    if cand is None or cand.element is None:
        return None
    return cand.element.text or cand.element.label or None
