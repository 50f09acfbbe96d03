"""Gate for the README's "Replay under perturbations" figures (`gui-agent bench replay`).

The README replays six demonstrations under ten perturbations; this gate is its cheap version
through the bench's own functions: three of the demonstrations (a sign-in with a secret and a
list, the settings dialog with a drop-down, radios and check boxes, three identical "Edit"
buttons told apart by their row), recorded with real input, compiled and replayed by our replay
(not the naive baseline) under four perturbations. Where the target stays (moved window, dark
theme, fonts at 150 %) every replay completes with every step on its meant element; where a
button is renamed every replay stops at the renamed step. Zero wrong clicks everywhere.
Seconds per step are the bench's to report, not this gate's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.requirements import require_tool

pytestmark = [pytest.mark.e2e("xvfb", "input", "qt"), pytest.mark.slow, pytest.mark.timeout(420)]

DEMOS = ("login-and-add", "settings-dialog", "contacts-edit")
PERTURBATIONS = ("moved", "dark", "font150", "renamed")


def test_three_demos_replay_under_four_perturbations_without_a_wrong_click(
        tmp_path: Path, monkeypatch) -> None:
    require_tool("xdotool", apt="xdotool")
    from gui_agent.bench.replay_bench import RECORD_SCREEN, perturbation_named, run_bench
    from gui_agent.bench.replay_cases import demo_named
    from gui_agent.bench.replay_judge import format_table, verdict
    from gui_agent.display import ensure_display

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "xdg"))
    demos = [demo_named(n) for n in DEMOS]
    perts = [perturbation_named(n) for n in PERTURBATIONS]
    with ensure_display(True, size=RECORD_SCREEN):
        cases = run_bench(tmp_path / "bench", demos, perts, baseline=False, log=print)
    keeps = [(p.name, p.keeps_target) for p in perts]
    table = format_table(cases, keeps)
    assert sorted((c.demo, c.perturbation) for c in cases) == sorted(
        (d, p) for d in DEMOS for p in PERTURBATIONS), table
    assert all(c.method == "ours" for c in cases)
    assert verdict(cases, keeps, max_seconds=float("inf")) == [], table
    assert sum(c.wrong_clicks for c in cases) == 0, table
    for c in cases:
        if c.perturbation == "renamed":
            assert c.stopped_cleanly and c.expected_stop is not None, (c.demo, c.reason)
            assert c.stopped_at == c.expected_stop, (c.demo, c.stopped_at, c.expected_stop)
        else:
            assert c.completed and c.resolved == c.steps >= 10, (c.demo, c.perturbation, c.reason)
