"""The tool-calling agent speaks Qwen2.5-VL's computer_use protocol."""

from __future__ import annotations

import json

from PIL import Image

from gui_agent import Engine
from gui_agent.backends.protocol import tool_system_prompt
from gui_agent.backends.registry import get_family
from gui_agent.config import Settings
from gui_agent.desktop import StillDesktop
from gui_agent.geometry import Point
from gui_agent.grounding.ladder import GroundingLadder
from gui_agent.planner.tool_agent import tool_agent_planner
from gui_agent.screen.observation import MonitorGeometry, Observation
from tests.support.scripted_backend import ScriptedBackend

FAMILY = get_family("qwen2.5-vl")
SIZE = (1280, 800)


def call(**arguments) -> str:
    return f'<tool_call>\n{json.dumps({"name": "computer_use", "arguments": arguments})}\n</tool_call>'


def run(replies, tmp_path):
    backend = ScriptedBackend(replies)
    obs = Observation(Image.new("RGB", SIZE, "white"), MonitorGeometry(0, 0, *SIZE, 1.0, 1))
    engine = Engine(StillDesktop(obs), tool_agent_planner(backend, FAMILY),
                    settings=Settings(runs_dir=tmp_path), ladder=GroundingLadder([]), parser=None,
                    live=False)
    return engine.run("sign in as ann"), backend, engine


def test_each_request_carries_the_tool_and_the_screenshot_before_the_task(tmp_path):
    w, h = FAMILY.budget.resized_size(*SIZE)
    result, backend, engine = run([
        call(action="left_click", coordinate=[w // 2, h // 4]),
        call(action="type", text="ann"),
        call(action="key", keys=["enter"]),
        "I am done." + call(action="terminate", status="success"),
    ], tmp_path)
    assert result.outcome == "done", result.reason
    assert [s.action for s in result.steps] == [
        "click((640, 200))", "type('ann')", "hotkey('enter')"]
    assert engine.desktop.controller.calls("click")[0].params["point"] == Point(640, 200)
    for request in backend.requests:
        system, first = request.messages[0], request.messages[1]
        assert system.role == "system" and system.content == (tool_system_prompt(FAMILY, w, h),)
        assert '"name": "computer_use"' in system.content[0]
        assert first.role == "user" and first.content[-1] == "sign in as ann"
    opening = backend.requests[0].messages[1].content
    assert isinstance(opening[0], Image.Image) and opening[0].size == (w, h)   # image first
    last = backend.requests[-1].messages
    assert [m.role for m in last[2:]] == ["assistant", "user", "assistant", "user", "assistant",
                                          "user"]
    assert last[2].content == (call(action="left_click", coordinate=[w // 2, h // 4]),)
    assert sum(len(m.images) for m in last) == FAMILY.max_images


def test_terminate_with_failure_fails_and_a_reply_without_a_tool_call_is_asked_again(tmp_path):
    result, backend, _ = run(["The login form is visible.",
                              call(action="terminate", status="failure")], tmp_path)
    assert result.outcome == "failed" and "failure" in result.reason
    assert "no computer_use tool call" in backend.requests[1].text   # the reminder
