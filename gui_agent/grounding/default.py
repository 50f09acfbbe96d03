"""The grounding ladder gui-agent uses by default, sharing one screen parser (and its caches)."""

from __future__ import annotations

from typing import Any

from .a11y_grounder import AccessibilityGrounder
from .ladder import GroundingLadder
from .ocr_grounder import OcrGrounder


def default_ladder(parser: Any | None = None) -> tuple[GroundingLadder, Any]:
    """A ladder with today's rungs and the parser it uses: the accessibility tree alone (when
    the observation carries one), then the screen's one element list (pixels fused with the
    tree); a point target gets the element under it from that same list."""
    if parser is None:
        from ..parsing.screen_parser import ScreenParser

        parser = ScreenParser()
    screen = OcrGrounder(parser)
    return GroundingLadder([AccessibilityGrounder(), screen], parser=screen), parser
