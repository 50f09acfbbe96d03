"""Regression tests for bugs found in the screen parser while driving the real app."""

from __future__ import annotations

import threading

from gui_agent.geometry import Box
from gui_agent.parsing.ocr import TextLine
from gui_agent.parsing.screen_parser import _grow_over_lines


def test_growing_over_a_text_line_at_the_screen_edge_terminates():
    # A text line touching the right edge: growing a region over it by a margin and clipping
    # back to the screen gives the same box; the old loop compared before clipping, forever.
    line = TextLine("Not signed in", Box(1200, 5, 80, 20), 0.99)
    result: list[Box] = []
    worker = threading.Thread(
        target=lambda: result.extend(_grow_over_lines([Box(1190, 0, 60, 30)], (line,), 1280, 800)),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=5)
    assert not worker.is_alive(), "_grow_over_lines did not terminate"
    assert len(result) == 1
    assert result[0].right == 1280 and result[0].contains(line.box.center)
