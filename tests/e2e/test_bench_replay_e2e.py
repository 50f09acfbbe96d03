"""`gui-agent bench replay` end to end (Xvfb, real input): one short demonstration recorded with
real input and replayed on a moved window (completes) and with its button renamed (stops, no
wrong click)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gui_agent.bench.replay_bench import perturbation_named
from gui_agent.bench.replay_cases import Demo, click, type_
from gui_agent.bench.replay_judge import format_table
from tests.support.requirements import require_tool

ADD_KIWIS = Demo("add-kiwis", (click("Items", "tab"), click("New item", "field"), type_("Kiwis"),
                               click("Add", "button")),
                 lambda s: s["items"]["list"][-1:] == ["Kiwis"], "Kiwis added")


@pytest.mark.e2e("xvfb", "input", "qt")
@pytest.mark.timeout(240)  # a hang ends here; how fast the bench is, is the bench's to report
def test_a_recorded_demo_replays_moved_and_stops_renamed(xvfb, tmp_path: Path, monkeypatch) -> None:
    require_tool("xdotool", apt="xdotool")
    from gui_agent.bench.replay_bench import ReplayBench

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "xdg"))
    bench = ReplayBench(tmp_path / "bench")
    prepared = bench.prepare(ADD_KIWIS)
    assert [s.action for s in prepared.skill.steps] == [
        "click('\"Items\"')", "type('{new_item}', into='the New item field')", "click('\"Add\"')"]
    assert [t.text if t else None for t in prepared.step_truths] == ["Items", "New item", "Add"]

    moved = bench.replay_ours(prepared, perturbation_named("moved"))
    assert moved.completed and moved.resolved == 3 and moved.wrong_clicks == 0, moved.reason
    assert [c.ok for c in moved.clicks] == [True, True, True]
    naive = bench.replay_baseline(prepared, perturbation_named("moved"))
    assert not naive.completed and naive.wrong_clicks >= 2          # the recorded points miss the moved window

    renamed = bench.replay_ours(prepared, perturbation_named("renamed"))   # "Add" now reads "Append"
    assert not renamed.replay_ok and renamed.stopped_at == 3 == renamed.expected_stop, renamed.reason
    assert renamed.wrong_clicks == 0 and renamed.stopped_cleanly and len(renamed.clicks) == 2
    assert "was not found" in renamed.reason or "reads" in renamed.reason
    naive = bench.replay_baseline(prepared, perturbation_named("renamed"))
    assert naive.wrong_clicks == 1 and naive.clicks[-1].hit == "button 'Append'" and not naive.stopped_cleanly
    table = format_table([moved, renamed], [("moved", True), ("renamed", False)])
    assert "1/1 completed" in table and "1/1 stopped" in table
