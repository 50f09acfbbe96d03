"""`gui-agent bench vlm` on the tiny checkpoint with tiny settings (torch)."""

from __future__ import annotations

import json

from gui_agent.backends.images import ImageBudget
from gui_agent.backends.registry import get_family
from gui_agent.cli import main
from tests.support.vlm_fixtures import tiny_vlm_dir  # noqa: F401 - a fixture


def test_bench_vlm_reports_tokens_and_speeds(tiny_vlm_dir, tmp_path, capsys):  # noqa: F811
    out = tmp_path / "vlm.json"
    code = main(["bench", "vlm", "--model", str(tiny_vlm_dir), "--budgets", "64x28x28,128x28x28",
                 "--sizes", "1280x800,1920x1080", "--new-tokens", "4", "--repeats", "1",
                 "--json", str(out)])
    assert code == 0
    figures = json.loads(out.read_text(encoding="utf-8"))
    family = get_family("qwen2.5-vl")  # guessed from the folder name
    assert len(figures) == 4
    for f in figures:
        budget = ImageBudget(min(family.min_pixels, f["budget"]), f["budget"])
        assert f["image_tokens"] == budget.tokens(f["width"], f["height"]) <= f["budget"] // 784
        assert f["prompt_tokens"] > f["image_tokens"]
        assert f["prefill_tokens_s"] > 0 and f["decode_tokens_s"] > 0 and f["step_s"] > 0
    table = capsys.readouterr().out
    assert "prefill tok/s" in table and "1920x1080" in table
