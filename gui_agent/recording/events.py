"""The two event models: raw input as the listeners hear it, and events as a person means them.

A :class:`RawEvent` is one press, release, move or wheel step. The :class:`~.coalesce.Coalescer`
turns a stream of them into :class:`DemoEvent` s (a typed run, a double click, a drag, a scroll
run, a hotkey), which are what ``events.jsonl`` holds, one per line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

RAW_KINDS = ("press", "release", "move", "scroll", "key_down", "key_up")
EVENT_KINDS = ("click", "type", "key", "hotkey", "scroll", "drag")
BUTTONS = ("left", "right", "middle")
DIRECTIONS = ("up", "down", "left", "right")
MODIFIERS = ("ctrl", "alt", "shift", "win", "command", "option")   # hotkey order
SECRET_RE = re.compile(r"^\{secret:([A-Za-z_][A-Za-z0-9_]*)\}$")


def secret_placeholder(name: str) -> str:
    """What ``events.jsonl`` holds instead of the text typed into a secret field."""
    return f"{{secret:{name}}}"


@dataclass(frozen=True)
class WindowInfo:
    title: str | None
    box: tuple[int, int, int, int] | None = None   # left, top, width, height (screen units)


@dataclass(frozen=True)
class RawEvent:
    """One input event. ``time`` is ``time.time()`` when the listener heard it.

    ``key`` is a key name (pyautogui spelling: "enter", "ctrl", "f5") for keys that type
    nothing; ``char`` the character a key typed; ``code`` pairs a key's press with its release.
    ``before`` / ``after`` are the recorder's frame handles (opaque here).
    """

    kind: str
    time: float
    x: int = 0
    y: int = 0
    button: str | None = None
    key: str | None = None
    char: str | None = None
    code: str | None = None
    dx: int = 0
    dy: int = 0
    injected: bool = False
    window: WindowInfo | None = None
    before: Any = None
    after: Any = None

    def __post_init__(self) -> None:
        if self.kind not in RAW_KINDS:
            raise ValueError(f"unknown raw event kind {self.kind!r}")

    @property
    def key_id(self) -> str:
        """Identity of the key, the same for its press and its release."""
        return self.code or self.key or (self.char or "").lower()


@dataclass(frozen=True)
class DemoEvent:
    """One event of a demonstration, as a person means it.

    ``time``/``end``: when it began and ended (seconds from the start of the recording once
    saved; ``time.time()`` while recording). ``point``/``end_point`` are screen (input)
    coordinates. ``secret`` names the secret parameter whose value was typed (``text`` is then
    the placeholder ``{secret:NAME}`` on disk). ``before``/``after``: the frames (file names
    under ``frames/`` once saved).
    """

    kind: str
    time: float
    end: float
    point: tuple[int, int] | None = None
    button: str | None = None
    clicks: int = 1
    text: str | None = None
    keys: tuple[str, ...] = ()
    direction: str | None = None
    amount: int = 0
    end_point: tuple[int, int] | None = None
    window: str | None = None
    window_box: tuple[int, int, int, int] | None = None
    secret: str | None = None
    before: Any = None
    after: Any = None
    index: int = 0

    def describe(self) -> str:
        """A short human form for logs (never the text of a secret)."""
        where = f" at {self.point}" if self.point else ""
        if self.kind == "click":
            times = {1: "", 2: "double ", 3: "triple "}.get(self.clicks, "")
            return f"{times}{self.button or 'left'} click{where}"
        if self.kind == "type":
            return f"type secret {self.secret}" if self.secret else f"type {len(self.text or '')} chars"
        if self.kind in ("key", "hotkey"):
            return "+".join(self.keys)
        if self.kind == "scroll":
            return f"scroll {self.direction} {self.amount}{where}"
        return f"drag {self.point} -> {self.end_point}"

    def to_json(self) -> dict[str, Any]:
        """The line written to events.jsonl (``before``/``after`` must be names by now)."""
        out: dict[str, Any] = {"index": self.index, "kind": self.kind, "t": round(self.time, 3),
                               "end": round(self.end, 3)}
        if self.point is not None:
            out["point"] = list(self.point)
        if self.kind in ("click", "drag"):
            out["button"] = self.button or "left"
        if self.kind == "click":
            out["clicks"] = self.clicks
        if self.kind == "type":
            out["text"] = secret_placeholder(self.secret) if self.secret else (self.text or "")
            if self.secret:
                out["secret"] = self.secret
        if self.kind in ("key", "hotkey"):
            out["keys"] = list(self.keys)
        if self.kind == "scroll":
            out["direction"], out["amount"] = self.direction, self.amount
        if self.kind == "drag":
            out["end_point"] = list(self.end_point or self.point or (0, 0))
        out["window"] = self.window
        if self.window_box is not None:
            out["window_box"] = list(self.window_box)
        out["before"], out["after"] = self.before, self.after
        return out
