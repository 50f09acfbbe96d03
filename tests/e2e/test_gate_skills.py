"""Gate for the README's "Skills from experience" figures (`gui-agent bench skills`).

The README measures four families; this gate runs two of them through the bench itself (its
``--families`` option): each family's 3 tasks from scratch with memory off, its 2 warm-up runs
with memory on, then the 3 tasks again with memory. Every task must succeed both ways (checked
on the playground's own state), every task with memory must run as a skill, and the planner +
grounding calls with memory must be at most the README's figure for that family.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

# family: (calls from scratch, calls with memory), as the README's table quotes them
QUOTED = {"sign in": (30, 9), "add an item": (30, 0), "rename in settings": (39, 9),
          "save a note": (39, 0)}
GATED = ("sign in", "add an item")


def test_the_quoted_families_are_the_benchs() -> None:
    from gui_agent.bench.skills import FAMILIES

    assert [f.name for f in FAMILIES] == list(QUOTED)
    assert all(len(f.measured) == 3 and len(f.warmup) == 2 for f in FAMILIES)


@pytest.mark.e2e("xvfb", "input", "qt")
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_two_families_learn_a_skill_and_save_the_quoted_calls(tmp_path: Path) -> None:
    from gui_agent.bench.skills import add_arguments, run_skills_bench

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--headless", "--families", ",".join(GATED), "--out", str(tmp_path)])
    status = run_skills_bench(args)
    rows = json.loads((tmp_path / "skills-bench.json").read_text(encoding="utf-8"))
    failed = [f"{r['mode']} {r['task']!r}: {r['reason']}" for r in rows if not r["ok"]]
    assert status == 0 and not failed, failed
    for family in GATED:
        scratch = [r for r in rows if r["family"] == family and r["mode"] == "scratch"]
        memory = [r for r in rows if r["family"] == family and r["mode"] == "memory"]
        assert len(scratch) == len(memory) == 3, family
        calls = {mode: sum(r["planner_calls"] + r["grounding_calls"] for r in runs)
                 for mode, runs in (("scratch", scratch), ("memory", memory))}
        assert [r["skill"] for r in memory if r["skill"] is None] == [], (family, memory)
        assert all(r["skill"] is None for r in scratch), family
        assert calls["memory"] <= QUOTED[family][1], (family, calls)
        assert calls["memory"] < calls["scratch"], (family, calls)
