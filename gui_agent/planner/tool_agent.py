"""A tool-calling agent: a general VLM (Qwen2.5-VL-Instruct) acting through ``computer_use``.

The conversation is the Qwen2.5-VL computer-use cookbook's: a system turn with "You are a
helpful assistant." and the ``computer_use`` tool as Qwen-Agent's function-calling prompt
writes it (the screen's resolution in it is the size of the image the model is shown), then a
user turn with the screenshot and the task; each later step a user turn with the screenshot
and an assistant turn with the model's reply, ``<tool_call>{"name": "computer_use",
"arguments": {...}}</tool_call>``. Coordinates are pixels of the image shown. The whole action
space is read (key, type, mouse_move, left_click, left_click_drag, right/middle/double_click,
scroll, wait, terminate, and answer).
"""

from __future__ import annotations

from PIL import Image

from ..backends.adapters import get_adapter
from ..backends.base import Backend, GenerationSettings, Message
from ..backends.images import ImageBudget
from ..backends.protocol import tool_system_prompt
from ..backends.registry import ModelFamily
from ..deadline import Deadline
from ..errors import PlanningError
from .asking import preview
from .base import Planner
from .conversation import ConversationWorker
from .native_agent import SingleTaskManager
from .vlm import RunContext


class ToolAgentWorker(ConversationWorker):
    """Qwen2.5-VL's computer_use turns (module doc)."""

    kind = "tool-agent"

    def opening(self, instruction: str, image: Image.Image) -> list[Message]:
        system = tool_system_prompt(self.family, image.width, image.height)
        return [Message.text("system", system), Message("user", (image, instruction))]

    def check(self, text: str) -> None:
        if "<tool_call>" not in text:
            raise PlanningError(f"no computer_use tool call in the reply {preview(text, 80)}")


def tool_agent_worker(backend: Backend, family: ModelFamily, *, budget: ImageBudget | None = None,
                      generation: GenerationSettings | None = None,
                      context: RunContext | None = None,
                      deadline: Deadline | None = None) -> ToolAgentWorker:
    return ToolAgentWorker(backend, family, get_adapter(family.parser), budget=budget,
                           generation=generation, context=context, deadline=deadline)


def tool_agent_planner(backend: Backend, family: ModelFamily, *, budget: ImageBudget | None = None,
                       generation: GenerationSettings | None = None,
                       deadline: Deadline | None = None) -> Planner:
    """The whole task handed to a tool-calling agent."""
    worker = tool_agent_worker(backend, family, budget=budget, generation=generation,
                               deadline=deadline)
    return Planner(f"tool:{family.name}", SingleTaskManager(), worker)
