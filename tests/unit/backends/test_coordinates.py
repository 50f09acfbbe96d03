"""ImageFrame: model coordinates <-> observation image pixels, for every convention."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from gui_agent.backends.coordinates import ImageFrame, ModelReplyError, round_half_away
from gui_agent.backends.images import ImageBudget, smart_resize
from gui_agent.errors import ConfigError, PlanningError
from gui_agent.geometry import Box, Point
from gui_agent.screen.observation import MonitorGeometry, Observation


def test_round_half_away_from_zero_unlike_builtin_round():
    assert [round_half_away(v) for v in (0.5, 1.5, 2.5, -0.5, -2.5, 2.49, -2.51)] == [1, 2, 3, -1, -3, 2, -3]
    assert round(2.5) == 2  # the reason round_half_away exists


def test_model_reply_error_is_a_planning_error():
    assert issubclass(ModelReplyError, PlanningError)


@pytest.mark.parametrize(
    "args",
    [(0, 10, 10, 10), (10, 10, -1, 10), (10.5, 10, 10, 10), (True, 10, 10, 10)],
)
def test_frame_rejects_bad_sizes(args):
    with pytest.raises(ConfigError, match="positive whole"):
        ImageFrame(*args)


def test_frame_rejects_unknown_convention():
    with pytest.raises(ConfigError, match="relative-1000"):
        ImageFrame(10, 10, 10, 10, "percent")


def test_resized_frame_uses_smart_resize():
    frame = ImageFrame.resized(1920, 1080, max_pixels=1280 * 28 * 28)
    assert (frame.model_height, frame.model_width) == smart_resize(1080, 1920, max_pixels=1280 * 28 * 28)
    assert frame.model_width % 28 == 0 and frame.model_height % 28 == 0
    assert (frame.model_width, frame.model_height) == (1316, 728)


def test_for_budget_and_for_observation_agree():
    budget = ImageBudget(max_pixels=1024 * 28 * 28)
    obs = Observation(Image.new("RGB", (2560, 1440)), MonitorGeometry(0, 0, 1280, 720, 2.0))
    a = ImageFrame.for_observation(obs, "absolute-resized", budget)
    b = ImageFrame.for_budget(2560, 1440, budget, "absolute-resized")
    assert a == b and (a.image_width, a.image_height) == (2560, 1440)
    assert (a.model_width, a.model_height) == budget.resized_size(2560, 1440)
    assert ImageFrame.for_observation(obs, "relative-1").model_width == 2560


@pytest.mark.parametrize(
    ("convention", "model_xy", "expected"),
    [
        ("absolute-resized", (658, 364), Point(960, 540)),   # model 1316x728 -> image 1920x1080
        ("relative-1000", (500, 500), Point(960, 540)),
        ("relative-1", (0.5, 0.5), Point(960, 540)),
        ("absolute", (960, 540), Point(960, 540)),
        ("relative-1000", (0, 0), Point(0, 0)),
        ("relative-1000", (1000, 1000), Point(1919, 1079)),   # the far edge is clamped inside
        ("relative-1", (1.02, -0.01), Point(1919, 0)),        # a small overshoot is clamped
    ],
)
def test_to_image_per_convention(convention, model_xy, expected):
    frame = ImageFrame(1920, 1080, 1316, 728, convention)
    assert frame.to_image(*model_xy) == expected
    assert frame.to_image(*model_xy, strict=True) == expected


def test_to_image_rounds_halves_away_from_zero():
    frame = ImageFrame(3, 3, 2, 2, "absolute-resized")  # 1.5 image px per model px
    assert frame.to_image(1, 1) == Point(2, 2)  # 1.5 -> 2, where round() would give 2 too
    frame = ImageFrame(5, 5, 2, 2, "absolute-resized")  # 2.5 image px per model px
    assert frame.to_image(1, 1) == Point(3, 3)  # 2.5 -> 3 (round() gives 2)


@pytest.mark.parametrize(
    ("convention", "model_xy"),
    [("relative-1000", (1200, 10)), ("relative-1", (0.5, 3)), ("absolute-resized", (-100, 5)),
     ("absolute", (5000, 5))],
)
def test_strict_refuses_coordinates_far_outside(convention, model_xy):
    frame = ImageFrame(1920, 1080, 1316, 728, convention)
    with pytest.raises(ModelReplyError, match="outside the image"):
        frame.to_image(*model_xy, strict=True)
    inside = frame.to_image(*model_xy)  # lenient: clamped to the edge
    assert 0 <= inside.x < 1920 and 0 <= inside.y < 1080


def test_non_finite_coordinates_are_refused_even_when_lenient():
    frame = ImageFrame(100, 100, 100, 100, "absolute")
    for value in (float("nan"), float("inf")):
        with pytest.raises(ModelReplyError, match="finite"):
            frame.to_image(value, 1)
        with pytest.raises(ModelReplyError, match="finite"):
            frame.box_to_image(0, 0, value, 1)


def test_box_to_image_orders_corners_and_stays_inside():
    frame = ImageFrame(1920, 1080, 1000, 1000, "relative-1000")
    assert frame.box_to_image(600, 500, 400, 250) == Box(768, 270, 384, 270)
    edge = frame.box_to_image(990, 990, 1010, 1010)
    assert edge.right <= 1920 and edge.bottom <= 1080 and edge.width >= 1
    assert frame.center_to_image(400, 250, 600, 500) == Point(960, 405)


def test_from_image_matches_the_model_precision():
    frame = ImageFrame(1920, 1080, 1316, 728, "relative-1")
    assert frame.from_image(960, 540) == (0.5, 0.5)
    assert frame.from_image(1, 1) == (round(1 / 1920, 4), round(1 / 1080, 4))
    frame = ImageFrame(1920, 1080, 1316, 728, "relative-1000")
    assert frame.from_image(961, 541) == (501.0, 501.0)
    assert frame.from_image(961, 541, exact=True) == pytest.approx((500.5208, 500.9259), abs=1e-4)
    assert frame.box_from_image(Box(0, 0, 1920, 1080)) == (0.0, 0.0, 1000.0, 1000.0)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(16, 5000), st.integers(16, 5000),
    st.sampled_from(["absolute-resized", "relative-1000", "relative-1", "absolute"]),
    st.floats(0, 1), st.floats(0, 1),
)
def test_round_trip_image_model_image_within_one_model_unit(w, h, convention, fx, fy):
    if max(w, h) / min(w, h) > 200:
        return
    frame = ImageFrame.resized(w, h, convention)
    p = Point(min(w - 1, int(fx * w)), min(h - 1, int(fy * h)))
    back = frame.to_image(*frame.from_image(p.x, p.y), strict=True)
    per_x, per_y = frame.image_per_unit
    step = 1e-4 if convention == "relative-1" else 1.0
    assert abs(back.x - p.x) <= per_x * step / 2 + 0.5 + 1e-9
    assert abs(back.y - p.y) <= per_y * step / 2 + 0.5 + 1e-9
    exact = frame.to_image(*frame.from_image(p.x, p.y, exact=True))
    assert exact == p
