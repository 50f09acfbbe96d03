"""One exception hierarchy; every message is meant to be read and acted on by a user."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class GuiAgentError(Exception):
    """Base of every error gui-agent raises on purpose."""


class ConfigError(GuiAgentError):
    """A setting, file or command-line value is invalid."""


class ActionParseError(GuiAgentError):
    """Text could not be read as an action of the action space."""


class DisplayError(GuiAgentError):
    """No usable display: none is set, it cannot be opened, or a virtual one failed to start."""


class CaptureError(GuiAgentError):
    """A screenshot could not be taken or read."""


class ControlError(GuiAgentError):
    """The mouse or keyboard could not be driven."""


class GroundingError(GuiAgentError):
    """A target description could not be turned into one point on the screen."""


NOT_FOUND = "could not find"   # how a TargetNotFound's message starts (a step's note)
NO_EFFECT = "no effect after"  # how a step's note starts when its required effect was not seen
AMBIGUOUS = "is ambiguous"     # what an AmbiguousTarget's message says


class TargetNotFound(GroundingError):
    """Nothing on the screen matches the description."""

    def __init__(self, description: str, detail: str = "") -> None:
        self.description = description
        msg = f"{NOT_FOUND} {description!r} on the screen"
        super().__init__(f"{msg}: {detail}" if detail else msg)


class AmbiguousTarget(GroundingError):
    """Two or more candidates match the description equally well; we never guess."""

    def __init__(self, description: str, candidates: Sequence[Any]) -> None:
        self.description = description
        self.candidates = list(candidates)
        names = "; ".join(str(c) for c in self.candidates[:4])
        super().__init__(
            f"{description!r} {AMBIGUOUS}: {len(self.candidates)} equally good matches ({names}). "
            "Describe it more precisely, e.g. with an ordinal ('the 2nd ...') or a relation "
            "('... next to <label>')."
        )


class PlanningError(GuiAgentError):
    """The task could not be turned into actions (unparseable instruction or model reply)."""


class SafetyRefusal(GuiAgentError):
    """The safety policy refused an action; the run ends with this reason."""


class StepLimitReached(GuiAgentError):
    """The run used all its steps or all its time."""


class MemoryStoreError(GuiAgentError):
    """The experience memory database is unusable (corrupt, foreign, or locked)."""


class BackendError(GuiAgentError):
    """A model could not be loaded or did not answer (missing weights, no server, out of memory)."""


class DeadlineExceeded(StepLimitReached):
    """The run's time limit (``--max-seconds``) ran out, during a model call or between steps."""
