"""A controller that only records what it would do: tests, previews and --dry-run."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..geometry import Point
from .app_registry import AppFinder, check_app_name
from .base import (
    MouseButton,
    ScrollDirection,
    check_button,
    check_count,
    check_direction,
    check_duration,
    check_point,
    needs_clipboard,
)
from .keys import format_hotkey, normalize_key, parse_hotkey

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DryRunEntry:
    """One recorded call: the method name and its validated, normalised arguments."""

    method: str
    params: Mapping[str, Any]
    timestamp: float = field(default_factory=time.time, compare=False)

    def __str__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.method}({args})"


class DryRunController:
    """Validates and records every call exactly like the real controller would receive it.

    Inputs are checked and key names normalised the same way as in PyAutoGuiController,
    so a dry run catches a misspelt key or a bad button. Nothing on the screen changes and
    nothing is launched; ``position()`` follows the last point the mouse would have moved to.
    ``launch`` refuses a path like the real controller; given ``apps`` (the registry the real
    controller would use) it also resolves the name and records the command it would run.
    """

    def __init__(self, start: Point | None = None, platform: str | None = None,
                 apps: AppFinder | None = None) -> None:
        self.log: list[DryRunEntry] = []
        self.platform = platform or sys.platform
        self.apps = apps
        self._position = Point(0, 0) if start is None else check_point(start, "start")

    def _record(self, method: str, **params: Any) -> None:
        entry = DryRunEntry(method, params)
        self.log.append(entry)
        log.info("dry run: %s", entry)

    def calls(self, method: str) -> list[DryRunEntry]:
        return [e for e in self.log if e.method == method]

    def clear(self) -> None:
        self.log.clear()

    def click(self, point: Point, button: MouseButton = "left", clicks: int = 1) -> None:
        p = check_point(point)
        self._record("click", point=p, button=check_button(button),
                     clicks=check_count(clicks, "clicks"))
        self._position = p

    def move(self, point: Point) -> None:
        p = check_point(point)
        self._record("move", point=p)
        self._position = p

    def drag(self, src: Point, dst: Point, duration: float = 0.3,
             button: MouseButton = "left") -> None:
        s, d = check_point(src, "src"), check_point(dst, "dst")
        self._record("drag", src=s, dst=d, duration=check_duration(duration),
                     button=check_button(button))
        self._position = d

    def scroll(self, direction: ScrollDirection, amount: int = 3,
               point: Point | None = None) -> None:
        p = None if point is None else check_point(point)
        self._record("scroll", direction=check_direction(direction),
                     amount=check_count(amount, "amount"), point=p)
        if p is not None:
            self._position = p

    def type_text(self, text: str) -> None:
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        self._record("type_text", text=text, via_clipboard=needs_clipboard(text))

    def press(self, key: str, presses: int = 1) -> None:
        keys = parse_hotkey(key, self.platform)
        count = check_count(presses, "presses")
        if len(keys) > 1:
            for _ in range(count):
                self.hotkey(*keys)
            return
        self._record("press", key=keys[0], presses=count)

    def hotkey(self, *keys: str) -> None:
        names = parse_hotkey(keys, self.platform)
        log.debug("dry run hotkey %s", format_hotkey(names))
        self._record("hotkey", keys=names)

    def key_down(self, key: str) -> None:
        self._record("key_down", key=normalize_key(key, self.platform))

    def key_up(self, key: str) -> None:
        self._record("key_up", key=normalize_key(key, self.platform))

    def position(self) -> Point:
        return self._position

    def launch(self, app: str) -> None:
        name = check_app_name(app)
        if self.apps is None:
            self._record("launch", app=name)
            return
        entry = self.apps.find(name)
        self._record("launch", app=name, argv=entry.argv, source=entry.source)
