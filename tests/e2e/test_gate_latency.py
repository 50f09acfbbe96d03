"""Gate for the README's step-latency table (`gui-agent bench latency`).

Timings cannot be gated, so this checks that the bench runs (cheaply: ``--repeats 1``) and
produces every row of the README's table with every stage measured: both screen sizes, the
three kinds of step, each with capture, parse, plan, ground, act, step and settle, from steps
that really ran. The same command as the README's, run as a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO

pytestmark = [pytest.mark.e2e("xvfb", "input", "qt"), pytest.mark.slow, pytest.mark.timeout(420)]

SIZES = ("1280x800", "1920x1080")                     # the README's rows, in its order
KINDS = ("new screen", "changing", "unchanged")
COLUMNS = ("capture", "parse", "plan", "ground", "act", "step", "settle")


def test_the_latency_bench_produces_every_row_and_stage(tmp_path: Path) -> None:
    from gui_agent.bench.latency import FIRST_VISIT_TASKS, STAGES

    assert STAGES + ("step", "settle") == COLUMNS
    figures = tmp_path / "latency.json"
    done = subprocess.run(
        [sys.executable, "-m", "gui_agent.cli", "bench", "latency", "--repeats", "1",
         "--sizes", ",".join(SIZES), "--json", str(figures)],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
        timeout=400)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    results = json.loads(figures.read_text(encoding="utf-8"))
    assert list(results) == list(SIZES)
    for size, kinds in results.items():
        assert list(kinds) == list(KINDS), size
        for kind, medians in kinds.items():
            assert set(medians) == {*COLUMNS, "n"}, (size, kind)
            assert all(isinstance(medians[c], float) and medians[c] >= 0 for c in COLUMNS)
            # stages that always do work took some time; the offline planner's may round to 0
            unmeasured = [c for c in ("capture", "parse", "ground", "act", "step") if medians[c] <= 0]
            assert unmeasured == [], (size, kind, medians)
        # every first visit's step 2 counted; the changing and unchanged steps ran
        assert kinds["new screen"]["n"] == len(FIRST_VISIT_TASKS), (size, kinds["new screen"])
        assert kinds["changing"]["n"] >= 6 and kinds["unchanged"]["n"] >= 2, (size, kinds)
    table = [line for line in done.stdout.splitlines() if any(k in line for k in KINDS)]
    assert len(table) == len(SIZES) * len(KINDS), done.stdout     # the printed table's rows
