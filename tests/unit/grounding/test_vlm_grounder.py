"""The VLM grounder: the last rung of the ladder, with a scripted pointing model."""

from __future__ import annotations

import pytest
from PIL import Image

from gui_agent import Engine
from gui_agent.backends.registry import ModelFamily
from gui_agent.config import Settings
from gui_agent.desktop import StillDesktop
from gui_agent.errors import TargetNotFound
from gui_agent.geometry import Box, Point
from gui_agent.grounding.ladder import GroundingLadder
from gui_agent.grounding.vlm_grounder import VlmGrounder, ZoomSettings, zoom_region
from gui_agent.planner.vlm import vlm_planner
from gui_agent.screen.observation import MonitorGeometry, Observation
from tests.support.scripted_backend import ScriptedBackend


def Family(name: str, prompt: str, parser: str, coordinates: str, min_pixels: int = 3136,  # noqa: N802
           max_pixels: int = 12845056) -> ModelFamily:
    """A registry family with its prompt inline (independent of the shipped prompt files)."""
    return ModelFamily(name=name, prompt="", parser=parser, coordinates=coordinates, min_pixels=min_pixels,
                       max_pixels=max_pixels, prompt_text=prompt)


POINTER = Family("uground", "Description: {instruction}\nAnswer:", "grounding-point", "relative-1000")
PLANNER = Family("gui-agent", "Act.\n{instruction}", "gui-agent", "absolute")


class NothingRung:
    name = "ocr"

    def candidates(self, description, observation):
        return []


def observation(size=(1000, 500)) -> Observation:
    return Observation.from_image(Image.new("RGB", size, "white"))


def test_a_point_in_the_models_convention_becomes_an_image_pixel():
    backend = ScriptedBackend(["(100, 50)"])
    found = VlmGrounder(backend, POINTER).candidates("the Save button", observation())
    assert len(found) == 1 and found[0].point == Point(100, 25) and found[0].source == "vlm"
    assert found[0].score > 0.5
    assert "Description: the Save button" in backend.requests[0].text


def test_zoom_in_asks_again_on_an_enlarged_crop_and_maps_back():
    # first guess (500, 250); the crop is 500x256 around it, enlarged 2x to 1000x512
    backend = ScriptedBackend(["(500, 500)", "(520, 500)"])
    grounder = VlmGrounder(backend, POINTER, zoom=ZoomSettings(factor=2.0, min_side=256))
    found = grounder.candidates("the OK button", observation())
    crop = zoom_region(Point(500, 250), (1000, 500), ZoomSettings(factor=2.0, min_side=256))
    assert crop == Box(250, 122, 500, 256)
    second = backend.requests[1].images[0]
    assert second.size == (1008, 504)  # 1000x512 resized to multiples of 28
    # (520, 500) of 1000 on the enlarged crop -> (520, 256) there -> (260, 128) on the crop
    assert found[0].point == Point(250 + 260, 122 + 128)
    assert found[0].score == grounder.agreed_score and "zoom" in found[0].why


def test_a_failed_zoom_keeps_the_first_guess():
    backend = ScriptedBackend(["(500, 500)", "I cannot see it"])
    grounder = VlmGrounder(backend, POINTER, zoom=ZoomSettings())
    found = grounder.candidates("the OK button", observation())
    assert found[0].point == Point(500, 250) and found[0].score == grounder.score


def test_a_reply_without_a_point_is_a_clear_target_not_found():
    backend = ScriptedBackend(["The button is somewhere on the left"])
    with pytest.raises(TargetNotFound, match="gave no point") as err:
        VlmGrounder(backend, POINTER).candidates("the OK button", observation())
    assert "somewhere on the left" in str(err.value)


def test_it_is_the_last_rung_and_answers_only_when_the_others_find_nothing():
    backend = ScriptedBackend(["(300, 400)"])
    ladder = GroundingLadder([NothingRung()]).with_rung(VlmGrounder(backend, POINTER))
    assert [g.name for g in ladder.grounders] == ["ocr", "vlm"]
    obs = observation()
    cand = ladder.resolve("the blue icon", obs)
    assert cand.point == Point(300, 200) and cand.source == "vlm"
    assert ladder.resolve("the blue icon", obs).point == Point(300, 200)  # cached: one call
    assert len(backend.requests) == 1


def test_images_are_sent_within_the_budget():
    backend = ScriptedBackend(["(500, 500)"])
    small = Family("uground", "{instruction}", "grounding-point", "relative-1000", 3136, 200_000)
    VlmGrounder(backend, small).candidates("x", observation((1920, 1080)))
    sent = backend.requests[0].images[0]
    assert sent.width * sent.height <= 200_000 and sent.width % 28 == 0


def test_a_separate_grounding_model_places_the_planners_descriptions(tmp_path):
    """Planner and grounder are two models (as in Agent S2): the planner names the target,
    the pointing model finds it, the click lands there."""
    planning = ScriptedBackend(["1. Click the gear", 'click("the gear icon")', "done()"])
    pointing = ScriptedBackend(["(250, 500)"])
    ladder = GroundingLadder([NothingRung()]).with_rung(VlmGrounder(pointing, POINTER))
    obs = Observation(Image.new("RGB", (1000, 500), "white"), MonitorGeometry(10, 20, 1000, 500, 1.0, 1))
    desktop = StillDesktop(obs)
    agent = Engine(desktop, vlm_planner(planning, PLANNER), settings=Settings(runs_dir=tmp_path),
                  ladder=ladder, parser=None, live=False)
    result = agent.run("open the settings")
    assert result.ok, result.reason
    assert result.steps[0].source == "vlm"
    assert desktop.controller.calls("click")[0].params["point"] == Point(10 + 250, 20 + 250)
    assert "Description: the gear icon" in pointing.requests[0].text
