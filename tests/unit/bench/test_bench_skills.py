"""The skills benchmark's bookkeeping: counting proxies and the table it prints."""

from __future__ import annotations

import re

from gui_agent.bench.counting import CountingParser, counted_planner
from gui_agent.bench.skills import FAMILIES, CaseResult, format_table
from gui_agent.planner import offline_planner


def test_the_table_compares_each_family_and_the_whole() -> None:
    rows = [CaseResult("sign in", "t1", "scratch", True, 7, 3, 3, 2.0, None),
            CaseResult("sign in", "t1", "memory", True, 0, 0, 3, 0.5, "log in"),
            CaseResult("add", "t2", "scratch", True, 7, 2, 3, 3.0, None),
            CaseResult("add", "t2", "memory", False, 1, 1, 3, 1.0, None)]
    table = format_table(rows)
    assert "calls 10 -> 0 (none left), time 2.0 s -> 0.5 s (4.0x less)" in table
    assert "calls 9 -> 2 (4.5x less)" in table
    assert "planner+grounding calls 19 -> 2 (9.5x less); agent time 5.0 s -> 1.5 s (3.3x less)" in table
    assert "success 2/2 from scratch, 1/2 with memory" in table


def test_counting_proxies_count_and_forward() -> None:
    counter: dict[str, int] = {}
    planner = counted_planner(offline_planner(), counter)
    planner.manager.plan('click "OK"', None)
    planner.worker.state_reader = "set through the proxy"
    assert counter == {"planner": 1}
    assert planner.worker._inner.state_reader == "set through the proxy"

    class Parser:
        last_timings: dict = {}

        def parse(self, image):
            self.last_timings = {"cached": 1.0} if image == "seen" else {}
            return image

        def read_text(self, image, box):
            return "x"

    parser = CountingParser(Parser(), counter)
    parser.parse("new"), parser.parse("seen"), parser.read_text("img", None)
    assert counter["ocr"] == 2


def test_every_family_is_asked_in_more_than_one_phrasing_with_new_values() -> None:
    for family in FAMILIES:
        assert len({re.sub(r'"[^"]*"', '""', c.task) for c in family.measured}) >= 2, family.name
        warm = {c.task for c in family.warmup}
        assert not warm & {c.task for c in family.measured}
