"""An accessibility source: the platform's tree of the visible windows as typed elements.

Every platform's source has the same small contract (:class:`AccessibilitySource`): given the
monitor an observation shows and its pixels, the elements of the windows on it, in that
image's pixels, with their windows (bottom to top) — or None when there is no tree (no bus, no
toolkit bridge, turned off). Linux reads AT-SPI (:mod:`.atspi`); Windows UI Automation and
macOS AX are to come behind the same contract.

A :class:`TreeView` is what an :class:`~gui_agent.screen.observation.Observation` carries: the
tree of its moment, read only when a step first asks (most frames, those taken while the screen
settles, never do), then kept.
"""

from __future__ import annotations

import time
from typing import Protocol

from PIL import Image

from ..parsing.elements import ScreenParse
from ..screen.observation import MonitorGeometry


class AccessibilitySource(Protocol):
    """The platform's accessibility tree, read within a time budget."""

    name: str

    def available(self) -> bool:
        """Whether there is a tree to read here (found out once; said once in the log when
        not: no bus, no library)."""
        ...

    def read(self, monitor: MonitorGeometry, image: Image.Image) -> ScreenParse | None:
        """The elements and windows shown on ``monitor`` (in ``image``'s pixels), or None when
        there is no tree to read."""
        ...


class TreeView:
    """The tree at one observation, read on first use; ``seconds`` is what the read took."""

    def __init__(self, source: AccessibilitySource, monitor: MonitorGeometry,
                 image: Image.Image) -> None:
        self._source = source
        self._monitor = monitor
        self._image = image
        self._read = False
        self._tree: ScreenParse | None = None
        self.seconds = 0.0

    def read(self) -> ScreenParse | None:
        if not self._read:
            start = time.perf_counter()
            self._tree = self._source.read(self._monitor, self._image)
            self.seconds = time.perf_counter() - start
            self._read = True
        return self._tree
