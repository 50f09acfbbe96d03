"""Gate for the README's "Speed and scale" figures (`gui-agent bench scale`).

Timings cannot be gated on a shared machine; what a figure says about the work can: the parser
reads the generated dense 3840x2160 page (10 px glyphs, no blank area to skip) nearly whole,
where shrinking the frame for detection read a seventh of it; and the bench's command runs and
writes its tables and plot (cheaply: one small screen, two small libraries).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.support.paths import REPO
from tests.support.requirements import require_module

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

# The README's figure: the parser reads 2,643 of the dense 4K page's 2,857 words (plain RapidOCR
# at full resolution: 1,948; the same in every run: detection and recognition are deterministic).
DENSE_4K_WORDS = 2643


def test_every_word_of_the_dense_4k_page_is_read() -> None:
    from gui_agent.bench.scale_frames import correct_words, frame
    from gui_agent.parsing.screen_parser import ScreenParser

    page = frame("dense", 3840, 2160)
    parsed = ScreenParser().parse(np.asarray(page.image))
    lines = [(e.text, e.box) for e in parsed.elements if e.text]
    found = correct_words(page.words, lines)
    assert len(page.words) == 2857 and found >= DENSE_4K_WORDS, (found, len(page.words))


def test_the_scale_bench_writes_its_tables_and_plot(tmp_path: Path) -> None:
    require_module("matplotlib", pip="pip install matplotlib (the bench extra)")
    done = subprocess.run(
        [sys.executable, "-m", "gui_agent.cli", "bench", "scale", "--parts", "parse,recall",
         "--sizes", "800x500", "--kinds", "app", "--repeats", "1", "--skills", "10,100",
         "--out", str(tmp_path), "--plot"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
        timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads((tmp_path / "scale.json").read_text(encoding="utf-8"))
    assert [r["size"] for r in report["parse"]] == ["800x500"]
    assert [r["skills"] for r in report["recall"]] == [10, 100]
    assert all(r["right"] == r["tasks"] for r in report["recall"])
    assert "cores" in report["machine"] and (tmp_path / "scale.png").stat().st_size > 10_000
    assert "| app | 800x500 |" in (tmp_path / "scale.md").read_text(encoding="utf-8")
