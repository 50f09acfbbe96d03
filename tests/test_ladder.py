import pytest
from PIL import Image

from gui_agent.errors import AmbiguousTarget, TargetNotFound
from gui_agent.geometry import Box, Point
from gui_agent.grounding.candidate import Candidate
from gui_agent.grounding.ladder import Grounder, GroundingLadder
from gui_agent.grounding.ocr_grounder import OcrGrounder
from gui_agent.parsing.elements import Element, ScreenParse
from gui_agent.parsing.elements import ElementKind as K
from gui_agent.screen.observation import Observation

OBS = Observation.from_image(Image.new("RGB", (400, 300), "white"))


class Fixed:
    def __init__(self, name, found):
        self.name, self.found, self.calls = name, found, 0

    def candidates(self, description, observation):
        self.calls += 1
        return list(self.found)


def cand(x, score, source="ocr"):
    return Candidate(Box(x, 10, 40, 20), score, source)


def test_points_and_boxes_pass_through():
    ladder = GroundingLadder([])
    assert ladder.resolve(Point(5, 6), OBS).point == Point(5, 6)
    got = ladder.resolve(Box(10, 10, 20, 20), OBS)
    assert (got.source, got.point) == ("point", Point(20, 20))
    with pytest.raises(TargetNotFound):
        ladder.resolve(Point(500, 5), OBS)


def test_first_confident_rung_wins_and_later_rungs_are_not_asked():
    first, second = Fixed("a11y", [cand(0, 0.3)]), Fixed("ocr", [cand(100, 0.9), cand(200, 0.6)])
    third = Fixed("vlm", [cand(300, 1.0)])
    got = GroundingLadder([first, second, third]).resolve("Save", OBS)
    assert got.box.left == 100 and third.calls == 0
    assert isinstance(first, Grounder)


def test_close_rivals_elsewhere_are_ambiguous_but_overlaps_are_not():
    with pytest.raises(AmbiguousTarget) as info:
        GroundingLadder([Fixed("ocr", [cand(0, 0.9), cand(200, 0.88)])]).resolve("OK", OBS)
    assert len(info.value.candidates) == 2
    same_place = [cand(0, 0.9), Candidate(Box(5, 12, 30, 15), 0.89, "ocr")]
    assert GroundingLadder([Fixed("ocr", same_place)]).resolve("OK", OBS).box.left == 0


def test_nothing_good_enough_is_not_found():
    with pytest.raises(TargetNotFound, match="best was"):
        GroundingLadder([Fixed("ocr", [cand(0, 0.2)])]).resolve("Save", OBS)
    with pytest.raises(TargetNotFound):
        GroundingLadder([Fixed("ocr", [])]).resolve("Save", OBS)


def _parse(*elements):
    return ScreenParse(tuple(elements), 400, 300)


def test_ocr_rung_on_a_parse():
    parse = _parse(
        Element(K.TEXT, Box(10, 10, 50, 16), "Name:"),
        Element(K.TEXT_FIELD, Box(70, 6, 200, 24)),
        Element(K.TEXT, Box(10, 50, 50, 16), "Email:"),
        Element(K.TEXT_FIELD, Box(70, 46, 200, 24)),
        Element(K.BUTTON, Box(10, 100, 60, 26), "OK"),
        Element(K.BUTTON, Box(300, 100, 60, 26), "OK"),
    )
    grounder = OcrGrounder(parser=None)
    grounder._cache = [(OBS.image, parse)]
    ladder = GroundingLadder([grounder])
    assert ladder.resolve("the Email field", OBS).box == Box(70, 46, 200, 24)
    assert ladder.resolve("the field for name", OBS).box == Box(70, 6, 200, 24)
    assert ladder.resolve("the 2nd text field", OBS).box == Box(70, 46, 200, 24)
    assert ladder.resolve("the last button", OBS).box.left == 300
    assert ladder.resolve("the OK button below Email", OBS).box.left == 10
    with pytest.raises(AmbiguousTarget):
        ladder.resolve("OK", OBS)
    with pytest.raises(TargetNotFound):
        ladder.resolve("the Delete button", OBS)
