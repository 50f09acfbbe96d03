"""Grounding accuracy on synthetic screens with ground truth (Pillow-drawn and real Qt widgets).

Each screen is parsed once (the real ScreenParser when present, else the generator's truth
parse) and then many descriptions are resolved against it through the ladder.
"""

from __future__ import annotations

import importlib.util
import logging

import pytest

from gui_agent.errors import AmbiguousTarget, TargetNotFound
from gui_agent.grounding.ladder import GroundingLadder
from gui_agent.grounding.ocr_grounder import OcrGrounder
from gui_agent.screen.observation import Observation
from tests.synthetic import ABSENT, AMBIGUOUS, HIT, SyntheticScreen
from tests.synthetic.pillow_screens import pillow_screens

log = logging.getLogger(__name__)
TARGET_ACCURACY = 0.98
HAS_PARSER = importlib.util.find_spec("gui_agent.parsing.screen_parser") is not None


def _screens() -> list[SyntheticScreen]:
    from tests.synthetic.qt_screens import qt_screens

    return pillow_screens(range(5)) + qt_screens()


def _outcome(ladder: GroundingLadder, description: str, obs: Observation, box) -> str:
    try:
        found = ladder.resolve(description, obs)
    except AmbiguousTarget:
        return AMBIGUOUS
    except TargetNotFound:
        return ABSENT
    return HIT if box is not None and box.contains(found.point) else f"miss {found} ({found.why})"


def _evaluate(screens: list[SyntheticScreen], use_truth: bool) -> tuple[dict[str, list], list[str]]:
    grounder = OcrGrounder()
    if not use_truth:
        from gui_agent.parsing.screen_parser import ScreenParser

        grounder = OcrGrounder(ScreenParser(incremental=False))
    ladder = GroundingLadder([grounder])
    results: dict[str, list[bool]] = {HIT: [], AMBIGUOUS: [], ABSENT: []}
    failures = []
    for screen in screens:
        obs = Observation.from_image(screen.image)
        if use_truth:
            grounder._cache = [(obs.image, screen.truth_parse())]
        for case in screen.cases:
            got = _outcome(ladder, case.description, obs, case.box)
            results[case.expected].append(got == case.expected)
            if got != case.expected:
                failures.append(f"{screen.name}: {case.description!r} expected {case.expected}, got {got}")
    return results, failures


def _report(results: dict[str, list[bool]], failures: list[str], label: str) -> float:
    hits = results[HIT]
    accuracy = sum(hits) / len(hits)
    print(f"\n[{label}] hit accuracy {accuracy:.1%} ({sum(hits)}/{len(hits)}); "
          f"ambiguous {sum(results[AMBIGUOUS])}/{len(results[AMBIGUOUS])}; "
          f"absent {sum(results[ABSENT])}/{len(results[ABSENT])}")
    for f in failures:
        print("  FAIL", f)
    return accuracy


@pytest.fixture(scope="module")
def screens() -> list[SyntheticScreen]:
    return _screens()


def test_enough_cases(screens):
    cases = [c for s in screens for c in s.cases]
    assert sum(c.expected == HIT for c in cases) >= 200  # targets with a ground-truth box
    assert sum(c.expected == AMBIGUOUS for c in cases) >= 10


def test_grounding_on_truth_parse(screens):
    results, failures = _evaluate(screens, use_truth=True)
    accuracy = _report(results, failures, "truth parse")
    assert accuracy >= TARGET_ACCURACY, failures
    assert all(results[AMBIGUOUS]), failures
    assert all(results[ABSENT]), failures


@pytest.mark.slow
@pytest.mark.skipif(not HAS_PARSER, reason="gui_agent.parsing.screen_parser is not there yet")
def test_grounding_on_real_parser(screens):
    results, failures = _evaluate(screens, use_truth=False)
    accuracy = _report(results, failures, "real parser")
    assert accuracy >= TARGET_ACCURACY, failures
    assert all(results[AMBIGUOUS]), failures
    assert all(results[ABSENT]), failures
