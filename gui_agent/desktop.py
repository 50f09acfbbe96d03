"""The environment the agent talks to: ``observe()`` a screen, act through a ``controller``.

A live desktop captures a real monitor, with the accessibility tree of that moment when it has
a source (read only if a step asks: :class:`~gui_agent.accessibility.TreeView`); a still
desktop serves one screenshot file (for ``gui-agent run --dry-run --screenshot FILE``) and
never changes.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .accessibility import AccessibilitySource, TreeView
from .control.base import Controller
from .control.dry_run import DryRunController
from .screen.observation import Observation

if TYPE_CHECKING:
    from .screen.capture import ScreenCapture


class Desktop(Protocol):
    controller: Controller

    def observe(self) -> Observation: ...


class LiveDesktop:
    """The real screen (one monitor, or all with monitor=0) and a real or dry-run controller."""

    def __init__(self, controller: Controller, monitor: int = 1, capture: ScreenCapture | None = None,
                 tree: AccessibilitySource | None = None) -> None:
        from .screen.capture import ScreenCapture

        self.controller = controller
        self.monitor = monitor
        self.capture = capture or ScreenCapture()
        self.tree = tree

    def observe(self) -> Observation:
        obs = self.capture.capture(self.monitor)
        if self.tree is None or not self.tree.available():
            return obs
        return replace(obs, accessibility=TreeView(self.tree, obs.monitor, obs.image))


class StillDesktop:
    """A screenshot that stands in for the screen; actions are only recorded."""

    def __init__(self, observation: Observation) -> None:
        self.controller: Controller = DryRunController()
        self._observation = observation

    @classmethod
    def from_file(cls, path: str | Path, scale: float = 1.0) -> StillDesktop:
        return cls(Observation.from_file(path, scale))

    def observe(self) -> Observation:
        return self._observation
