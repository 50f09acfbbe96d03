"""The controller contract: real mouse and keyboard, or a dry run, behind one small interface.

Every point a controller takes or returns is in *screen* coordinates, the ones
pyautogui expects (logical points on macOS, physical pixels on X11 and on DPI-aware
Windows). Map image pixels with ``Observation.to_screen`` before calling.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import Literal, Protocol, runtime_checkable

from ..errors import ControlError, SafetyRefusal
from ..geometry import Point

MouseButton = Literal["left", "middle", "right"]
ScrollDirection = Literal["up", "down", "left", "right"]

BUTTONS: tuple[str, ...] = ("left", "middle", "right")
DIRECTIONS: tuple[str, ...] = ("up", "down", "left", "right")

# What pyautogui.write types key by key; anything else goes through the clipboard.
TYPEABLE = frozenset(string.ascii_letters + string.digits + string.punctuation + " \t\n")


class FailSafeTriggered(ControlError, SafetyRefusal):
    """The person pushed the mouse into a screen corner: pyautogui's fail-safe stopped the run.

    It is both a ControlError (input could not be performed) and a SafetyRefusal (the
    run must end now, not retry), so either handler stops the agent.
    """

    def __init__(self, detail: str = "") -> None:
        msg = ("stopped by the fail-safe: the mouse is in a corner of the screen. "
               "Move it away from the corners to let the agent continue")
        super().__init__(f"{msg} ({detail})" if detail else msg)


@runtime_checkable
class Controller(Protocol):
    """Performs input and launches applications: every side effect of an action goes
    through it. Implementations: PyAutoGuiController (real), DryRunController (records)."""

    def click(self, point: Point, button: MouseButton = "left", clicks: int = 1) -> None: ...

    def move(self, point: Point) -> None: ...

    def drag(self, src: Point, dst: Point, duration: float = 0.3,
             button: MouseButton = "left") -> None: ...

    def scroll(self, direction: ScrollDirection, amount: int = 3,
               point: Point | None = None) -> None: ...

    def type_text(self, text: str) -> None: ...

    def press(self, key: str, presses: int = 1) -> None: ...

    def hotkey(self, *keys: str) -> None: ...

    def key_down(self, key: str) -> None: ...

    def key_up(self, key: str) -> None: ...

    def position(self) -> Point: ...

    def launch(self, app: str) -> None:
        """Start the application ``app`` names in the application registry (never a path);
        ``AppRefused`` (a ControlError) says why when the registry has no such application."""
        ...


def check_point(point: Point | tuple[int, int], what: str = "point") -> Point:
    """A Point (or an (x, y) pair of numbers) -> Point with int coordinates."""
    if isinstance(point, Point):
        x, y = point.x, point.y
    elif isinstance(point, tuple | list) and len(point) == 2:
        x, y = point
    else:
        raise ControlError(f"{what} must be a Point or an (x, y) pair, got {point!r}")
    if isinstance(x, bool) or isinstance(y, bool) or not all(
            isinstance(v, int | float) for v in (x, y)):
        raise ControlError(f"{what} coordinates must be numbers, got {point!r}")
    return Point(round(x), round(y))


def check_button(button: str) -> MouseButton:
    if button not in BUTTONS:
        raise ControlError(f"unknown mouse button {button!r}; use one of {', '.join(BUTTONS)}")
    return button  # type: ignore[return-value]


def check_direction(direction: str) -> ScrollDirection:
    d = direction.strip().lower() if isinstance(direction, str) else direction
    if d not in DIRECTIONS:
        raise ControlError(
            f"unknown scroll direction {direction!r}; use one of {', '.join(DIRECTIONS)}")
    return d  # type: ignore[return-value]


def check_count(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ControlError(f"{what} must be a positive whole number, got {value!r}")
    return value


def check_duration(value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ControlError(f"duration must be a number of seconds >= 0, got {value!r}")
    return float(value)


def needs_clipboard(text: str, can_type: Callable[[str], bool] | None = None) -> bool:
    """True when some character cannot be typed key by key (non-ASCII, control characters).

    ``can_type`` narrows it further to what the platform's key map really has.
    """
    return any(ch not in TYPEABLE or (can_type is not None and not can_type(ch)) for ch in text)
