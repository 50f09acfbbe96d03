"""The backend contract shared by every model provider.

A conversation is a list of :class:`Message`; a message's content is text and images in order.
Backends turn it into their own input format (a chat template and pixel values for
transformers, base64 data URLs for an OpenAI-compatible server) and return the reply text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, Union

from PIL import Image

if TYPE_CHECKING:
    from ..deadline import Deadline

Part = Union[str, Image.Image]  # noqa: UP007 - a runtime alias


@dataclass(frozen=True)
class Message:
    role: str                    # "system" | "user" | "assistant"
    content: tuple[Part, ...]

    @classmethod
    def text(cls, role: str, text: str) -> Message:
        return cls(role, (text,))

    @property
    def images(self) -> list[Image.Image]:
        return [p for p in self.content if isinstance(p, Image.Image)]


@dataclass(frozen=True)
class GenerationSettings:
    max_new_tokens: int = 256
    temperature: float = 0.0     # 0 = greedy
    top_p: float = 1.0
    stop: tuple[str, ...] = ()
    extra: dict[str, object] = field(default_factory=dict)


class Backend(Protocol):
    """Anything that answers a conversation with text.

    ``deadline`` is the run's overall time limit: a backend answers within it or raises
    :class:`~gui_agent.errors.DeadlineExceeded` (or a BackendError), never later.
    """

    name: str

    def generate(self, messages: list[Message], settings: GenerationSettings | None = None, *,
                 deadline: Deadline | None = None) -> str: ...


def generate_within(backend: Backend, messages: list[Message], settings: GenerationSettings | None,
                    deadline: Deadline | None, what: str = "model") -> str:
    """``backend.generate`` bounded by the run's deadline, which is also checked before the
    call and after it (a reply that came too late is not acted on). Without a deadline the
    backend is called as before, so a backend that predates the keyword still works."""
    if deadline is None:
        return backend.generate(messages, settings)
    deadline.check(f"before asking the {what} model")
    reply = backend.generate(messages, settings, deadline=deadline)
    deadline.check(f"the {what} model answered")
    return reply
