"""The native agent speaks UI-TARS's trained protocol (checked on every request it sends)."""

from __future__ import annotations

from PIL import Image, ImageDraw

from gui_agent import AgentHooks, Engine
from gui_agent.actions import AskUser, Click, Done, Hotkey, Type
from gui_agent.backends.coordinates import ImageFrame
from gui_agent.backends.protocol import agent_prompt
from gui_agent.backends.registry import get_family
from gui_agent.config import Settings
from gui_agent.desktop import StillDesktop
from gui_agent.geometry import Point
from gui_agent.grounding.ladder import GroundingLadder
from gui_agent.planner.base import StepRecord, Subtask
from gui_agent.planner.conversation import image_window
from gui_agent.planner.native_agent import native_agent_planner, native_agent_worker
from gui_agent.screen.observation import MonitorGeometry, Observation
from tests.support.scripted_backend import ScriptedBackend

FAMILY = get_family("ui-tars-1.5")
SIZE = (1280, 800)


def screen() -> Observation:
    image = Image.new("RGB", SIZE, "white")
    ImageDraw.Draw(image).rectangle((100, 100, 300, 140), fill="blue")
    return Observation(image, MonitorGeometry(0, 0, *SIZE, 1.0, 1))


def run(replies, tmp_path, hooks=None, max_steps=20):
    backend = ScriptedBackend(replies)
    engine = Engine(StillDesktop(screen()), native_agent_planner(backend, FAMILY),
                    settings=Settings(runs_dir=tmp_path, max_steps=max_steps),
                    ladder=GroundingLadder([]), parser=None, hooks=hooks, live=False)
    return engine.run("add Dates to the list"), backend, engine


def model_point(x: int, y: int) -> tuple[float, float]:
    frame = ImageFrame.for_budget(*SIZE, FAMILY.budget, FAMILY.coordinates)
    return frame.from_image(x, y)


def test_the_task_is_the_instruction_and_no_plan_is_ever_asked(tmp_path):
    mx, my = model_point(200, 120)
    result, backend, engine = run([
        f"Thought: the field.\nAction: click(point='<point>{mx:g} {my:g}</point>')",
        "Thought: finished.\nAction: finished(content='added')",
    ], tmp_path)
    assert result.outcome == "done" and result.answer == "added"
    assert engine.desktop.controller.calls("click")[0].params["point"] == Point(200, 120)
    first = backend.requests[0].messages
    assert first[0].role == "user" and first[0].content == (
        agent_prompt(FAMILY, "add Dates to the list"),)
    assert first[1].role == "user" and len(first[1].images) == 1 and len(first[1].content) == 1
    assert all("numbered list" not in r.text for r in backend.requests)


def test_step_three_has_the_trained_layout_and_the_window_keeps_five_images(tmp_path):
    mx, my = model_point(200, 120)
    click = f"Action: click(start_box='<|box_start|>({mx:g},{my:g})<|box_end|>')"
    replies = [f"Reflection: try again.\nAction_Summary: step {i}.\n{click}" for i in range(7)]
    result, backend, _ = run([*replies, "Thought: ok.\nAction: finished(content='')"], tmp_path)
    assert result.outcome == "done", result.reason
    step3 = backend.requests[2].messages
    roles = [(m.role, "image" if m.images else "text") for m in step3]
    assert roles == [("user", "text"), ("user", "image"), ("assistant", "text"),
                     ("user", "image"), ("assistant", "text"), ("user", "image")]
    # its own turns come back as it wrote them, the Reflection dropped (as UI-TARS-desktop does)
    assert step3[2].content == (f"Action_Summary: step 0.\n{click}",)
    frame = ImageFrame.for_budget(*SIZE, FAMILY.budget, FAMILY.coordinates)
    assert step3[1].images[0].size == (frame.model_width, frame.model_height)
    for request in backend.requests:
        assert sum(len(m.images) for m in request.messages) <= 5
        assert request.messages[0].content[0] == agent_prompt(FAMILY, "add Dates to the list")
        assert request.settings == FAMILY.generation
    last = backend.requests[-1].messages
    assert sum(len(m.images) for m in last) == 5
    assert sum(m.role == "assistant" for m in last) == 7      # every own turn is kept
    assert last[-1].images and last[-2].role == "assistant"


def test_call_user_asks_the_person_and_the_answer_joins_the_conversation(tmp_path):
    asked: list[str] = []
    hooks = AgentHooks(ask_user=lambda q: asked.append(q) or "use the name Dates")
    result, backend, _ = run([
        "Thought: Which item should I add?\nAction: call_user()",
        "Thought: typing it.\nAction: type(content='Dates\\n')",
        "Action: finished(content='done')",
    ], tmp_path, hooks=hooks)
    assert result.outcome == "done", result.reason
    assert asked == ["Which item should I add?"]
    after = backend.requests[1].messages
    assert [m.content for m in after if m.role == "user" and not m.images][-1] == (
        "use the name Dates",)
    assert result.steps[0].action == "type('Dates', enter=True)"


def test_several_actions_in_one_reply_run_one_by_one_without_asking_again():
    worker = native_agent_worker(ScriptedBackend([
        "Thought: two.\nAction: hotkey(key='ctrl a')\n\ntype(content='x')"]), FAMILY)
    obs, sub = screen(), Subtask("do it")
    first = worker.next_action(sub, obs, [])
    second = worker.next_action(sub, obs, [StepRecord(first, 0, True)])
    assert (first, second) == (Hotkey(("ctrl", "a")), Type("x"))
    assert len(worker.turns) == 3       # prompt, screenshot, one reply: asked once


def test_a_looping_step_or_two_failures_end_the_instruction_with_a_reason():
    worker = native_agent_worker(ScriptedBackend([
        "Action: click(start_box='(10,10)')", "Action: click(start_box='(20,20)')"]), FAMILY)
    obs, sub = screen(), Subtask("do it")
    a = worker.next_action(sub, obs, [])
    assert isinstance(a, Click)
    b = worker.next_action(sub, obs, [StepRecord(a, 0, False, "no effect after 2 tries")])
    failed = worker.next_action(sub, obs, [StepRecord(a, 0, False, "x"), StepRecord(b, 0, False, "y")])
    assert failed.reason == "y" and not isinstance(failed, Done | AskUser)


def test_the_image_window_drops_old_screenshots_and_empty_turns_only():
    from gui_agent.backends.base import Message

    img = Image.new("RGB", (28, 28))
    turns = [Message.text("user", "prompt"), Message("user", (img, "task")),
             Message.text("assistant", "a1"), Message("user", (img,)), Message.text("assistant", "a2"),
             Message("user", (img,))]
    kept = image_window(turns, 2)
    assert [m.content for m in kept] == [("prompt",), ("task",), ("a1",), (img,), ("a2",), (img,)]
