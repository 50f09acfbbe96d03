"""Targets given as coordinates: spelled in a task, or answered by a model that points.

A point is grounded to the element under it, so the safety policy judges what a click at
(156, 156) will touch exactly as a click on the same button by name (before, a UI-TARS reply
aimed at "Delete all" ran under --safety refuse).
"""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

from gui_agent import Engine
from gui_agent.actions import Click, Done
from gui_agent.backends.adapters import get_adapter
from gui_agent.backends.coordinates import ImageFrame
from gui_agent.config import Settings
from gui_agent.desktop import StillDesktop
from gui_agent.geometry import Box, Point
from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.point_grounder import element_under
from gui_agent.grounding.target_forms import point_of
from gui_agent.parsing.elements import Element, ElementKind
from gui_agent.planner import offline_planner
from gui_agent.planner.base import Planner, Subtask
from gui_agent.planner.instruction_parser import parse_instructions
from gui_agent.screen.observation import Observation

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


@pytest.mark.parametrize("text, point", [
    ("(725, 418)", Point(725, 418)), ("at 725,418", Point(725, 418)), ("725, 418", Point(725, 418)),
    ("the point (5,5)", Point(5, 5)), ("x=3 y=4", Point(3, 4)), ("at position (10 20)", Point(10, 20)),
    ("the (30, 40) field", Point(30, 40)),
])
def test_coordinates_spelled_in_a_description(text, point):
    assert point_of(text) == point


@pytest.mark.parametrize("text", ['"(1, 2)"', "the 2nd button", "Save", "item 3, 4", "(1, 2, 3)", "12"])
def test_other_descriptions_are_not_points(text):
    assert point_of(text) is None


@pytest.mark.parametrize("task, point", [
    ("click (725, 418)", Point(725, 418)), ("click at 725,418", Point(725, 418)),
    ("double-click at (10, 20)", Point(10, 20)),
])
def test_the_offline_planner_reads_point_targets(task, point):
    (action,) = parse_instructions(task)[0].actions
    assert isinstance(action, Click) and action.target == point


def test_the_element_under_a_point_is_the_smallest_control_with_its_caption():
    panel = Element(ElementKind.BUTTON, Box(0, 0, 400, 300))
    button = Element(ElementKind.BUTTON, Box(100, 140, 110, 32))
    caption = Element(ElementKind.TEXT, Box(120, 148, 70, 16), "Delete all")
    got = element_under(Point(150, 156), [panel, button, caption])
    assert got is not None and got.box == button.box and got.text == "Delete all"
    assert element_under(Point(212, 156), [button]) == button        # 2 px past the edge
    assert element_under(Point(390, 20), [button, caption]) is None


def _delete_screen() -> Observation:
    image = Image.new("RGB", (640, 400), (240, 240, 240))
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, 16)
    draw.rounded_rectangle((100, 140, 212, 172), radius=4, fill=(222, 222, 226), outline=(140, 140, 140))
    draw.text((114, 147), "Delete all", fill=(20, 20, 20), font=font)
    draw.rounded_rectangle((260, 140, 340, 172), radius=4, fill=(222, 222, 226), outline=(140, 140, 140))
    draw.text((285, 147), "Keep", fill=(20, 20, 20), font=font)
    return Observation.from_image(image)


class _OneShotWorker:
    def __init__(self, action):
        self.action = action

    def next_action(self, subtask, observation, history):
        return self.action if not history else Done()


class _OneSubtask:
    replans_after_success = False

    def plan(self, task, observation):
        return [Subtask(task)]

    def replan(self, task, observation, done, failed, reason):
        return []


@pytest.fixture(scope="module")
def ladder_and_parser():
    return default_ladder()


def _agent(action, tmp_path, ladder_and_parser, safety="refuse"):
    ladder, parser = ladder_and_parser
    planner = Planner("scripted", _OneSubtask(), _OneShotWorker(action))
    return Engine(StillDesktop(_delete_screen()), planner, settings=Settings(runs_dir=tmp_path, safety=safety),
                 ladder=ladder, parser=parser, live=False)


def test_a_ui_tars_click_at_a_delete_button_is_refused_like_the_named_click(tmp_path, ladder_and_parser):
    frame = ImageFrame(640, 400, 640, 400, "absolute-resized")
    reply = get_adapter("ui-tars").parse("Thought: clean up\nAction: click(start_box='(156,156)')", frame)
    (action,) = reply.actions
    assert isinstance(action.target, Point)
    by_point = _agent(action, tmp_path / "a", ladder_and_parser).run("tidy the list")
    by_name = _agent(Click('"Delete all"'), tmp_path / "b", ladder_and_parser).run("tidy the list")
    assert by_name.outcome == "refused"
    assert by_point.outcome == "refused", by_point
    assert "Delete all" in by_point.reason


def test_a_harmless_point_click_is_grounded_to_its_element(tmp_path, ladder_and_parser):
    result = _agent(Click(Point(300, 156)), tmp_path, ladder_and_parser).run("keep it")
    assert result.outcome == "done", result.reason
    assert "Keep" in result.steps[0].why


def test_a_point_typed_in_the_task_goes_through_the_same_check(tmp_path, ladder_and_parser):
    ladder, parser = ladder_and_parser
    agent = Engine(StillDesktop(_delete_screen()), offline_planner(),
                  settings=Settings(runs_dir=tmp_path, safety="refuse"), ladder=ladder, parser=parser,
                  live=False)
    assert agent.run("click (156, 156)").outcome == "refused"
    assert agent.run("click at 300,156").outcome == "done"
