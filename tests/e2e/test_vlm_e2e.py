"""End to end: the VLM planner drives the real playground app under Xvfb with real input.

The "model" is scripted: its replies are written at request time from the playground's own
``targets`` (the true screen boxes of its controls), in UI-TARS format (a native agent:
coordinates in the resized image the model was shown) or in gui-agent's canonical format (descriptions, grounded
by the real OCR ladder). The app's state, not the agent's belief, decides. The last test runs
the real transformers backend on a tiny random model: its garbage replies must end the run
with a clear error.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from gui_agent import Engine
from gui_agent.backends.coordinates import ImageFrame
from gui_agent.backends.registry import get_family
from gui_agent.config import Settings
from gui_agent.grounding.ladder import GroundingLadder
from gui_agent.planner.native_agent import native_agent_planner
from gui_agent.planner.vlm import vlm_planner
from gui_agent.playground.state import find_target, target_center
from tests.support.scripted_backend import ScriptedBackend
from tests.support.vlm_fixtures import tiny_vlm_dir  # noqa: F401

pytestmark = pytest.mark.e2e("xvfb", "input", "qt")
SCREEN = (1280, 800)  # the session Xvfb; the playground sits at (0, 0), so screen = image pixels


@contextlib.contextmanager
def playground(tmp_path: Path):
    from gui_agent.playground import launch_playground

    with launch_playground(tmp_path / "state.json", save_dir=tmp_path / "files") as app:
        app.wait_ready()
        yield app


def live_agent(planner, tmp_path: Path, max_steps: int = 12, **kwargs) -> Engine:
    from gui_agent.control.pyautogui_controller import PyAutoGuiController
    from gui_agent.desktop import LiveDesktop

    settings = Settings(safety="refuse", max_steps=max_steps, max_seconds=90, runs_dir=tmp_path / "runs")
    return Engine(LiveDesktop(PyAutoGuiController(), 1), planner, settings=settings, **kwargs)


def final_state(app) -> dict:
    with contextlib.suppress(Exception):
        app.wait_for(lambda s: True, timeout=0.5)
    return app.state()


def test_ui_tars_replies_with_coordinates_add_an_item(xvfb, tmp_path):
    family = get_family("ui-tars-1.5")
    frame = ImageFrame.for_budget(*SCREEN, family.budget, family.coordinates)
    with playground(tmp_path) as app:

        def click(text: str, kind: str):
            def reply(messages) -> str:
                x, y = target_center(find_target(app.state()["targets"], text, kind))
                mx, my = frame.from_image(x, y)
                return f"Thought: I click {text}.\nAction: click(start_box='<|box_start|>({mx:g},{my:g})<|box_end|>')"
            return reply

        backend = ScriptedBackend([      # UI-TARS as a native agent: no plan is asked of it
            click("Items", "tab"),
            click("New item", "field"),
            "Thought: the field has focus.\nAction: type(content='Dates')",
            click("Add", "button"),
            "Thought: Dates is in the list.\nAction: finished(content='added')",
        ])
        agent = live_agent(native_agent_planner(backend, family), tmp_path,
                           ladder=GroundingLadder([]), parser=None)
        result = agent.run("add Dates to the shopping list")
        state = final_state(app)
    steps = "\n".join(s.describe() for s in result.steps)
    assert result.outcome == "done", f"{result.reason}\n{steps}"
    assert result.answer == "added"
    assert state["items"]["list"][-1:] == ["Dates"], steps
    # the model saw the budget's image, not the raw screenshot
    assert backend.requests[0].images[0].size == (frame.model_width, frame.model_height)
    assert backend.remaining == 0


@pytest.fixture(scope="module")
def parser():
    from gui_agent.parsing.screen_parser import ScreenParser

    return ScreenParser()


def test_canonical_replies_with_descriptions_are_grounded_on_the_real_screen(xvfb, tmp_path, parser):
    from gui_agent.grounding.default import default_ladder

    family = get_family("gui-agent")
    backend = ScriptedBackend([
        "1. Sign in as ann",
        'Thought: the form is visible.\ntype("ann", into="the Username field")',
        'type("pw1234", into="the Password field")',
        'click("Log in")',
        "done()",
    ])
    ladder, parser = default_ladder(parser)
    with playground(tmp_path) as app:
        agent = live_agent(vlm_planner(backend, family), tmp_path, ladder=ladder, parser=parser)
        result = agent.run('sign in as ann with the password "pw1234"')
        state = final_state(app)
    steps = "\n".join(s.describe() for s in result.steps)
    assert result.outcome == "done", f"{result.reason}\n{steps}"
    assert state["login"]["logged_in_as"] == "ann" and state["login"]["password_length"] == 6, steps
    # descriptions, grounded by the screen parser's rung (not points passed through)
    assert all(s.source not in (None, "point") for s in result.steps), steps


def test_a_tiny_random_model_ends_the_run_with_a_clear_error(xvfb, tmp_path, tiny_vlm_dir):  # noqa: F811
    from dataclasses import replace

    from gui_agent.backends.base import GenerationSettings
    from gui_agent.backends.transformers_backend import TransformersBackend

    # UI-TARS's prompt and parser, a small image budget and short replies: a CPU-fast step
    family = replace(get_family("ui-tars-1.5"), max_pixels=256 * 28 * 28,
                     generation=GenerationSettings(max_new_tokens=24))
    model = TransformersBackend(str(tiny_vlm_dir), family, device="cpu")
    with playground(tmp_path) as app:
        agent = live_agent(native_agent_planner(model, family), tmp_path,
                           ladder=GroundingLadder([]), parser=None)
        result = agent.run("log in")
        state = final_state(app)
    assert result.outcome == "error", result.reason
    assert "could not be read, even after a reminder" in result.reason
    assert "The reply began:" in result.reason
    assert result.steps == () and state["login"]["logged_in_as"] in (None, "")


def test_replanning_reflection_and_a_question_on_the_real_app(xvfb, tmp_path, parser):
    """A failed subtask is re-planned, a repeated no-op gets a reflection, the model asks the
    person, and the task still ends in the right app state."""
    from gui_agent import AgentHooks
    from gui_agent.grounding.default import default_ladder

    backend = ScriptedBackend([
        "1. Open the Reports tab",                     # the manager's first plan
        'click("Reports")',                            # not on the screen: the step fails
        'fail("there is no Reports tab")',
        "1. Open the Contacts tab\n2. Edit Bob",       # re-plan after the failure
        'click("Contacts")',
        "done()",
        "1. Edit Bob",                                 # re-plan after the finished subtask
        'click("Address book")',                       # a heading: nothing changes
        'click("Address book")',                       # the same again: reflection follows
        'ask_user("Which contact should I edit?")',    # the answer to the reflection
        'click("the Edit button next to Bob")',
        "done()",
    ])
    questions: list[str] = []
    hooks = AgentHooks(ask_user=lambda q: questions.append(q) or "Bob")
    ladder, parser = default_ladder(parser)
    with playground(tmp_path) as app:
        agent = live_agent(vlm_planner(backend, get_family("gui-agent")), tmp_path,
                           ladder=ladder, parser=parser, hooks=hooks)
        result = agent.run("edit Bob's contact")
        state = final_state(app)
    steps = "\n".join(s.describe() for s in result.steps)
    assert result.outcome == "done", f"{result.reason}\n{steps}"
    assert (state["contacts"]["last_edit"] or {}).get("name") == "Bob", steps
    assert [s.outcome for s in result.steps][0] == "failed"
    assert questions == ["Which contact should I edit?"]
    assert any("FAILED" in r.text for r in backend.requests), "the re-plan was told of the failure"
    assert backend.remaining == 0


def test_the_step_limit_stops_a_model_that_never_finishes(xvfb, tmp_path, parser):
    from gui_agent.grounding.default import default_ladder

    tabs = ["Items", "Contacts", "Login", "Settings"] * 3
    backend = ScriptedBackend(["1. Look around", *[f'click("{t}")' for t in tabs]])
    ladder, parser = default_ladder(parser)
    with playground(tmp_path) as app:
        agent = live_agent(vlm_planner(backend, get_family("gui-agent")), tmp_path, max_steps=4,
                           ladder=ladder, parser=parser)
        result = agent.run("look around the app")
        state = final_state(app)
    assert result.outcome == "failed" and "step limit" in result.reason
    assert len(result.steps) == 4
    assert state["current_tab"] == "Settings"  # the four clicks happened, the fifth did not
