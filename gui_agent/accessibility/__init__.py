"""The platform's accessibility tree as elements: role, name, states, value, label, screen box,
window. Linux reads AT-SPI (:mod:`.atspi`); Windows (UI Automation) and macOS (AX) will sit
behind the same :class:`~.source.AccessibilitySource` contract. Absent without fuss: where the
bus or a toolkit's bridge is off, a step works from pixels alone."""

from __future__ import annotations

import logging
import sys

from .source import AccessibilitySource, TreeView

__all__ = ["AccessibilitySource", "TreeView", "platform_source"]

log = logging.getLogger(__name__)


def platform_source(budget: float | None = None) -> AccessibilitySource | None:
    """This platform's accessibility source (None where gui-agent has none yet: it says so)."""
    if sys.platform.startswith("linux"):
        from .atspi import DEFAULT_BUDGET_S, AtspiSource

        return AtspiSource(budget if budget is not None else DEFAULT_BUDGET_S)
    log.info("no accessibility source for %s yet (UI Automation and AX are planned): using "
             "pixels alone", sys.platform)
    return None
