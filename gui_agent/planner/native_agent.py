"""A native agent: an end-to-end GUI model (UI-TARS) in the loop it was trained in.

The conversation is UI-TARS-desktop's: a first user turn with the official prompt (the
``ui-tars`` package's ``COMPUTER_USE_DOUBAO`` for 1.5, the README's computer prompt for 1.0)
and the instruction, then per step a user turn with the screenshot and an assistant turn with
the model's own ``Thought: ... Action: ...`` (its ``Reflection:`` dropped, as the desktop app
does), the last 5 screenshots kept. ``finished(content=...)`` ends the instruction with its
answer, ``call_user()`` asks the person, ``wait()`` waits; no plan is ever asked of the model.
"""

from __future__ import annotations

import re

from PIL import Image

from ..backends.adapters import ModelReply, get_adapter
from ..backends.base import Backend, GenerationSettings, Message
from ..backends.images import ImageBudget
from ..backends.protocol import agent_prompt
from ..backends.registry import ModelFamily
from ..deadline import Deadline
from ..screen.observation import Observation
from .base import Planner, Subtask
from .conversation import ConversationWorker
from .vlm import RunContext

_REFLECTION = re.compile(r"Reflection:.*?(?=Action_Summary:|Action:|\Z)", re.S)


def summary(reply: str) -> str:
    """The reply as the conversation keeps it: its ``Reflection:`` section removed."""
    return _REFLECTION.sub("", reply).strip()


class NativeAgentWorker(ConversationWorker):
    """UI-TARS's trained turns (module doc)."""

    kind = "native-agent"

    def opening(self, instruction: str, image: Image.Image) -> list[Message]:
        return [Message.text("user", agent_prompt(self.family, instruction)),
                Message("user", (image,))]

    def assistant_turn(self, reply: ModelReply) -> Message:
        return Message.text("assistant", summary(reply.raw))


class SingleTaskManager:
    """The Manager of a model that plans for itself: the task is its one instruction."""

    replans_after_success = False

    def plan(self, task: str, observation: Observation | None) -> list[Subtask]:
        return [Subtask(task)]

    def replan(self, task: str, observation: Observation | None, done: list[Subtask],
               failed: Subtask | None, reason: str) -> list[Subtask]:
        return []


def native_agent_worker(backend: Backend, family: ModelFamily, *, budget: ImageBudget | None = None,
                        generation: GenerationSettings | None = None,
                        context: RunContext | None = None,
                        deadline: Deadline | None = None) -> NativeAgentWorker:
    return NativeAgentWorker(backend, family, get_adapter(family.parser), budget=budget,
                             generation=generation, context=context, deadline=deadline)


def native_agent_planner(backend: Backend, family: ModelFamily, *,
                         budget: ImageBudget | None = None,
                         generation: GenerationSettings | None = None,
                         deadline: Deadline | None = None) -> Planner:
    """The whole task handed to a native agent (``family`` must be able to be one)."""
    worker = native_agent_worker(backend, family, budget=budget, generation=generation,
                                 deadline=deadline)
    return Planner(f"native:{family.name}", SingleTaskManager(), worker)
