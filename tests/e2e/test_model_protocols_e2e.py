"""End to end in each model's own protocol: a scripted chat-completions server answers in the
family's real format, from the playground's live targets, and the agent does real tasks with
real input under Xvfb (sign in, add an item). Each run is judged on the app's state; each
request the server got is checked against the family's protocol.

- UI-TARS-1.5 as a native agent: the package's prompt, its Thought/Action turns, at most 5
  screenshots, the <point> and <|box_start|> forms, call_user answered, finished.
- Qwen2.5-VL as a tool-calling agent: the computer_use tool in the system turn, the screenshot
  before the task, left_click, type, key and terminate.
- A text-only planner model + a UI-TARS worker + a UGround grounder (Agent S2's trio): the
  planner's subtasks go to UI-TARS; its action-text subtask is grounded by UGround, asked with
  the screenshot first in its card's words.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from gui_agent import AgentHooks, Engine
from gui_agent.backends.coordinates import ImageFrame
from gui_agent.backends.protocol import agent_prompt, tool_system_prompt
from gui_agent.backends.registry import get_family
from gui_agent.config import Settings
from gui_agent.playground.state import find_target, target_center
from tests.support.scripted_chat_server import (
    ScriptedChatServer,
    image_count,
    image_size,
    parts,
    texts,
)

pytestmark = pytest.mark.e2e("xvfb", "input", "qt")
SCREEN = (1280, 800)   # the session Xvfb; the playground at (0, 0): screen = image pixels
SIGN_IN_AND_ADD = 'sign in as ann with the password "pw1234", then add Dates to the shopping list'


@contextlib.contextmanager
def playground(tmp_path: Path):
    from gui_agent.playground import launch_playground

    with launch_playground(tmp_path / "state.json", save_dir=tmp_path / "files") as app:
        app.wait_ready()
        yield app


@pytest.fixture(scope="module")
def parser():
    from gui_agent.parsing.screen_parser import ScreenParser

    return ScreenParser()


def settle(app) -> dict:
    with contextlib.suppress(Exception):
        app.wait_for(lambda s: True, timeout=0.5)
    return app.state()


def engine(settings: Settings, parser, hooks: AgentHooks | None = None) -> Engine:
    """The engine the settings give (the mode, the backends, the ladder), on the live screen."""
    from gui_agent.control.pyautogui_controller import PyAutoGuiController
    from gui_agent.desktop import LiveDesktop

    return Engine.from_settings(settings, LiveDesktop(PyAutoGuiController(), 1), hooks=hooks,
                                parser=parser, use_memory=False)


def base(tmp_path: Path, server: ScriptedChatServer, **models) -> Settings:
    return Settings(safety="refuse", max_steps=25, max_seconds=150, runs_dir=tmp_path / "runs",
                    base_url=server.url, use_memory=False, **models)


class Script:
    """Replies in order; each one a text or a function of the app's state (its targets)."""

    def __init__(self, app, frame: ImageFrame, replies) -> None:
        self.app, self.frame, self.replies = app, frame, list(replies)

    def where(self, text: str, kind: str) -> tuple[int, int]:
        x, y = target_center(find_target(self.app.state()["targets"], text, kind))
        mx, my = self.frame.from_image(x, y)
        return int(mx), int(my)

    def __call__(self, body: dict) -> str:
        reply = self.replies.pop(0)
        return reply(self) if callable(reply) else reply


def ui_tars_click(text: str, kind: str, form: str):
    def reply(s: Script) -> str:
        x, y = s.where(text, kind)
        where = {"point": f"point='<point>{x} {y}</point>'",
                 "box": f"start_box='<|box_start|>({x},{y})<|box_end|>'",
                 "plain": f"start_box='({x},{y})'"}[form]
        return f"Thought: I click the {text} {kind}.\nAction: click({where})"
    return reply


def check_ui_tars_requests(bodies: list[dict], instructions: list[str], frame: ImageFrame) -> None:
    family = get_family("ui-tars-1.5")
    for body in bodies:
        first = body["messages"][0]
        assert first["role"] == "user" and isinstance(first["content"], str)
        assert first["content"] in [agent_prompt(family, i) for i in instructions]
        assert "numbered list" not in texts(body)
        assert 1 <= image_count(body) <= 5
        for m in body["messages"][1:]:
            if m["role"] == "user" and image_count({"messages": [m]}):
                (part,) = parts(m)
                assert image_size(part) == (frame.model_width, frame.model_height)
        assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.0, 0.7, 1000)


def test_ui_tars_as_a_native_agent_signs_in_and_adds_an_item(xvfb, tmp_path, parser):
    family = get_family("ui-tars-1.5")
    frame = ImageFrame.for_budget(*SCREEN, family.budget, family.coordinates)
    asked: list[str] = []
    with playground(tmp_path) as app:
        script = Script(app, frame, [
            ui_tars_click("Username", "field", "point"),
            "Thought: type the user name.\nAction: type(content='ann')",
            ui_tars_click("Password", "field", "box"),
            "Thought: the password, then Enter.\nAction: type(content='pw1234\\n')",
            "Thought: Which item should I add to the list?\nAction: call_user()",
            ui_tars_click("Items", "tab", "plain"),
            ui_tars_click("New item", "field", "point"),
            "Thought: the item.\nAction: type(content='Dates')",
            ui_tars_click("Add", "button", "box"),
            "Thought: Dates is in the list.\nAction: finished(content='Dates added')",
        ])
        with ScriptedChatServer({"ui-tars": script}) as server:
            settings = base(tmp_path, server, model="ui-tars", family="ui-tars-1.5")
            hooks = AgentHooks(ask_user=lambda q: asked.append(q) or "Dates, please")
            with engine(settings, parser, hooks) as agent:
                result = agent.run(SIGN_IN_AND_ADD)
            state = settle(app)
    steps = "\n".join(s.describe() for s in result.steps)
    assert server.errors == [] and script.replies == []
    assert result.outcome == "done" and result.answer == "Dates added", f"{result.reason}\n{steps}"
    assert state["login"]["logged_in_as"] == "ann", steps
    assert state["items"]["list"][-1:] == ["Dates"], steps
    assert asked == ["Which item should I add to the list?"]
    bodies = server.requests["ui-tars"]
    check_ui_tars_requests(bodies, [SIGN_IN_AND_ADD], frame)
    step3 = bodies[2]["messages"]
    assert [(m["role"], image_count({"messages": [m]})) for m in step3] == [
        ("user", 0), ("user", 1), ("assistant", 0), ("user", 1), ("assistant", 0), ("user", 1)]
    assert step3[2]["content"].startswith("Thought: I click the Username field.")
    last = bodies[-1]["messages"]
    assert image_count(bodies[-1]) == 5 and sum(m["role"] == "assistant" for m in last) == 9
    assert {"role": "user", "content": "Dates, please"} in last


def test_qwen25_vl_through_its_computer_use_tool_signs_in_and_adds_an_item(xvfb, tmp_path, parser):
    family = get_family("qwen2.5-vl")
    frame = ImageFrame.for_budget(*SCREEN, family.budget, family.coordinates)

    def tool(action: str, **args):
        def reply(s: Script) -> str:
            if "target" in args:
                args["coordinate"] = list(s.where(*args.pop("target")))
            call = {"name": "computer_use", "arguments": {"action": action, **args}}
            return f"<tool_call>\n{json.dumps(call)}\n</tool_call>"
        return reply

    with playground(tmp_path) as app:
        script = Script(app, frame, [
            tool("left_click", target=("Username", "field")),
            tool("type", text="ann"),
            tool("left_click", target=("Password", "field")),
            tool("type", text="pw1234"),
            tool("key", keys=["enter"]),
            tool("left_click", target=("Items", "tab")),
            tool("left_click", target=("New item", "field")),
            tool("type", text="Dates"),
            tool("key", keys=["enter"]),
            tool("terminate", status="success"),
        ])
        with ScriptedChatServer({"qwen": script}) as server:
            settings = base(tmp_path, server, model="qwen", family="qwen2.5-vl")
            with engine(settings, parser) as agent:
                result = agent.run(SIGN_IN_AND_ADD)
            state = settle(app)
    steps = "\n".join(s.describe() for s in result.steps)
    assert server.errors == [] and script.replies == []
    assert result.outcome == "done", f"{result.reason}\n{steps}"
    assert state["login"]["logged_in_as"] == "ann", steps
    assert state["items"]["list"][-1:] == ["Dates"], steps
    system = tool_system_prompt(family, frame.model_width, frame.model_height)
    for body in server.requests["qwen"]:
        messages = body["messages"]
        assert messages[0] == {"role": "system", "content": system}
        assert f"The screen's resolution is {frame.model_width}x{frame.model_height}." in system
        first = parts(messages[1])
        assert first[-1] == {"type": "text", "text": SIGN_IN_AND_ADD}
        assert 1 <= image_count(body) <= family.max_images
    opening = parts(server.requests["qwen"][0]["messages"][1])
    assert [p["type"] for p in opening] == ["image_url", "text"]     # the screenshot first
    assert image_size(opening[0]) == (frame.model_width, frame.model_height)


def test_a_planner_a_ui_tars_worker_and_a_uground_grounder_work_together(xvfb, tmp_path, parser):
    worker_family, pointer = get_family("ui-tars-1.5"), get_family("uground")
    frame = ImageFrame.for_budget(*SCREEN, worker_family.budget, worker_family.coordinates)
    point_frame = ImageFrame.for_budget(*SCREEN, pointer.budget, pointer.coordinates)
    sign_in = "Sign in as ann with the password pw1234"
    add = "Open the Items tab and type Dates into the New item field"
    confirm = 'click("the button that appends the entry")'
    with playground(tmp_path) as app:
        planner = Script(app, frame, [f"1. {sign_in}\n2. {add}", f"1. {add}\n2. {confirm}",
                                      f"1. {confirm}"])
        worker = Script(app, frame, [
            ui_tars_click("Username", "field", "point"),
            "Thought: the name.\nAction: type(content='ann')",
            ui_tars_click("Password", "field", "point"),
            "Thought: the password.\nAction: type(content='pw1234\\n')",
            "Thought: signed in.\nAction: finished(content='')",
            ui_tars_click("Items", "tab", "box"),
            ui_tars_click("New item", "field", "box"),
            "Thought: the item.\nAction: type(content='Dates')",
            "Thought: typed.\nAction: finished(content='')",
        ])
        grounder = Script(app, point_frame, [lambda s: "({}, {})".format(*s.where("Add", "button"))])
        with ScriptedChatServer({"planner": planner, "ui-tars": worker, "uground": grounder}) as server:
            settings = base(tmp_path, server, model="ui-tars", family="ui-tars-1.5",
                            planner_model="planner", planner_family="chat",
                            planner_base_url=server.url, grounding_model="uground",
                            grounding_family="uground")
            with engine(settings, parser) as agent:
                result = agent.run(SIGN_IN_AND_ADD)
            state = settle(app)
    steps = "\n".join(s.describe() for s in result.steps)
    assert server.errors == []
    assert (planner.replies, worker.replies, grounder.replies) == ([], [], [])
    assert result.outcome == "done", f"{result.reason}\n{steps}"
    assert state["login"]["logged_in_as"] == "ann", steps
    assert state["items"]["list"][-1:] == ["Dates"], steps
    assert result.steps[-1].source == "vlm", steps              # the grounder found "Add"
    for body in server.requests["planner"]:                     # a text-only planner
        assert image_count(body) == 0 and "numbered list" in texts(body)
    check_ui_tars_requests(server.requests["ui-tars"], [sign_in, add], frame)
    (ask,) = server.requests["uground"]
    (message,) = ask["messages"]
    image, text = parts(message)
    assert image["type"] == "image_url" and image_size(image) == (
        point_frame.model_width, point_frame.model_height)
    assert text["text"].startswith("Your task is to help the user identify the precise "
                                   "coordinates (x, y)")
    assert "Description: the button that appends the entry\n\nAnswer:" in text["text"]
