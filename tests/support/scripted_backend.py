"""A backend that answers from a script: tests and demos drive the VLM planner without a model.

Each reply is a text, or a function of the conversation that returns one (to answer with
coordinates read off the live screen). Every request is recorded, so a test can check what
the model was shown: the prompt text, how many screenshots, their sizes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gui_agent.backends.base import GenerationSettings, Message
from gui_agent.deadline import Deadline
from gui_agent.errors import PlanningError

log = logging.getLogger(__name__)

Reply = str | Callable[[list[Message]], str]


@dataclass(frozen=True)
class Request:
    """One call to ``generate``: the conversation and the settings it came with."""

    messages: tuple[Message, ...]
    settings: GenerationSettings | None

    @property
    def text(self) -> str:
        """All text parts of all messages, in order (what a test greps)."""
        return "\n".join(p for m in self.messages for p in m.content if isinstance(p, str))

    @property
    def images(self) -> list:
        return [img for m in self.messages for img in m.images]


class ScriptedBackend:
    """Replies with the next item of ``replies``; raises PlanningError when they run out."""

    def __init__(self, replies: Iterable[Reply], name: str = "scripted") -> None:
        self.name = name
        self._replies: list[Reply] = list(replies)
        self._lock = threading.Lock()
        self.requests: list[Request] = []

    @property
    def remaining(self) -> int:
        return len(self._replies)

    def add(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    def generate(self, messages: list[Message], settings: GenerationSettings | None = None, *,
                 deadline: Deadline | None = None) -> str:
        with self._lock:
            self.requests.append(Request(tuple(messages), settings))
            if not self._replies:
                raise PlanningError(
                    f"the scripted backend {self.name!r} has no reply left for request "
                    f"{len(self.requests)}; the script is shorter than the run")
            reply = self._replies.pop(0)
        text = reply(list(messages)) if callable(reply) else reply
        log.debug("%s request %d -> %r", self.name, len(self.requests), text[:200])
        return text
