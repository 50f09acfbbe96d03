"""A Worker that keeps a model's own multi-turn conversation, as agent models are trained.

Each step adds a user turn with the current screenshot (resized to the family's budget, so the
model's coordinates map back exactly) and, once the model answers, an assistant turn with its
reply. Only the last ``family.max_images`` screenshots are sent: older screenshots leave the
conversation with the turns they were in, the model's own turns stay (UI-TARS-desktop's
window). Subclasses say what the turns hold (:mod:`.native_agent`, :mod:`.tool_agent`).

A reply with several actions is performed one action at a time; the rest are dropped when one
fails. A step marked as looping, or two failed steps in a row, end the instruction with
``Fail`` (a planner model, when there is one, re-plans). A person's answer to the model's
question joins the conversation as a user turn.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from PIL import Image

from ..actions import Action, AskUser, Done, Fail
from ..backends.adapters import Adapter, ModelReply
from ..backends.base import Backend, GenerationSettings, Message
from ..backends.coordinates import ImageFrame
from ..backends.images import ImageBudget
from ..backends.registry import ModelFamily
from ..deadline import Deadline
from ..errors import PlanningError
from ..screen.observation import Observation
from .asking import ask_with_retry, preview
from .base import StepRecord, Subtask
from .vlm import LOOP_NOTE, RunContext, failed_tail

log = logging.getLogger(__name__)
ANSWERED = "user answered: "   # the agent loop's note on a person's answer


def image_window(turns: Sequence[Message], max_images: int) -> list[Message]:
    """The conversation with only its last ``max_images`` images; a turn left empty goes."""
    kept: list[Message] = []
    left = max_images
    for message in reversed(turns):
        parts: list[str | Image.Image] = []
        for part in reversed(message.content):
            if isinstance(part, Image.Image):
                if left <= 0:
                    continue
                left -= 1
            parts.append(part)
        if parts:
            kept.append(Message(message.role, tuple(reversed(parts))))
    return list(reversed(kept))


class ConversationWorker:
    """The Worker protocol over one model conversation per instruction (see module doc)."""

    kind = "conversation"

    def __init__(self, backend: Backend, family: ModelFamily, adapter: Adapter, *,
                 budget: ImageBudget | None = None, generation: GenerationSettings | None = None,
                 context: RunContext | None = None, deadline: Deadline | None = None,
                 max_failed_steps: int = 2) -> None:
        self.backend = backend
        self.family = family
        self.adapter = adapter
        self.budget = budget or family.budget
        self.generation = generation if generation is not None else family.generation
        self.context = context or RunContext()
        self.deadline = deadline
        self.max_failed_steps = max_failed_steps
        self.turns: list[Message] = []
        self._subtask: Subtask | None = None
        self._closed = True
        self._start = 0         # where the current instruction's steps begin in the history
        self._read = 0          # history records already looked at
        self._pending: list[Action] = []

    # -- what the turns hold (subclasses) ------------------------------------------------------
    def opening(self, instruction: str, image: Image.Image) -> list[Message]:
        """The first turns of a conversation about ``instruction``, the first screenshot included."""
        raise NotImplementedError

    def image_turn(self, image: Image.Image) -> Message:
        return Message("user", (image,))

    def assistant_turn(self, reply: ModelReply) -> Message:
        return Message.text("assistant", reply.raw.strip())

    def check(self, text: str) -> None:
        """Raise PlanningError for a reply that is not in the protocol (before it is parsed)."""

    # -- the protocol --------------------------------------------------------------------------
    def next_action(self, subtask: Subtask, observation: Observation | None,
                    history: Sequence[StepRecord]) -> Action:
        self.context.history = history
        if subtask is not self._subtask or self._closed:
            self._subtask, self._closed, self._start = subtask, False, len(history)
            self.turns, self._pending = [], []
        self._read_answers(history)
        mine = list(history[self._start:])
        if mine and not mine[-1].ok and not isinstance(mine[-1].action, AskUser):
            self._pending = []
            last = mine[-1]
            if LOOP_NOTE in last.note or failed_tail(mine) >= self.max_failed_steps:
                return self._close(Fail(last.note or "the model's actions keep failing"))
        if self._pending:
            return self._close(self._pending.pop(0))
        if observation is None:
            raise PlanningError(f"the {self.family.name} agent acts on the screen, and there is "
                                "no screenshot to show it")
        reply = self._ask(subtask.instruction, observation)
        first, *rest = reply.actions
        self._pending = list(rest)
        return self._close(first)

    def _close(self, action: Action) -> Action:
        if isinstance(action, Done | Fail):
            self._closed = True
        return action

    def _read_answers(self, history: Sequence[StepRecord]) -> None:
        for record in history[max(self._read, self._start):]:
            if isinstance(record.action, AskUser) and record.note.startswith(ANSWERED):
                self.turns.append(Message.text("user", record.note[len(ANSWERED):]))
        self._read = len(history)

    def _ask(self, instruction: str, observation: Observation) -> ModelReply:
        image = self.budget.apply(observation.image)
        frame = ImageFrame.for_observation(observation, self.family.convention, self.budget)
        if self.turns:
            self.turns.append(self.image_turn(image))
        else:
            self.turns = self.opening(instruction, image)
        messages = image_window(self.turns, self.family.max_images)

        def read(text: str) -> ModelReply:
            self.check(text)
            parsed = self.adapter.parse(text, frame)
            if not parsed.actions:
                raise PlanningError(f"no action in the reply {preview(text, 80)}")
            return parsed

        reply = ask_with_retry(self.backend, messages, self.generation, read,
                               lambda err: f"{err}\n{self.adapter.format_reminder}",
                               f"{self.family.name} acting", self.deadline)
        assert isinstance(reply, ModelReply)
        self.turns.append(self.assistant_turn(reply))
        log.debug("%s: %s", self.family.name, reply.raw[:300])
        return reply

