"""What the agent sees at one moment, and how its pixels map to input coordinates."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PIL import Image

from ..geometry import Box, Point

if TYPE_CHECKING:
    from ..parsing.elements import ScreenParse


class TreeReading(Protocol):
    """The accessibility tree at the moment a frame was captured, read on first use (the frames
    taken while the screen settles never need it); ``seconds``: what reading it took."""

    seconds: float

    def read(self) -> ScreenParse | None:
        """The tree's elements and windows in this frame's image pixels; None: no tree."""
        ...


@dataclass(frozen=True)
class MonitorGeometry:
    """Where a captured monitor lies in the coordinates pyautogui expects.

    ``left``/``top``/``width``/``height`` are in *input* (logical) units; ``scale`` is
    image pixels per input unit (2.0 on a Retina screen where pyautogui works in points).
    """

    left: int = 0
    top: int = 0
    width: int = 0
    height: int = 0
    scale: float = 1.0
    index: int = 1


@dataclass(frozen=True)
class ActiveWindow:
    """The window with the keyboard focus, as the window manager tells it: title, X11 id, box
    in input coordinates, and whether it is a dialog (transient for another window, or typed
    a dialog by its application)."""

    title: str | None
    id: int = 0
    dialog: bool = False
    box: Box | None = None


@dataclass(frozen=True)
class Observation:
    image: Image.Image
    monitor: MonitorGeometry
    timestamp: float = field(default_factory=time.time)
    cursor: Point | None = None
    window: ActiveWindow | None = None
    # The accessibility tree of this moment (None: pixels only, e.g. --no-a11y, no bus).
    accessibility: TreeReading | None = field(default=None, compare=False, repr=False)

    @property
    def size(self) -> tuple[int, int]:
        return self.image.size

    @property
    def window_title(self) -> str | None:
        return self.window.title if self.window is not None else None

    def to_screen(self, p: Point) -> Point:
        """Image pixel -> input coordinates (what pyautogui.click takes)."""
        s = self.monitor.scale
        return Point(round(self.monitor.left + p.x / s), round(self.monitor.top + p.y / s))

    def to_image(self, p: Point) -> Point:
        """Input coordinates -> image pixel."""
        s = self.monitor.scale
        return Point(round((p.x - self.monitor.left) * s), round((p.y - self.monitor.top) * s))

    def box_to_screen(self, b: Box) -> Box:
        tl = self.to_screen(Point(b.left, b.top))
        br = self.to_screen(Point(b.right, b.bottom))
        return Box.from_corners(tl.x, tl.y, br.x, br.y)

    def box_to_image(self, b: Box) -> Box:
        """Input coordinates -> image pixels, for a box (a window's)."""
        tl = self.to_image(Point(b.left, b.top))
        br = self.to_image(Point(b.right, b.bottom))
        return Box.from_corners(tl.x, tl.y, br.x, br.y)

    @classmethod
    def from_image(cls, image: Image.Image, scale: float = 1.0) -> Observation:
        """An observation of a still image (a screenshot file, a synthetic screen)."""
        rgb = image.convert("RGB")
        w, h = rgb.size
        return cls(rgb, MonitorGeometry(0, 0, round(w / scale), round(h / scale), scale, 0))

    @classmethod
    def from_file(cls, path: str | Path, scale: float = 1.0) -> Observation:
        from ..errors import CaptureError

        try:
            with Image.open(path) as img:
                return cls.from_image(img, scale)
        except (OSError, ValueError) as exc:
            raise CaptureError(f"cannot read screenshot {path}: {exc}") from exc


def frame_digest(image: Image.Image) -> str:
    """A short fingerprint of a frame's exact pixels."""
    return hashlib.blake2b(image.tobytes(), digest_size=12).hexdigest()
