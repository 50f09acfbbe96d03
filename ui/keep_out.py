"""Keep the agent off the app's own windows: paint them out of what it sees, refuse input there.

The app wraps whatever desktop the agent got in a :class:`KeepOutDesktop`. Every observation
has the app's windows (the status panel during a run) filled with a flat colour, so the
grounder can neither read nor target them, and the wrapped controller refuses any mouse
action whose point falls inside them (a point given as a literal target would otherwise
still land there). Rectangles are in screen coordinates, the ones the controller takes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from PIL import ImageDraw

from gui_agent import Box, Point, SafetyRefusal, check_point

if TYPE_CHECKING:
    from gui_agent import Controller, Desktop, Observation

log = logging.getLogger(__name__)

KEEP_OUT_FILL = (128, 128, 128)


def inside_any(point: Point, rects: Sequence[Box]) -> Box | None:
    """The first rectangle that contains ``point``, if any."""
    for rect in rects:
        if rect.left <= point.x < rect.right and rect.top <= point.y < rect.bottom:
            return rect
    return None


def paint_out(observation: Observation, rects: Sequence[Box]) -> Observation:
    """A copy of ``observation`` with each screen rectangle filled flat (the original if none
    of them overlaps the captured image)."""
    width, height = observation.image.size
    boxes = []
    for rect in rects:
        tl = observation.to_image(Point(rect.left, rect.top))
        br = observation.to_image(Point(rect.right, rect.bottom))
        left, top = max(0, tl.x), max(0, tl.y)
        right, bottom = min(width, br.x), min(height, br.y)
        if right > left and bottom > top:
            boxes.append((left, top, right - 1, bottom - 1))
    if not boxes:
        return observation
    image = observation.image.copy()
    draw = ImageDraw.Draw(image)
    for box in boxes:
        draw.rectangle(box, fill=KEEP_OUT_FILL)
    return replace(observation, image=image)


class GuardedController:
    """A controller that refuses mouse actions inside the keep-out rectangles."""

    def __init__(self, inner: Controller, rects: Sequence[Box]) -> None:
        self.inner = inner
        self.rects = tuple(rects)

    def _check(self, point: Point | None, what: str) -> None:
        if point is None:
            return
        where = check_point(point, what)
        rect = inside_any(where, self.rects)
        if rect is not None:
            raise SafetyRefusal(
                f"refused to {what} at ({where.x}, {where.y}): that is gui-agent's own "
                f"status panel ({rect.left},{rect.top} {rect.width}x{rect.height}); "
                "the agent never acts on its own windows")

    def launch(self, app: str) -> None:
        """Launching touches no point of the screen: nothing to keep out."""
        self.inner.launch(app)

    def click(self, point: Point, button: str = "left", clicks: int = 1) -> None:
        self._check(point, "click")
        self.inner.click(point, button=button, clicks=clicks)

    def move(self, point: Point) -> None:
        self._check(point, "move the mouse")
        self.inner.move(point)

    def drag(self, src: Point, dst: Point, duration: float = 0.3, button: str = "left") -> None:
        self._check(src, "drag from")
        self._check(dst, "drag to")
        self.inner.drag(src, dst, duration=duration, button=button)

    def scroll(self, direction: str, amount: int = 3, point: Point | None = None) -> None:
        self._check(point if point is not None else self.inner.position(), "scroll")
        self.inner.scroll(direction, amount, point)

    def type_text(self, text: str) -> None:
        self.inner.type_text(text)

    def press(self, key: str, presses: int = 1) -> None:
        self.inner.press(key, presses)

    def hotkey(self, *keys: str) -> None:
        self.inner.hotkey(*keys)

    def key_down(self, key: str) -> None:
        self.inner.key_down(key)

    def key_up(self, key: str) -> None:
        self.inner.key_up(key)

    def position(self) -> Point:
        return self.inner.position()


class KeepOutDesktop:
    """Wraps a desktop: observations painted out, input refused inside ``rects``;
    ``listener`` (if any) sees every observation the agent gets (the app's live view)."""

    def __init__(self, inner: Desktop, rects: Sequence[Box],
                 listener: Callable[[Observation], None] | None = None) -> None:
        self.inner = inner
        self.rects = tuple(rects)
        self.listener = listener
        self.controller = GuardedController(inner.controller, self.rects)

    def observe(self) -> Observation:
        observation = self.inner.observe()
        if self.rects:
            observation = paint_out(observation, self.rects)
        if self.listener is not None:
            try:
                self.listener(observation)
            except Exception:  # the live view must never break a run
                log.exception("the observation listener failed")
        return observation
