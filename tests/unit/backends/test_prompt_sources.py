"""Every prompt a family sends is its makers' (oracle: the ui-tars package) and fully rendered."""

from __future__ import annotations

import json

import pytest
from PIL import Image

from gui_agent.backends.protocol import (
    agent_prompt,
    grounding_messages,
    tool_function,
    tool_system_prompt,
)
from gui_agent.backends.registry import (
    load_prompt_source,
    load_registry,
    parse_registry,
    unfilled_fields,
)
from gui_agent.errors import ConfigError
from tests.support.requirements import require_module

TASK = 'Open the {Settings} tab and type "a\\b" {{literally}}'
IMAGE = Image.new("RGB", (1288, 812), "white")


def rendered(family) -> list[str]:
    """Every text a family's model can be sent (its agent prompt, its grounding request)."""
    texts = [p for m in grounding_messages(family, IMAGE, "the OK button") for p in m.content
             if isinstance(p, str)]
    if family.can("native-agent"):
        texts.append(agent_prompt(family, "add Dates to the list"))
    if family.can("tool-agent"):
        texts.append(tool_system_prompt(family, 1288, 812))
    return texts


@pytest.mark.parametrize("name", list(load_registry()))
def test_every_rendered_prompt_is_filled_and_has_no_doubled_braces(name):
    family = load_registry()[name]
    for text in rendered(family):
        assert "{{" not in text, text   # (JSON may close two objects at once: "}}")
        assert unfilled_fields(text) == [], text


def test_the_ui_tars_15_prompt_is_the_packages_template_filled_by_its_own_placeholders():
    prompt = require_module("ui_tars.prompt")
    family = load_registry()["ui-tars-1.5"]
    assert agent_prompt(family, TASK) == prompt.COMPUTER_USE_DOUBAO.format(
        language="English", instruction=TASK)
    (text_turn, image_turn) = grounding_messages(family, IMAGE, "the OK button")
    assert text_turn.content == (prompt.GROUNDING_DOUBAO.format(instruction="the OK button"),)
    assert image_turn.images == [IMAGE] and image_turn.role == "user"


def test_the_ui_tars_10_prompt_is_the_readme_template_plus_the_instruction():
    family = load_registry()["ui-tars-1.0"]
    text = agent_prompt(family, "search for today's weather")
    assert text.startswith("You are a GUI agent. You are given a task and your action history")
    assert "call_user() # Submit the task and call the user when the task is unsolvable" in text
    assert text.endswith("## User Instruction\nsearch for today's weather")


def test_the_qwen_system_turn_carries_the_computer_use_tool_as_qwen_agent_writes_it():
    family = load_registry()["qwen2.5-vl"]
    system = tool_system_prompt(family, 1288, 812)
    head, _, rest = system.partition("\n\n# Tools\n\nYou may call one or more functions")
    assert head == "You are a helpful assistant."
    tools = rest.split("<tools>\n", 1)[1].split("\n</tools>", 1)[0]
    assert "\n" not in tools                      # one JSON line per tool
    tool = json.loads(tools)
    assert tool["type"] == "function"
    function = tool["function"]
    assert list(function) == ["name_for_human", "name", "description", "parameters", "args_format"]
    assert function["name"] == "computer_use"
    assert "The screen's resolution is 1288x812." in function["description"]
    assert function["parameters"]["properties"]["action"]["enum"] == [
        "key", "type", "mouse_move", "left_click", "left_click_drag", "right_click",
        "middle_click", "double_click", "scroll", "wait", "terminate"]
    assert system.endswith('<tool_call>\n{"name": <function-name>, "arguments": '
                           '<args-json-object>}\n</tool_call>')
    assert tool_function(family.agent_prompt, 5, 7)["description"] != function["description"]


@pytest.mark.parametrize(("name", "first", "wording"), [
    ("uground", "image", "Your task is to help the user identify the precise coordinates (x, y)"),
    ("os-atlas", "image", 'In this UI screenshot, what is the position of the element '
                          'corresponding to the command "the OK button" (with bbox)?'),
    ("showui", "text", "Based on the screenshot of the page, I give a text description and you "
                       "give its corresponding location."),
    ("ui-tars-1.0", "image", "Output only the coordinate of one point in your response."),
])
def test_grounding_requests_follow_the_cards_layout_and_wording(name, first, wording):
    family = load_registry()[name]
    (message,) = grounding_messages(family, IMAGE, "the OK button")
    parts = message.content
    assert isinstance(parts[0], Image.Image) == (first == "image")
    assert any(isinstance(p, str) and wording in p for p in parts)
    if name == "showui":   # the card: _SYSTEM, the screenshot, the query
        assert parts[1] is IMAGE and parts[2] == "the OK button"
    if name == "uground":
        assert parts[1].endswith("Description: the OK button\n\nAnswer:")


def test_a_missing_prompt_package_or_file_is_named_with_the_fix():
    with pytest.raises(ConfigError, match="pip install 'no-such-pkg'"):
        load_prompt_source("package:no_such_pkg.prompt:X")
    with pytest.raises(ConfigError, match="no prompt template 'NOPE'"):
        load_prompt_source("package:json:NOPE")
    with pytest.raises(ConfigError, match="cannot be read"):
        load_prompt_source("missing-prompt.txt")
    family = parse_registry('[families.d]\nprompt = "gui-agent.txt"\nparser = "gui-agent"\n'
                            'coordinates = "absolute"\nmin_pixels = 1\nmax_pixels = 2\n')["d"]
    with pytest.raises(ConfigError, match="cannot act on its own"):
        family.load_agent_prompt()
