"""`gui-agent bench vlm`: bad arguments are clear errors (the run on the tiny checkpoint:
tests/e2e/test_bench_vlm_e2e.py)."""

from __future__ import annotations

import pytest

from gui_agent.bench.vlm import parse_sizes
from gui_agent.cli import main
from gui_agent.errors import ConfigError


def test_bad_bench_arguments():
    with pytest.raises(ConfigError, match="--sizes"):
        parse_sizes("1280by800")
    assert main(["bench", "vlm", "--model", "/nowhere/model"]) == 2
