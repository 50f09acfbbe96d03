"""The grounding ladder gui-agent uses by default, sharing one screen parser (and its caches)."""

from __future__ import annotations

from typing import Any

from .ladder import GroundingLadder
from .ocr_grounder import OcrGrounder


def default_ladder(parser: Any | None = None) -> tuple[GroundingLadder, Any]:
    """A ladder with today's rungs (OCR + widget parse) and the parser it uses."""
    if parser is None:
        from ..parsing.screen_parser import ScreenParser

        parser = ScreenParser()
    return GroundingLadder([OcrGrounder(parser)], parser=parser), parser
