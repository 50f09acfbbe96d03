"""The point rung: a target given as a point or a box needs no search, but it is still grounded
to the element under it, so that what a coordinate click will touch is known (the safety policy
judges a click at (156, 156) on a "Delete all" button exactly as a click on "Delete all")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from ..errors import TargetNotFound
from ..geometry import Box, Point
from ..parsing.elements import Element, ElementKind, ScreenParse
from ..screen.observation import Observation
from .candidate import Candidate

# A point this close to an element (a model's click just past a button's edge) is on it.
NEAR_PX = 6
_PLAIN = (ElementKind.TEXT,)


class ScreenElements(Protocol):
    """The screen's elements, as far as grounding a point needs them: the screen parser, or the
    OCR rung (the pixels fused with the observation's accessibility tree)."""

    def parse(self, image: object) -> ScreenParse: ...


def element_under(point: Point, elements: Sequence[Element]) -> Element | None:
    """The element a click at ``point`` lands on: the smallest control holding it (a text only
    when no control does), else the nearest within NEAR_PX. A control without a caption takes
    the text written inside it."""
    holding = [e for e in elements if e.box.contains(point)]
    if not holding:
        near = [(e.box.distance(Box(point.x, point.y, 1, 1)), e) for e in elements]
        near = [(d, e) for d, e in near if d <= NEAR_PX]
        holding = [min(near, key=lambda de: de[0])[1]] if near else []
    if not holding:
        return None
    controls = [e for e in holding if e.kind not in _PLAIN] or holding
    chosen = min(controls, key=lambda e: e.box.width * e.box.height)
    if chosen.text or chosen.label:
        return chosen
    inside = [e.text for e in elements if e is not chosen and e.text and chosen.box.contains(e.box.center)]
    return replace(chosen, text=" ".join(inside)) if inside else chosen


class PointGrounder:
    """Turns a :class:`Point` or :class:`Box` target (image pixels) into a certain candidate,
    with the element under it when a screen parser is given."""

    name = "point"

    def __init__(self, parser: ScreenElements | None = None) -> None:
        self.parser = parser

    def resolve(self, target: Point | Box, observation: Observation | None = None) -> Candidate:
        if isinstance(target, Point):
            box = Box(target.x, target.y, 1, 1)
        elif isinstance(target, Box):
            box = target
        else:
            raise TypeError(f"PointGrounder takes a Point or a Box, not {type(target).__name__}")
        element = None
        if observation is not None:
            width, height = observation.size
            if not (0 <= box.center.x < width and 0 <= box.center.y < height):
                raise TargetNotFound(str(target), f"it lies outside the {width}x{height} screen")
            element = self.element_at(box.center, observation)
        why = "given as coordinates" + (f", on {element}" if element is not None else "")
        return Candidate(box, 1.0, self.name, element, why)

    def element_at(self, point: Point, observation: Observation) -> Element | None:
        if self.parser is None:
            return None
        return element_under(point, self.parser.parse(observation).elements)
