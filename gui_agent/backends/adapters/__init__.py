"""Readers for each model family's reply format, producing actions of our action space.

``get_adapter(name).parse(text, frame)`` turns a reply into a :class:`ModelReply` whose
targets are :class:`~gui_agent.geometry.Point`/:class:`~gui_agent.geometry.Box` values in
*observation image pixels* (map them with ``Observation.to_screen``) or, for our own action
text, element descriptions. Every failure is a :class:`ModelReplyError` naming what could not
be read; each adapter's ``format_reminder`` is the text a planner appends when it retries.
"""

from __future__ import annotations

import ast
import importlib
import json
import math
import re
from dataclasses import dataclass
from typing import Any, Protocol

from ...actions import Action
from ..coordinates import ImageFrame, ModelReplyError

__all__ = [
    "Adapter",
    "ModelReply",
    "ModelReplyError",
    "ADAPTER_NAMES",
    "ADAPTER_ALIASES",
    "DEFAULT_CONVENTIONS",
    "get_adapter",
    "default_convention",
    "MAX_REPLY_CHARS",
    "check_length",
    "finite",
    "finite_numbers",
]


@dataclass(frozen=True)
class ModelReply:
    """What a model said: its reasoning, the actions it chose, and the reply as received."""

    thought: str
    actions: tuple[Action, ...]
    raw: str


class Adapter(Protocol):
    """Reads one family's replies."""

    name: str
    format_reminder: str

    def parse(self, text: str, frame: ImageFrame | None) -> ModelReply: ...


# adapter name -> (module, class); modules are imported on first use.
_REGISTRY: dict[str, tuple[str, str]] = {
    "ui-tars": ("ui_tars", "UiTarsAdapter"),
    "showui": ("showui", "ShowUiAdapter"),
    "grounding-point": ("grounding", "GroundingPointAdapter"),
    "qwen2.5-vl": ("qwen", "QwenAdapter"),
    "gui-agent": ("canonical", "CanonicalAdapter"),
}
ADAPTER_NAMES = tuple(_REGISTRY)
# Model-family names that are spelt as an adapter name in the model registry.
ADAPTER_ALIASES: dict[str, str] = {
    "ui-tars-1.0": "ui-tars", "ui-tars-1.5": "ui-tars", "uground": "grounding-point",
    "os-atlas": "grounding-point", "qwen2.5-vl-instruct": "qwen2.5-vl", "canonical": "gui-agent",
}

# Model family -> the coordinate convention its replies use (what ImageFrame needs).
DEFAULT_CONVENTIONS: dict[str, str] = {
    "ui-tars-1.0": "relative-1000",
    "ui-tars-1.5": "absolute-resized",
    "showui": "relative-1",
    "uground": "relative-1000",
    "os-atlas": "relative-1000",
    "qwen2.5-vl": "absolute-resized",
    "gui-agent": "absolute",
}


def get_adapter(name: str) -> Adapter:
    """The adapter registered under ``name`` (:data:`ADAPTER_NAMES` or an alias)."""
    key = name.strip().lower() if isinstance(name, str) else ""
    entry = _REGISTRY.get(ADAPTER_ALIASES.get(key, key))
    if entry is None:
        from ...errors import ConfigError

        raise ConfigError(f"unknown reply format {name!r}; known: {', '.join(ADAPTER_NAMES)}")
    module = importlib.import_module(f"{__name__}.{entry[0]}")
    return getattr(module, entry[1])()


def default_convention(family: str) -> str:
    """The coordinate convention of a model family (see :data:`DEFAULT_CONVENTIONS`)."""
    key = family.strip().lower()
    if key not in DEFAULT_CONVENTIONS:
        from ...errors import ConfigError

        raise ConfigError(
            f"no known coordinate convention for {family!r}; known families: "
            f"{', '.join(DEFAULT_CONVENTIONS)}"
        )
    return DEFAULT_CONVENTIONS[key]


# ---- small text helpers shared by the adapters --------------------------------------------
_FENCE = re.compile(r"```[A-Za-z0-9_+-]*[ \t]*\n?(.*?)(?:```|\Z)", re.S)
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
# Full-width and typographic punctuation models sometimes write in place of ASCII.
_PUNCTUATION = str.maketrans({
    "（": "(", "）": ")", "，": ",", "：": ":", "［": "[", "］": "]", "【": "[", "】": "]",
    "＜": "<", "＞": ">", "＝": "=", "‘": "'", "’": "'", "“": '"', "”": '"', "、": ",",
    "﹙": "(", "﹚": ")", "｛": "{", "｝": "}", "；": ";",
})


def unfence(text: str) -> str:
    """The inside of the first ``` code fence, or the text itself when there is none."""
    match = _FENCE.search(text)
    return match.group(1) if match else text


def ascii_punctuation(text: str) -> str:
    """Full-width brackets, commas, colons and curly quotes replaced by ASCII ones."""
    return text.translate(_PUNCTUATION)


def numbers_in(text: str) -> list[float]:
    """Every number written in ``text``, in order."""
    return [float(m) for m in NUMBER.findall(text)]


# Far above any reply of actions (a few hundred tokens, or a long reasoning); it bounds the work
# a hostile or looping reply can cause (a server may send up to the backend's size limit).
MAX_REPLY_CHARS = 100_000


def check_length(text: str) -> None:
    """Refuse a reply too long to be a reply of actions, before any parsing work."""
    if len(text) > MAX_REPLY_CHARS:
        raise ModelReplyError(
            f"the reply is {len(text)} characters long, more than the {MAX_REPLY_CHARS} a reply of "
            "actions can need; refused unread (is the model repeating itself? lower max tokens)"
        )


def finite(value: Any) -> float | None:
    """``value`` as a float when it is a finite number (not a bool), else None.

    A reply's integer can have hundreds of digits: ``float()`` of it raises OverflowError.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def finite_numbers(value: Any) -> list[float] | None:
    """A non-empty flat list/tuple of finite numbers as floats, or None."""
    if not isinstance(value, list | tuple) or not value:
        return None
    numbers = [finite(v) for v in value]
    return None if any(n is None for n in numbers) else numbers  # type: ignore[return-value]


def preview(text: str, limit: int = 80) -> str:
    """A short quoted excerpt of a reply for error messages."""
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 3] + "...")


def split_keys(spec: str) -> tuple[str, ...]:
    """'ctrl c', 'Ctrl+Shift+T' or 'enter' -> key names (normalised later by control.keys)."""
    parts = spec.split()
    if len(parts) == 1 and "+" in parts[0] and parts[0] != "+":
        parts = [p for p in parts[0].split("+") if p] or ["+"]
    return tuple(p.lower() for p in parts)


def typed_text(text: str) -> tuple[str, bool]:
    """Text to type and whether to press Enter after it: a trailing newline means submit."""
    if text.endswith("\n"):
        return text.rstrip("\r\n"), True
    return text, False


_LITERAL_ERRORS = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)


def read_literal(text: str) -> Any:
    """A Python literal or JSON value (also with full-width punctuation), or ValueError.

    ``ast.literal_eval`` and ``json.loads`` only: nothing in a reply is ever executed.
    """
    for candidate in dict.fromkeys((text, ascii_punctuation(text))):
        try:
            return ast.literal_eval(candidate)
        except _LITERAL_ERRORS:
            pass
        try:
            return json.loads(candidate)
        except _LITERAL_ERRORS:
            pass
    raise ValueError(text[:80])
