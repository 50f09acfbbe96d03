"""Stand-ins for a live tree: a handle whose answers a test scripts, a tree reading that hands
an observation a given element list."""

from __future__ import annotations

from dataclasses import dataclass, field

from PIL import Image

from gui_agent.geometry import Box
from gui_agent.parsing.elements import Accessible, Element, ElementKind, ScreenParse, Window
from gui_agent.screen.observation import Observation

K = ElementKind


@dataclass
class ScriptedHandle:
    """Answers from lists: each call takes the next answer (the last one repeats)."""

    state_answers: list[frozenset[str] | None] = field(default_factory=lambda: [frozenset()])
    value_answers: list[str | None] = field(default_factory=lambda: [None])
    asked: int = 0

    def states(self) -> frozenset[str] | None:
        self.asked += 1
        return self.state_answers.pop(0) if len(self.state_answers) > 1 else self.state_answers[0]

    def value(self) -> str | None:
        return self.value_answers.pop(0) if len(self.value_answers) > 1 else self.value_answers[0]


class FixedTree:
    """A TreeReading that returns a given parse (and counts the reads)."""

    def __init__(self, tree: ScreenParse | None) -> None:
        self.tree = tree
        self.seconds = 0.0
        self.reads = 0

    def read(self) -> ScreenParse | None:
        self.reads += 1
        return self.tree


def node(kind: ElementKind, box: tuple[int, int, int, int], text: str = "", *, role: str = "",
         states: frozenset[str] = frozenset({"enabled"}), label: str = "", window: str = "App",
         active: bool = True, value: str | None = None, handle: ScriptedHandle | None = None,
         checked: bool | None = None) -> Element:
    """A tree element (source "a11y") at ``box`` (left, top, width, height)."""
    info = Accessible(role or str(kind), states, value, "", window, active, handle)
    return Element(kind, Box(*box), text, 1.0, "a11y", checked, label, info)


def tree(*elements: Element, windows: tuple[Window, ...] = (), size=(800, 600)) -> ScreenParse:
    return ScreenParse(tuple(elements), size[0], size[1], windows)


def observation(reading: FixedTree | None, size=(800, 600)) -> Observation:
    obs = Observation.from_image(Image.new("RGB", size, "white"))
    from dataclasses import replace

    return replace(obs, accessibility=reading)
