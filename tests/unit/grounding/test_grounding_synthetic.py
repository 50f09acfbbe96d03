"""Grounding accuracy on synthetic screens with ground truth (Pillow-drawn and real Qt widgets).

Each screen is parsed once (by the real ScreenParser, and by the generator's truth parse) and
then many descriptions are resolved against it through the ladder. The gate is the README's
table exactly: 25 Pillow and 2 Qt screens; 233 targets, all hit; 19 ambiguous descriptions, all
reported as ambiguous; 27 absent ones, all reported as not found.
"""

from __future__ import annotations

import logging

import pytest

from gui_agent.errors import AmbiguousTarget, TargetNotFound
from gui_agent.grounding.ladder import GroundingLadder
from gui_agent.grounding.ocr_grounder import OcrGrounder
from gui_agent.screen.observation import Observation
from tests.support.synthetic import ABSENT, AMBIGUOUS, HIT, SyntheticScreen
from tests.support.synthetic.pillow_screens import pillow_screens

log = logging.getLogger(__name__)
README_COUNTS = {HIT: 233, AMBIGUOUS: 19, ABSENT: 27}   # "Grounding accuracy on synthetic screens"


def _screens() -> list[SyntheticScreen]:
    from tests.support.synthetic.qt_screens import qt_screens

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


def test_the_quoted_cases(screens):
    assert sum(s.name.startswith("qt-") for s in screens) == 2 and len(screens) == 27
    cases = [c for s in screens for c in s.cases]
    assert {kind: sum(c.expected == kind for c in cases) for kind in README_COUNTS} == README_COUNTS
    assert all(c.box is not None for c in cases if c.expected == HIT)   # a ground-truth box each


def _assert_all_as_quoted(results: dict[str, list[bool]], failures: list[str]) -> None:
    """Every case as expected, and exactly as many of each kind as the README quotes."""
    assert {kind: sum(results[kind]) for kind in README_COUNTS} == README_COUNTS, failures
    assert not failures, failures


def test_grounding_on_truth_parse(screens):
    results, failures = _evaluate(screens, use_truth=True)
    _report(results, failures, "truth parse")
    _assert_all_as_quoted(results, failures)


@pytest.mark.slow
def test_grounding_on_real_parser(screens):
    """The README's figure: the real screen parser (OCR + widget detection)."""
    results, failures = _evaluate(screens, use_truth=False)
    _report(results, failures, "real parser")
    _assert_all_as_quoted(results, failures)
