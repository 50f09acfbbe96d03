"""The trivial rung: a target given as a point or a box needs no search."""

from __future__ import annotations

from ..errors import TargetNotFound
from ..geometry import Box, Point
from ..screen.observation import Observation
from .candidate import Candidate


class PointGrounder:
    """Turns a :class:`Point` or :class:`Box` target (image pixels) into a certain candidate."""

    name = "point"

    def resolve(self, target: Point | Box, observation: Observation | None = None) -> Candidate:
        if isinstance(target, Point):
            box = Box(target.x, target.y, 1, 1)
        elif isinstance(target, Box):
            box = target
        else:
            raise TypeError(f"PointGrounder takes a Point or a Box, not {type(target).__name__}")
        if observation is not None:
            width, height = observation.size
            if not (0 <= box.center.x < width and 0 <= box.center.y < height):
                raise TargetNotFound(str(target), f"it lies outside the {width}x{height} screen")
        return Candidate(box, 1.0, self.name, None, "given as coordinates")
