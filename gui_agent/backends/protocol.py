"""What each model family is sent, in its makers' words and layout.

- :func:`agent_prompt`: a native agent's prompt turn (UI-TARS: the ``ui-tars`` package's template
  filled by its own placeholders, ``{language}`` and ``{instruction}``).
- :func:`tool_system_prompt`: a tool-calling agent's system turn (Qwen2.5-VL: the cookbook's
  ``computer_use`` tool rendered as Qwen-Agent's function-calling prompt renders it).
- :func:`grounding_messages`: one grounding question, laid out as the family's model card
  does (the screenshot first for UGround and OS-Atlas, ShowUI's sentence around it, ...).

Prompts are data (``prompts/SOURCES.md``); only ``{name}`` fields are filled, so a JSON example
in a prompt is never touched and a rendered prompt has no ``{{`` and no unfilled field.
"""

from __future__ import annotations

import json
from functools import lru_cache

from PIL import Image

from ..errors import ConfigError
from .base import Message
from .registry import ModelFamily, fill, load_prompt_source

SYSTEM_FILE = "qwen2.5-vl-system.txt"
FUNCTION_CALLING_FILE = "qwen-function-calling.txt"


def agent_prompt(family: ModelFamily, instruction: str) -> str:
    """The text of a native agent's first user turn for ``instruction``."""
    return fill(family.load_agent_prompt(), instruction=instruction, language=family.language)


@lru_cache(maxsize=8)
def _tool(source: str) -> dict[str, object]:
    try:
        tool = json.loads(load_prompt_source(source))
    except ValueError as exc:
        raise ConfigError(f"the tool description {source} is not valid JSON ({exc}); "
                          "reinstall gui-agent") from exc
    if not isinstance(tool, dict) or not isinstance(tool.get("description"), str):
        raise ConfigError(f"the tool description {source} has no description")
    return tool


def tool_function(source: str, width: int, height: int) -> dict[str, object]:
    """The tool's function entry with the screen size the model sees filled in."""
    tool = dict(_tool(source))
    tool["description"] = fill(str(tool["description"]), display_width_px=width,
                               display_height_px=height)
    return tool


def tool_system_prompt(family: ModelFamily, width: int, height: int, *,
                       source: str | None = None) -> str:
    """The system turn of a tool-calling agent shown a ``width`` x ``height`` image:
    "You are a helpful assistant." then, after a blank line, the function-calling prompt
    with the tool as one JSON line (as Qwen-Agent's ``NousFnCallPrompt`` writes it)."""
    function = tool_function(source or family.agent_prompt or family.prompt, width, height)
    descs = json.dumps({"type": "function", "function": function}, ensure_ascii=False)
    system = load_prompt_source(SYSTEM_FILE).strip()
    return system + "\n\n" + fill(load_prompt_source(FUNCTION_CALLING_FILE), tool_descs=descs)


def grounding_text(family: ModelFamily, description: str, size: tuple[int, int]) -> str:
    """The grounding prompt for ``description`` on an image of ``size`` (gui-agent's own action
    prompt asks for a click)."""
    instruction = f"Click on {description}." if family.parser == "gui-agent" else description
    return fill(family.load_prompt(), instruction=instruction, language=family.language,
                width=size[0], height=size[1])


def grounding_messages(family: ModelFamily, image: Image.Image, description: str) -> list[Message]:
    """One grounding question about ``image`` (already resized to the family's budget)."""
    layout = family.grounding_layout
    if layout == "tool-call":
        system = tool_system_prompt(family, image.width, image.height, source=family.prompt)
        return [Message.text("system", system), Message("user", (image, description))]
    text = grounding_text(family, description, image.size)
    if layout == "text-image-query":
        return [Message("user", (text, image, description))]
    if layout == "prompt-then-image":
        return [Message.text("user", text), Message("user", (image,))]
    return [Message("user", (image, text))]
