"""`gui-agent bench latency`: its arguments and how steps become the table's medians."""

from __future__ import annotations

import pytest

from gui_agent.bench.latency import _medians, _sizes
from gui_agent.errors import ConfigError


def test_sizes_are_read_and_bad_ones_named():
    assert _sizes("1280x800,1920X1080") == [(1280, 800), (1920, 1080)]
    with pytest.raises(ConfigError, match="--sizes"):
        _sizes("1280by800")


def test_a_step_is_the_median_of_the_sums_of_its_stages_not_the_sum_of_medians():
    steps = [{"capture": 0.01, "parse": 0.30, "plan": 0.0, "ground": 0.01, "act": 0.01, "settle": 0.2},
             {"capture": 0.01, "parse": 0.01, "plan": 0.0, "ground": 0.30, "act": 0.01, "settle": 0.1},
             {"capture": 0.01, "parse": 0.02, "plan": 0.0, "ground": 0.02, "act": 0.01}]
    m = _medians(steps)
    assert m["parse"] == 0.02 and m["ground"] == 0.02 and m["n"] == 3
    assert m["step"] == pytest.approx(0.33)          # the middle one of 0.33, 0.33, 0.06
    assert m["settle"] == 0.1                       # a step without it counts as 0
