"""Golden replies of each model family -> exact actions, and coordinates exact on the screen.

The screen checks start from an intended screen point, compute what the model would write
(in its convention, at its precision), format the reply the way the family does, parse it,
map the target with ``Observation.to_screen`` and compare: within 1 px of the point the
model's numbers denote, and within 1 px of the intended point wherever one model unit is at
most one screen pixel (otherwise within half a model unit more: that is the model's own
quantisation, e.g. 0-1000 coordinates on a 3840 px wide screen).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from gui_agent.actions import (
    AskUser,
    Click,
    Done,
    Drag,
    Fail,
    Hotkey,
    Move,
    OpenApp,
    Scroll,
    Type,
    Wait,
)
from gui_agent.backends.adapters import (
    ADAPTER_NAMES,
    ModelReply,
    ModelReplyError,
    default_convention,
    get_adapter,
)
from gui_agent.backends.adapters.grounding import parse_point, parse_target
from gui_agent.backends.coordinates import ImageFrame
from gui_agent.backends.images import smart_resize
from gui_agent.errors import ConfigError, PlanningError
from gui_agent.geometry import Box, Point
from gui_agent.screen.observation import MonitorGeometry, Observation

# ---- screens: image size, scale (image px per logical px), monitor offset ----------------
SCREENS = [
    (1280, 800, 1.0, 0, 0),
    (1920, 1080, 1.0, -1920, 0),          # a monitor left of the primary one
    (2560, 1440, 2.0, 2560, 0),           # Retina-like: 1280x720 logical, right of the primary
    (3840, 2160, 1.0, -3840, -200),
    (1366, 768, 1.0, 2560, 312),
    (1365, 767, 1.0, -1920, 0),           # odd sizes
    (2880, 1620, 1.5, 0, -1080),          # fractional scale above the primary
]
_IMAGES: dict[tuple[int, int], Image.Image] = {}


def observation(w: int, h: int, scale: float, left: int, top: int) -> Observation:
    image = _IMAGES.setdefault((w, h), Image.new("RGB", (w, h)))
    return Observation(image, MonitorGeometry(left, top, round(w / scale), round(h / scale), scale, 2))


def intended_points(obs: Observation, count: int = 6) -> list[Point]:
    """Screen points: the monitor's corners, its centre, and seeded random ones."""
    m = obs.monitor
    rng = random.Random(hash((m.left, m.top, m.width, m.height)) & 0xFFFF)
    points = [Point(m.left, m.top), Point(m.left + m.width - 1, m.top + m.height - 1),
              Point(m.left + m.width // 2, m.top + m.height // 2)]
    points += [Point(m.left + rng.randrange(m.width), m.top + rng.randrange(m.height)) for _ in range(count)]
    return points


# ---- families: frame, how the model writes a point, reply template --------------------
@dataclass(frozen=True)
class Family:
    name: str
    adapter: str
    frame: Callable[[int, int], ImageFrame]
    decimals: int                      # digits the model writes after the point
    reply: Callable[[float, float], str]


def model_units(frame: ImageFrame, w: int, h: int) -> tuple[float, float]:
    """Model units per observation image pixel, from each convention's definition (not ImageFrame)."""
    if frame.convention == "absolute-resized":
        rh, rw = smart_resize(h, w, 28, *BUDGETS[(frame.model_width, frame.model_height, w, h)])
        return rw / w, rh / h
    return {"relative-1000": (1000 / w, 1000 / h), "relative-1": (1 / w, 1 / h),
            "absolute": (1.0, 1.0)}[frame.convention]


def _n(v: float, decimals: int) -> str:
    return f"{v:.{decimals}f}" if decimals else str(int(round(v)))


BUDGETS: dict[tuple[int, int, int, int], tuple[int, int]] = {}  # frame sizes -> (min, max) pixels


def _resized(w: int, h: int, min_pixels: int, max_pixels: int) -> ImageFrame:
    frame = ImageFrame.resized(w, h, "absolute-resized", min_pixels=min_pixels, max_pixels=max_pixels)
    BUDGETS[(frame.model_width, frame.model_height, w, h)] = (min_pixels, max_pixels)
    return frame


UI_TARS_15 = lambda w, h: _resized(w, h, 100 * 28 * 28, 16384 * 28 * 28)  # noqa: E731
SMALL_BUDGET = lambda w, h: _resized(w, h, 4 * 28 * 28, 1280 * 28 * 28)  # noqa: E731
REL_1000 = lambda w, h: ImageFrame.resized(w, h, "relative-1000")  # noqa: E731
REL_1 = lambda w, h: ImageFrame.resized(w, h, "relative-1")  # noqa: E731

FAMILIES = [
    Family("ui-tars-1.5 box tokens", "ui-tars", UI_TARS_15, 0,
           lambda x, y: f"Thought: 点击保存按钮。\nAction: click(start_box='<|box_start|>({_n(x, 0)},{_n(y, 0)})<|box_end|>')"),
    Family("ui-tars-1.5 point tag", "ui-tars", SMALL_BUDGET, 0,
           lambda x, y: f"Thought: Open it.\nAction: left_double(point='<point>{_n(x, 0)} {_n(y, 0)}</point>')"),
    Family("ui-tars-1.0 relative", "ui-tars", REL_1000, 0,
           lambda x, y: f"Thought: Click.\nAction: click(start_box='({_n(x, 0)},{_n(y, 0)})')"),
    Family("ui-tars-1.0 box centre", "ui-tars", REL_1000, 0,
           lambda x, y: "Action: click(start_box='({},{},{},{})')".format(  # noqa: UP032 - a box
               _n(x - 15, 0), _n(y - 12, 0), _n(x + 15, 0), _n(y + 12, 0))),
    Family("showui 4 decimals", "showui", REL_1, 4,
           lambda x, y: f"{{'action': 'CLICK', 'value': None, 'position': [{_n(x, 4)}, {_n(y, 4)}]}}"),
    Family("uground (x, y)", "grounding-point", REL_1000, 0, lambda x, y: f"({_n(x, 0)}, {_n(y, 0)})"),
    Family("os-atlas box", "grounding-point", REL_1000, 0,
           lambda x, y: "<|object_ref_start|>the button<|object_ref_end|><|box_start|>({0},{1}),({0},{1})<|box_end|>"
           .format(_n(x, 0), _n(y, 0))),
    Family("qwen2.5-vl point_2d", "qwen2.5-vl", SMALL_BUDGET, 0,
           lambda x, y: f'```json\n[{{"point_2d": [{_n(x, 0)}, {_n(y, 0)}], "label": "Save"}}]\n```'),
    Family("qwen2.5-vl computer_use", "qwen2.5-vl", UI_TARS_15, 0,
           lambda x, y: '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", '
           f'"coordinate": [{_n(x, 0)}, {_n(y, 0)}]}}}}\n</tool_call>'),
    Family("gui-agent absolute", "gui-agent", lambda w, h: ImageFrame.unscaled(w, h), 0,
           lambda x, y: f"Thought: click it\nclick(({_n(x, 0)}, {_n(y, 0)}))"),
    Family("gui-agent on a resized image", "gui-agent",
           lambda w, h: ImageFrame.resized(w, h, "absolute", max_pixels=1024 * 28 * 28), 0,
           lambda x, y: f"move(({_n(x, 0)}, {_n(y, 0)}))"),
]


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}@{s[2]}{s[3]:+d}{s[4]:+d}")
@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_reply_maps_to_the_intended_screen_point(family: Family, screen):
    obs = observation(*screen)
    w, h = obs.size
    frame = family.frame(w, h)
    if family.name == "gui-agent absolute":
        assert frame.convention == "absolute"
    adapter = get_adapter(family.adapter)
    scale = obs.monitor.scale
    unit_x, unit_y = model_units(frame, w, h)
    step = 10.0 ** -family.decimals
    for intended in intended_points(obs):
        image_x = (intended.x - obs.monitor.left) * scale
        image_y = (intended.y - obs.monitor.top) * scale
        mx, my = round(image_x * unit_x, family.decimals), round(image_y * unit_y, family.decimals)
        reply = adapter.parse(family.reply(mx, my), frame)
        assert len(reply.actions) == 1
        target = reply.actions[0].target
        assert isinstance(target, Point), reply
        screen_pt = obs.to_screen(target)
        # 1) exact mapping of what the model wrote
        dx, dy = min(max(mx / unit_x, 0), w - 1), min(max(my / unit_y, 0), h - 1)
        denoted = (obs.monitor.left + dx / scale, obs.monitor.top + dy / scale)
        assert abs(screen_pt.x - denoted[0]) <= 1 and abs(screen_pt.y - denoted[1]) <= 1, (
            family.name, intended, screen_pt, denoted)
        if frame.convention == "absolute" and frame.model_width == w and scale in (1.0, 2.0):
            assert screen_pt == intended  # our own pixel coordinates: no loss at all
        # 2) the intended point, up to the model's own quantisation
        qx, qy = step / unit_x / scale, step / unit_y / scale
        tol_x = 1 if qx <= 1 else 1 + qx / 2
        tol_y = 1 if qy <= 1 else 1 + qy / 2
        assert abs(screen_pt.x - intended.x) <= tol_x and abs(screen_pt.y - intended.y) <= tol_y, (
            family.name, intended, screen_pt, (mx, my))


def test_relative_1000_on_4k_is_off_by_at_most_half_a_unit():
    """The quantisation allowance above is real, and bounded: 0-1000 on 3840 px."""
    obs = observation(3840, 2160, 1.0, 0, 0)
    frame = REL_1000(3840, 2160)
    worst = 0.0
    for x in range(0, 3840, 7):
        mx = round(x / 3.84)
        p = obs.to_screen(get_adapter("grounding-point").parse(f"({mx}, 0)", frame).actions[0].target)
        worst = max(worst, abs(p.x - x))
    assert 1 < worst <= 1 + 3.84 / 2


# ---- golden replies -> exact actions (frame: 1000x1000 image, identity-like mappings) ----
IDENT_1000 = ImageFrame(1000, 1000, 1000, 1000, "relative-1000")
IDENT_ABS = ImageFrame(1000, 1000, 1000, 1000, "absolute-resized")
IDENT_REL1 = ImageFrame(1000, 1000, 1000, 1000, "relative-1")
P = Point

GOLDEN = [
    # UI-TARS
    ("ui-tars", IDENT_ABS, "Thought: I should click Save.\nAction: click(start_box='<|box_start|>(100,200)<|box_end|>')",
     "I should click Save.", (Click(P(100, 200)),)),
    ("ui-tars", IDENT_ABS, "Action: click(start_box='(100,200,300,400)')", "", (Click(P(200, 300)),)),
    ("ui-tars", IDENT_ABS, "Action: click(start_box='[100, 200, 300, 400]')", "", (Click(P(200, 300)),)),
    ("ui-tars", IDENT_ABS, "Action: click(start_box='<bbox>100 200 300 400</bbox>')", "", (Click(P(200, 300)),)),
    ("ui-tars", IDENT_ABS, "Action: right_single(point='<point>510 150</point>')", "",
     (Click(P(510, 150), button="right"),)),
    ("ui-tars", IDENT_ABS, "Action: left_double(start_box='(5,6)')", "", (Click(P(5, 6), clicks=2),)),
    ("ui-tars", IDENT_ABS,
     "Action: drag(start_box='<|box_start|>(10,20)<|box_end|>', end_box='<|box_start|>(300,400)<|box_end|>')",
     "", (Drag(P(10, 20), P(300, 400)),)),
    ("ui-tars", IDENT_ABS, "Action: drag(start_point='<point>1 2</point>', end_point='<point>3 4</point>')",
     "", (Drag(P(1, 2), P(3, 4)),)),
    ("ui-tars", IDENT_ABS, "Thought: copy\nAction: hotkey(key='ctrl c')", "copy", (Hotkey(("ctrl", "c")),)),
    ("ui-tars", IDENT_ABS, "Action: hotkey(key='Ctrl+Shift+T')", "", (Hotkey(("ctrl", "shift", "t")),)),
    ("ui-tars", IDENT_ABS, "Action: press(key='enter')", "", (Hotkey(("enter",)),)),
    ("ui-tars", IDENT_ABS, "Action: type(content='hello world\\n')", "", (Type("hello world", enter=True),)),
    ("ui-tars", IDENT_ABS, "Action: type(content='He said \\'hi\\' and \\\"bye\\\"\\nsecond line')", "",
     (Type("He said 'hi' and \"bye\"\nsecond line"),)),
    ("ui-tars", IDENT_ABS, "Action: type(content='It's 5 o'clock')", "", (Type("It's 5 o'clock"),)),
    ("ui-tars", IDENT_ABS, "Action: type(content='C:\\Users\\ann, (draft)')", "",
     (Type("C:\\Users\\ann, (draft)"),)),
    ("ui-tars", IDENT_ABS, "Action: type(content='line one\nline two\n')", "",
     (Type("line one\nline two", enter=True),)),
    ("ui-tars", IDENT_ABS, "Action: scroll(start_box='(500,500)', direction='down')", "",
     (Scroll("down", at=P(500, 500)),)),
    ("ui-tars", IDENT_ABS, "Action: scroll(direction='up')", "", (Scroll("up"),)),
    ("ui-tars", IDENT_ABS, "Thought: Loading.\nAction: wait()", "Loading.", (Wait(5.0),)),
    ("ui-tars", IDENT_ABS, "Action: finished(content='The price is \\'42\\'')", "", (Done("The price is '42'"),)),
    ("ui-tars", IDENT_ABS, "Action: finished()", "", (Done(),)),
    ("ui-tars", IDENT_ABS, "Thought: I need the password.\nAction: call_user()", "I need the password.",
     (AskUser("I need the password."),)),
    ("ui-tars", IDENT_ABS, "Action: open_app(app_name='Calculator')", "", (OpenApp("Calculator"),)),
    ("ui-tars", IDENT_ABS,
     "Thought: fill the form\nAction: click(start_box='(10,10)')\n\ntype(content='Ann')\n\nhotkey(key='enter')",
     "fill the form", (Click(P(10, 10)), Type("Ann"), Hotkey(("enter",)))),
    ("ui-tars", IDENT_ABS,
     "Reflection: the menu did not open.\nAction_Summary: open it again.\nAction: click(start_box='(1,2)')",
     "the menu did not open.\nopen it again.", (Click(P(1, 2)),)),
    ("ui-tars", IDENT_ABS, "Thought：点击“保存”。\nAction：click（start_box=‘(100，200)’）", "点击“保存”。",
     (Click(P(100, 200)),)),
    ("ui-tars", IDENT_ABS, "  \n Thought:   spaced  \n\n  Action:   click( start_box = '( 7 , 8 )' )  \n ",
     "spaced", (Click(P(7, 8)),)),
    ("ui-tars", IDENT_ABS, "click(start_box='(3,4)')", "", (Click(P(3, 4)),)),
    ("ui-tars", IDENT_ABS, "```\nThought: fenced\nAction: click(start_box='(3,4)')\n```", "fenced",
     (Click(P(3, 4)),)),
    ("ui-tars", IDENT_1000, "Action: click(start_box='(500,250)')", "", (Click(P(500, 250)),)),
    # ShowUI
    ("showui", IDENT_REL1, "{'action': 'CLICK', 'value': None, 'position': [0.49, 0.42]}", "",
     (Click(P(490, 420)),)),
    ("showui", IDENT_REL1, "[0.49, 0.42]", "", (Click(P(490, 420)),)),
    ("showui", IDENT_REL1, "{'action': 'INPUT', 'value': 'Shanghai', 'position': [0.1, 0.2]}", "",
     (Type("Shanghai", into=P(100, 200)),)),
    ("showui", IDENT_REL1, "{'action': 'SELECT', 'value': 'Blue', 'position': [0.3, 0.3]}", "",
     (Click(P(300, 300)), Type("Blue", enter=True))),
    ("showui", IDENT_REL1, "{'action': 'HOVER', 'value': None, 'position': [0.5, 0.5]}", "", (Move(P(500, 500)),)),
    ("showui", IDENT_REL1, "{'action': 'ANSWER', 'value': '42', 'position': None}", "", (Done("42"),)),
    ("showui", IDENT_REL1, "{'action': 'ENTER', 'value': None, 'position': None}", "", (Hotkey(("enter",)),)),
    ("showui", IDENT_REL1, "{'action': 'SCROLL', 'value': 'down', 'position': None}", "", (Scroll("down"),)),
    ("showui", IDENT_REL1, "{'action': 'SELECT_TEXT', 'value': None, 'position': [[0.1, 0.2], [0.3, 0.2]]}", "",
     (Drag(P(100, 200), P(300, 200)),)),
    ("showui", IDENT_REL1, "{'action': 'COPY', 'value': 'abc', 'position': None}", "", (Hotkey(("ctrl", "c")),)),
    ("showui", IDENT_REL1, "{'action': 'TAP', 'value': None, 'position': [0.25, 0.75]}", "", (Click(P(250, 750)),)),
    ("showui", IDENT_REL1,
     "[{'action': 'CLICK', 'value': None, 'position': [0.1, 0.1]}, {'action': 'INPUT', 'value': 'x', 'position': [0.1, 0.1]}]",
     "", (Click(P(100, 100)), Type("x", into=P(100, 100)))),
    ("showui", IDENT_REL1, '{"action": "CLICK", "value": null, "position": [0.2, 0.4]}', "", (Click(P(200, 400)),)),
    ("showui", IDENT_REL1, "Next: {'action': 'CLICK', 'value': None, 'position': [0.2, 0.4]}", "Next:",
     (Click(P(200, 400)),)),
    # UGround / OS-Atlas
    ("grounding-point", IDENT_1000, "(120, 340)", "", (Click(P(120, 340)),)),
    ("grounding-point", IDENT_1000, "[100, 200, 300, 400]", "", (Click(P(200, 300)),)),
    ("grounding-point", IDENT_1000, "<|box_start|>(100,200),(300,400)<|box_end|>", "", (Click(P(200, 300)),)),
    ("grounding-point", IDENT_1000, "CLICK <point>[[250, 750]]</point>", "", (Click(P(250, 750)),)),
    ("grounding-point", IDENT_1000, "The button is at (12, 34).", "", (Click(P(12, 34)),)),
    ("grounding-point", IDENT_1000, "```\n(5, 6)\n```", "", (Click(P(5, 6)),)),
    # Qwen2.5-VL
    ("qwen2.5-vl", IDENT_ABS, '```json\n[\n  {"bbox_2d": [100, 200, 300, 400], "label": "Save button"}\n]\n```', "",
     (Click(P(200, 300)),)),
    ("qwen2.5-vl", IDENT_ABS, '{"point_2d": [120, 340], "label": "OK"}', "", (Click(P(120, 340)),)),
    ("qwen2.5-vl", IDENT_ABS, "The Save button: (12, 34)", "", (Click(P(12, 34)),)),
    ("qwen2.5-vl", IDENT_ABS,
     '<tool_call>\n{"name": "computer_use", "arguments": {"action": "double_click", "coordinate": [5, 6]}}\n</tool_call>',
     "", (Click(P(5, 6), clicks=2),)),
    ("qwen2.5-vl", IDENT_ABS,
     'Typing the name.\n<tool_call>\n{"name": "computer_use", "arguments": {"action": "type", "text": "Ann\\n"}}\n</tool_call>',
     "Typing the name.", (Type("Ann", enter=True),)),
    ("qwen2.5-vl", IDENT_ABS,
     '<tool_call>{"name": "computer_use", "arguments": {"action": "key", "keys": ["ctrl", "s"]}}</tool_call>',
     "", (Hotkey(("ctrl", "s")),)),
    ("qwen2.5-vl", IDENT_ABS,
     '<tool_call>{"name": "computer_use", "arguments": {"action": "scroll", "pixels": 5, "coordinate": [9, 9]}}</tool_call>',
     "", (Scroll("up", 5, at=P(9, 9)),)),
    ("qwen2.5-vl", IDENT_ABS,
     '<tool_call>{"name": "computer_use", "arguments": {"action": "mouse_move", "coordinate": [1, 2]}}</tool_call>\n'
     '<tool_call>{"name": "computer_use", "arguments": {"action": "left_click_drag", "coordinate": [30, 40]}}</tool_call>',
     "", (Move(P(1, 2)), Drag(P(1, 2), P(30, 40)))),
    ("qwen2.5-vl", IDENT_ABS,
     '<tool_call>{"name": "computer_use", "arguments": {"action": "right_click", "coordinate": [7, 8]}}</tool_call>',
     "", (Click(P(7, 8), button="right"),)),
    ("qwen2.5-vl", IDENT_ABS,
     '<tool_call>{"name": "computer_use", "arguments": {"action": "wait", "time": 2}}</tool_call>', "", (Wait(2.0),)),
    ("qwen2.5-vl", IDENT_ABS,
     '<tool_call>{"name": "computer_use", "arguments": {"action": "terminate", "status": "success"}}</tool_call>',
     "", (Done(),)),
    ("qwen2.5-vl", IDENT_ABS,
     '<tool_call>{"name": "computer_use", "arguments": {"action": "terminate", "status": "failure"}}</tool_call>',
     "", (Fail("the model ended the task with status 'failure'"),)),
    # our canonical text
    ("gui-agent", ImageFrame.unscaled(1000, 1000),
     'Thought: The form is empty.\nI will fill it.\nAction: click("Name")\ntype("Ann", into="Name", enter=True)',
     "The form is empty.\nI will fill it.", (Click("Name"), Type("Ann", into="Name", enter=True))),
    ("gui-agent", ImageFrame.unscaled(1000, 1000), "```\n- click((10, 20))\n- `hotkey('ctrl', 's')`\n```", "",
     (Click(P(10, 20)), Hotkey(("ctrl", "s")))),
    ("gui-agent", ImageFrame.unscaled(1000, 1000), "drag((1, 2, 11, 12), (50, 60))", "",
     (Drag(Box(1, 2, 10, 10), P(50, 60)),)),
    ("gui-agent", ImageFrame(1000, 1000, 500, 500, "absolute"), "click((10, 20))", "", (Click(P(10, 20)),)),
    ("gui-agent", ImageFrame(1000, 1000, 500, 500, "absolute-resized"), "scroll('down', at=(10, 20))", "",
     (Scroll("down", at=P(20, 40)),)),
    ("gui-agent", ImageFrame.unscaled(1000, 1000), "done('finished')", "", (Done("finished"),)),
]


@pytest.mark.parametrize(("adapter", "frame", "text", "thought", "actions"), GOLDEN,
                         ids=[f"{g[0]}-{i}" for i, g in enumerate(GOLDEN)])
def test_golden_reply_gives_exact_actions(adapter, frame, text, thought, actions):
    reply = get_adapter(adapter).parse(text, frame)
    assert reply == ModelReply(thought, actions, text)


def test_parse_point_and_parse_target():
    frame = ImageFrame(2000, 1000, 1000, 1000, "relative-1000")
    assert get_adapter("uground").parse_point("(500, 500)", frame) == Point(1000, 500)
    assert parse_point("[100, 200, 300, 400]", frame) == Point(400, 300)
    assert parse_target("[100, 200, 300, 400]", frame) == Box(200, 200, 400, 200)
    assert parse_target("(500, 500)", frame) == Point(1000, 500)


def test_without_a_frame_coordinates_are_refused_and_descriptions_pass():
    with pytest.raises(ModelReplyError, match="no screenshot"):
        get_adapter("ui-tars").parse("Action: click(start_box='(1,2)')", None)
    with pytest.raises(ModelReplyError, match="no screenshot"):
        get_adapter("grounding-point").parse("(1, 2)", None)
    assert get_adapter("ui-tars").parse("Action: hotkey(key='ctrl s')", None).actions == (Hotkey(("ctrl", "s")),)
    assert get_adapter("gui-agent").parse("click((3, 4))", None).actions == (Click(P(3, 4)),)


# ---- malformed replies -> ModelReplyError naming the problem ----------------------------
MALFORMED = [
    ("ui-tars", "", "empty"),
    ("ui-tars", "Thought: I am not sure what to do.", "no action"),
    ("ui-tars", "Action: click(start_box='(100,200)'", "unbalanced"),
    ("ui-tars", "Action: teleport(start_box='(1,2)')", "unknown UI-TARS action 'teleport'"),
    ("ui-tars", "Action: click(start_box='(1,2,3)')", "not a point"),
    ("ui-tars", "Action: click()", "missing start_box"),
    ("ui-tars", "Action: scroll(start_box='(1,2)', direction='sideways')", "direction"),
    ("ui-tars", "Action: drag(start_box='(1,2)')", "missing end_box"),
    ("ui-tars", "Action: hotkey(key='')", "no key"),
    ("ui-tars", "Action: long_press(start_box='(1,2)')", "not available on a desktop"),
    ("ui-tars", "Action: click(start_box='(5000,20)')", "outside the image"),
    ("showui", "I would click the button", "no action"),
    ("showui", "{'action': 'FLY', 'value': None, 'position': [0.1, 0.1]}", "unknown ShowUI action 'FLY'"),
    ("showui", "{'action': 'CLICK', 'value': None, 'position': None}", "position"),
    ("showui", "{'action': 'CLICK', 'value': None, 'position': [12, 0.1]}", "outside the image"),
    ("showui", "{'action': 'SCROLL', 'value': 'diagonal', 'position': None}", "SCROLL"),
    ("showui", "{'value': 1}", "no 'action'"),
    ("grounding-point", "I cannot find it.", "no position"),
    ("grounding-point", "(10, 20) or maybe (30, 40)", "2 different positions"),
    ("grounding-point", "(1e400, 5)", "finite"),
    ("qwen2.5-vl", '<tool_call>{"name": "computer_use", "arguments": {"action": "left_click"}}</tool_call>',
     "coordinate"),
    ("qwen2.5-vl", '<tool_call>{"name": "computer_use", "arguments": {"action": "fly"}}</tool_call>',
     "unknown computer_use action 'fly'"),
    ("qwen2.5-vl", '<tool_call>{"name": "computer_use", "arguments": {"action": "left_click_drag", '
     '"coordinate": [1, 2]}}</tool_call>', "mouse position"),
    ("qwen2.5-vl", "<tool_call>{not json</tool_call>", "not valid JSON"),
    ("qwen2.5-vl", '[{"bbox_2d": [1, 2, 3, 4]}, {"bbox_2d": [50, 60, 70, 80]}]', "2 different elements"),
    ("qwen2.5-vl", '{"label": "x"}', "no bbox_2d or point_2d"),
    ("gui-agent", "I think we are done here.", "no action"),
    ("gui-agent", 'Action: click("OK", button="side")', "button must be one of"),
    ("gui-agent", "Action: frobnicate(1)", "unknown action 'frobnicate'"),
]


@pytest.mark.parametrize(("adapter", "text", "message"), MALFORMED,
                         ids=[f"{m[0]}-{i}" for i, m in enumerate(MALFORMED)])
def test_malformed_reply_raises_model_reply_error(adapter, text, message):
    frame = ImageFrame(1000, 1000, 1000, 1000, default_convention(
        {"ui-tars": "ui-tars-1.5", "grounding-point": "uground"}.get(adapter, adapter)))
    with pytest.raises(ModelReplyError) as info:
        get_adapter(adapter).parse(text, frame)
    assert message in str(info.value)
    assert isinstance(info.value, PlanningError)


def test_registry_names_and_errors():
    assert set(ADAPTER_NAMES) == {"ui-tars", "showui", "grounding-point", "qwen2.5-vl", "gui-agent"}
    for name in ADAPTER_NAMES:
        adapter = get_adapter(name)
        assert adapter.name == name and adapter.format_reminder
    assert get_adapter(" UI-TARS ").name == "ui-tars"
    assert get_adapter("uground").name == get_adapter("os-atlas").name == "grounding-point"
    assert get_adapter("ui-tars-1.5").name == "ui-tars"
    with pytest.raises(ConfigError, match="known: ui-tars"):
        get_adapter("gpt-4")
    assert default_convention("ui-tars-1.0") == "relative-1000"
    assert default_convention("ui-tars-1.5") == "absolute-resized"
    with pytest.raises(ConfigError):
        default_convention("llava")


# ---- arbitrary text never raises anything but ModelReplyError ----------------------------
FRAGMENTS = [
    "Thought:", "Action:", "Action：", "Reflection:", "click(", "type(", "drag(", "scroll(", "hotkey(",
    "finished(", "start_box=", "end_box=", "content=", "key=", "direction=", "point=", "'", '"', "\\",
    "(", ")", "（", "）", "[", "]", "{", "}", ",", "，", "\n", "\n\n", " ", "<|box_start|>", "<|box_end|>",
    "<point>", "</point>", "<bbox>", "</bbox>", "<tool_call>", "</tool_call>", "```json\n", "```",
    "'action': ", "'position': ", "'value': ", "None", "null", "CLICK", "INPUT", "SCROLL", '"action": ',
    '"coordinate": ', '"arguments": ', "left_click", "left_click_drag", "bbox_2d", "point_2d", ":",
    "0", "1", "0.5", "500", "1000", "-3", "1e400", "nan", "inf", "down", "ctrl c", "=", "done(", "fail(",
]
_text = st.one_of(
    st.text(max_size=200),
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=40).map("".join),
)
_frames = st.builds(
    ImageFrame, st.integers(1, 4000), st.integers(1, 4000), st.integers(1, 4000), st.integers(1, 4000),
    st.sampled_from(["absolute-resized", "relative-1000", "relative-1", "absolute"]),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ADAPTER_NAMES), _text, st.one_of(_frames, st.none()))
def test_arbitrary_text_raises_only_model_reply_error(adapter, text, frame):
    try:
        reply = get_adapter(adapter).parse(text, frame)
    except ModelReplyError as exc:
        assert str(exc)
        return
    assert reply.actions and reply.raw == text
    for action in reply.actions:
        if frame is None:
            continue
        for value in (action.target, getattr(action, "destination", None)):
            if isinstance(value, Point):
                assert 0 <= value.x < frame.image_width and 0 <= value.y < frame.image_height
