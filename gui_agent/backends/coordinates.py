"""How a screenshot was shown to a model, and how the model's coordinates map back to it.

A model never sees the :class:`~gui_agent.screen.observation.Observation` image itself: a
Qwen2-VL-family processor resizes it to multiples of 28 within a pixel budget
(:func:`~gui_agent.backends.images.smart_resize`), and each family answers in its own
convention. :class:`ImageFrame` records both, so a coordinate from any model becomes an
*observation image pixel*; ``Observation.to_screen`` then gives the pyautogui point.

Conventions:

- ``absolute-resized``: pixels of the resized image the model saw (UI-TARS-1.5, Qwen2.5-VL).
- ``relative-1000``: 0-1000 on each axis (UI-TARS-1.0, UGround-V1, OS-Atlas).
- ``relative-1``: 0-1 floats (ShowUI).
- ``absolute``: pixels of the original observation image (our canonical action text).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import ConfigError, PlanningError
from ..geometry import Box, Point
from .images import DEFAULT_MAX_PIXELS, DEFAULT_MIN_PIXELS, FACTOR, ImageBudget, smart_resize

if TYPE_CHECKING:
    from ..screen.observation import Observation

CONVENTIONS = ("absolute-resized", "relative-1000", "relative-1", "absolute")
# How far past its range a model coordinate may stray (a fraction of the range) before the
# reply is refused instead of clamped: models overshoot the edge by a little, not by a lot.
RANGE_TOLERANCE = 0.05


class ModelReplyError(PlanningError):
    """A model's reply could not be read as actions; the message names what was wrong."""


def require_frame(frame: ImageFrame | None) -> ImageFrame:
    """The frame, or a ModelReplyError when a reply gives coordinates for no screenshot."""
    if frame is None:
        raise ModelReplyError(
            "the reply gives screen coordinates, but no screenshot was shown to the model; "
            "name the element instead"
        )
    return frame


def round_half_away(value: float) -> int:
    """Round to the nearest integer, halves away from zero (Python's round() goes to even)."""
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


@dataclass(frozen=True)
class ImageFrame:
    """The observation image size, the size the model saw, and the model's convention."""

    image_width: int
    image_height: int
    model_width: int
    model_height: int
    convention: str = "absolute-resized"

    def __post_init__(self) -> None:
        sizes = (self.image_width, self.image_height, self.model_width, self.model_height)
        if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in sizes):
            raise ConfigError(
                "image frame sizes must be positive whole pixel counts, got "
                f"image {self.image_width}x{self.image_height}, "
                f"model {self.model_width}x{self.model_height}"
            )
        if self.convention not in CONVENTIONS:
            raise ConfigError(
                f"unknown coordinate convention {self.convention!r}; use one of {', '.join(CONVENTIONS)}"
            )

    # ---- construction -------------------------------------------------------------
    @classmethod
    def resized(
        cls,
        image_width: int,
        image_height: int,
        convention: str = "absolute-resized",
        *,
        factor: int = FACTOR,
        min_pixels: int = DEFAULT_MIN_PIXELS,
        max_pixels: int = DEFAULT_MAX_PIXELS,
    ) -> ImageFrame:
        """The frame of an image sent through Qwen2-VL's ``smart_resize`` with this budget."""
        h, w = smart_resize(image_height, image_width, factor, min_pixels, max_pixels)
        return cls(image_width, image_height, w, h, convention)

    @classmethod
    def for_budget(
        cls, image_width: int, image_height: int, budget: ImageBudget, convention: str
    ) -> ImageFrame:
        """The frame of an image a backend resized with ``budget`` before sending it."""
        w, h = budget.resized_size(image_width, image_height)
        return cls(image_width, image_height, w, h, convention)

    @classmethod
    def unscaled(cls, image_width: int, image_height: int, convention: str = "absolute") -> ImageFrame:
        """The model saw the observation image as it is."""
        return cls(image_width, image_height, image_width, image_height, convention)

    @classmethod
    def for_observation(
        cls, observation: Observation, convention: str, budget: ImageBudget | None = None
    ) -> ImageFrame:
        """The frame of an observation's image, resized with ``budget`` when one is given."""
        w, h = observation.size
        if budget is None:
            return cls.unscaled(w, h, convention)
        return cls.for_budget(w, h, budget, convention)

    # ---- the model's coordinate range ----------------------------------------------
    @property
    def model_range(self) -> tuple[float, float]:
        """(x, y) extent of the model's coordinates: a value of this size is the far edge."""
        if self.convention == "absolute-resized":
            return float(self.model_width), float(self.model_height)
        if self.convention == "relative-1000":
            return 1000.0, 1000.0
        if self.convention == "relative-1":
            return 1.0, 1.0
        return float(self.image_width), float(self.image_height)

    @property
    def image_per_unit(self) -> tuple[float, float]:
        """Observation image pixels per model unit on each axis."""
        rx, ry = self.model_range
        return self.image_width / rx, self.image_height / ry

    def describe_range(self) -> str:
        rx, ry = self.model_range
        if self.convention == "relative-1":
            return "0-1 relative coordinates"
        if self.convention == "relative-1000":
            return "0-1000 relative coordinates"
        return f"pixel coordinates within {rx:g}x{ry:g}"

    def check(self, x: float, y: float) -> None:
        """Refuse a coordinate that is not a finite number or lies well outside the range."""
        for value in (x, y):
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise ModelReplyError(f"coordinate ({x}, {y}) is not a pair of finite numbers")
        rx, ry = self.model_range
        if not (
            -RANGE_TOLERANCE * rx <= x <= (1 + RANGE_TOLERANCE) * rx
            and -RANGE_TOLERANCE * ry <= y <= (1 + RANGE_TOLERANCE) * ry
        ):
            raise ModelReplyError(
                f"coordinate ({x:g}, {y:g}) is outside the image: expected {self.describe_range()}"
            )

    # ---- model -> observation image ------------------------------------------------
    def to_image_float(self, x: float, y: float) -> tuple[float, float]:
        """The exact (unrounded, unclamped) observation image position of a model coordinate."""
        sx, sy = self.image_per_unit
        return x * sx, y * sy

    def to_image(self, x: float, y: float, *, strict: bool = False) -> Point:
        """A model coordinate -> the observation image pixel, rounded and kept inside the image.

        With ``strict`` a coordinate well outside the model's range raises
        :class:`ModelReplyError` instead of being clamped to the edge.
        """
        if strict:
            self.check(x, y)
        elif not (math.isfinite(x) and math.isfinite(y)):
            raise ModelReplyError(f"coordinate ({x}, {y}) is not a pair of finite numbers")
        fx, fy = self.to_image_float(x, y)
        return Point(
            min(max(round_half_away(fx), 0), self.image_width - 1),
            min(max(round_half_away(fy), 0), self.image_height - 1),
        )

    def box_to_image(self, x1: float, y1: float, x2: float, y2: float, *, strict: bool = False) -> Box:
        """A model box (two corners, any order) -> an observation image Box inside the image."""
        if strict:
            self.check(x1, y1)
            self.check(x2, y2)
        elif not all(math.isfinite(v) for v in (x1, y1, x2, y2)):
            raise ModelReplyError(f"box ({x1}, {y1}, {x2}, {y2}) is not four finite numbers")
        ax, ay = self.to_image_float(min(x1, x2), min(y1, y2))
        bx, by = self.to_image_float(max(x1, x2), max(y1, y2))
        left = min(max(round_half_away(ax), 0), self.image_width - 1)
        top = min(max(round_half_away(ay), 0), self.image_height - 1)
        right = min(max(round_half_away(bx), left + 1), self.image_width)
        bottom = min(max(round_half_away(by), top + 1), self.image_height)
        return Box(left, top, right - left, bottom - top)

    def center_to_image(self, x1: float, y1: float, x2: float, y2: float, *, strict: bool = False) -> Point:
        """The centre of a model box as an observation image pixel (computed before rounding)."""
        if strict:
            self.check(x1, y1)
            self.check(x2, y2)
        return self.to_image((x1 + x2) / 2, (y1 + y2) / 2)

    # ---- observation image -> model (prompts that show a point) -----------------------
    def from_image(self, x: float, y: float, *, exact: bool = False) -> tuple[float, float]:
        """An observation image position -> the model's coordinate.

        By default rounded the way the model writes numbers: whole numbers for pixel and
        0-1000 conventions, four decimals for 0-1. ``exact`` returns the unrounded floats.
        """
        sx, sy = self.image_per_unit
        mx, my = x / sx, y / sy
        if exact:
            return mx, my
        if self.convention == "relative-1":
            return round(mx, 4), round(my, 4)
        return float(round_half_away(mx)), float(round_half_away(my))

    def box_from_image(self, box: Box, *, exact: bool = False) -> tuple[float, float, float, float]:
        """An observation image Box -> (x1, y1, x2, y2) in the model's coordinates."""
        x1, y1 = self.from_image(box.left, box.top, exact=exact)
        x2, y2 = self.from_image(box.right, box.bottom, exact=exact)
        return x1, y1, x2, y2
