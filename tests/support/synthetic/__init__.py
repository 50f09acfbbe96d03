"""Synthetic UI screens with ground truth, for grounding and parsing tests."""

from __future__ import annotations

from dataclasses import dataclass, field

from PIL import Image

from gui_agent.geometry import Box
from gui_agent.parsing.elements import Element, ElementKind, ScreenParse

HIT, AMBIGUOUS, ABSENT = "hit", "ambiguous", "absent"


@dataclass(frozen=True)
class TruthElement:
    """An element as drawn; ``box`` is what a parser should report (a check box's indicator)."""

    kind: ElementKind
    box: Box
    text: str = ""
    label: str = ""
    checked: bool | None = None


@dataclass(frozen=True)
class GroundingCase:
    description: str
    box: Box | None          # where a correct click lands (None unless expected == "hit")
    expected: str = HIT      # "hit", "ambiguous" or "absent"


@dataclass
class SyntheticScreen:
    name: str
    image: Image.Image
    elements: list[TruthElement] = field(default_factory=list)
    cases: list[GroundingCase] = field(default_factory=list)

    def truth_parse(self) -> ScreenParse:
        """The parse a perfect parser would return (text runs, widgets with their labels)."""
        ordered = sorted(self.elements, key=lambda e: (e.box.top + e.box.height // 2, e.box.left))
        elements = tuple(Element(e.kind, e.box, e.text, 1.0, "truth", e.checked, e.label)
                         for e in ordered)
        return ScreenParse(elements, *self.image.size)


def union(a: Box, b: Box) -> Box:
    left, top = min(a.left, b.left), min(a.top, b.top)
    return Box(left, top, max(a.right, b.right) - left, max(a.bottom, b.bottom) - top)
