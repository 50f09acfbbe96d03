"""Gate for the README's batch figure: `gui-agent batch datasets/suites/playground.yaml
--headless --workers 2` passes all 19 tasks of the shipped suite (each on a fresh playground,
checked on the app's own state). The same command as the README's, run as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO

pytestmark = [pytest.mark.e2e("xvfb", "input", "qt"), pytest.mark.slow, pytest.mark.timeout(420)]

SUITE = REPO / "datasets" / "suites" / "playground.yaml"
QUOTED_TASKS = 19


def test_the_shipped_playground_suite_passes_every_task(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "gui_agent.cli", "batch", str(SUITE), "--headless", "--workers", "2",
         "--quiet", "--out", str(out)],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
        timeout=400)
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    failed = [f"{r['task']}: {r.get('agent_outcome')} {r.get('reason', '')}" for r in records
              if r["outcome"] != "passed"]
    assert done.returncode == 0, (failed, done.stdout[-2000:], done.stderr[-2000:])
    assert len(records) == QUOTED_TASKS and not failed, failed
    assert len({r["task"] for r in records}) == QUOTED_TASKS       # each task once
