"""What the experience memory holds: episodes (what a run did) and skills (reusable steps).

All records are frozen; the store builds them from rows and takes them back on save. A skill
step's ``action`` is canonical action text (see :mod:`gui_agent.actions`) whose string or
number arguments may be ``{param}`` placeholders filled from the skill's typed parameters.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError, GuiAgentError

PARAM_KINDS = ("text", "number", "choice")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.\-]{0,79}$")
PLACEHOLDER_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
FLAG_MIN_RUNS = 3          # a skill is judged only after this many runs
FLAG_WINDOW = 5            # ... on its most recent runs
FLAG_FAILURE_RATE = 0.5    # ... and flagged when more than this share of them failed


class SkillNotFound(GuiAgentError):
    """No skill of that name in the memory."""

    def __init__(self, name: str, where: object = None) -> None:
        self.name = name
        tail = f" in {where}" if where else ""
        super().__init__(f"no skill named {name!r}{tail} (see `gui-agent skills list`)")


class SkillNameTaken(GuiAgentError):
    """A skill of that name already exists."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"a skill named {name!r} already exists; choose another name "
                         "(or remove the old one with `gui-agent skills rm`)")


def check_skill_name(name: str) -> str:
    name = name.strip()
    if not NAME_RE.match(name):
        raise ConfigError(f"invalid skill name {name!r}: use 1-80 letters, digits, spaces, "
                          "'_', '-' or '.', starting with a letter or digit")
    return name


@dataclass(frozen=True)
class SkillParameter:
    name: str
    kind: str = "text"                      # text | number | choice
    default: str | float | None = None
    choices: tuple[str, ...] = ()           # for kind == "choice"
    description: str = ""
    secret: bool = False                    # a password: never stored, masked in every log

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.name):
            raise ConfigError(f"invalid parameter name {self.name!r}: use letters, digits and '_'")
        if self.kind not in PARAM_KINDS:
            raise ConfigError(f"parameter {self.name!r}: kind must be one of {', '.join(PARAM_KINDS)}, "
                              f"not {self.kind!r}")
        if self.kind == "choice" and not self.choices:
            raise ConfigError(f"parameter {self.name!r} is a choice but lists no choices")
        object.__setattr__(self, "choices", tuple(str(c) for c in self.choices))
        if self.secret and self.default is not None:
            raise ConfigError(f"parameter {self.name!r} is secret: it cannot have a stored default")
        if self.default is not None:
            object.__setattr__(self, "default", self.coerce(self.default))

    def coerce(self, value: Any) -> str | float:
        """The value in this parameter's type; a ConfigError says why it does not fit."""
        if self.kind == "number":
            if isinstance(value, bool):
                raise ConfigError(f"parameter {self.name!r} needs a number, not {value!r}")
            try:
                number = float(value)
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"parameter {self.name!r} needs a number, not {value!r}") from exc
            if number != number or number in (float("inf"), float("-inf")):
                raise ConfigError(f"parameter {self.name!r} needs a finite number, not {value!r}")
            return number
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise ConfigError(f"parameter {self.name!r} needs text, not {value!r}")
        text = str(value)
        if self.kind == "choice" and text not in self.choices:
            raise ConfigError(f"parameter {self.name!r} must be one of {', '.join(self.choices)}, "
                              f"not {text!r}")
        return text

    def sample(self) -> str | float:
        """A value of the right type (the default when there is one), to check templates."""
        if self.default is not None:
            return self.default
        return {"number": 1.0, "choice": self.choices[0] if self.choices else "x"}.get(self.kind, "x")


def _literal_text(value: str | float) -> str:
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("'", "\\'").replace("\n", "\\n")


@dataclass(frozen=True)
class SkillStep:
    action: str                                  # canonical action text with {param} placeholders
    target: str | None = None                    # the target's description
    ocr_text: str | None = None                  # text read on the element when it was recorded
    crop: str | None = None                      # image crop of the element (store-relative path)
    landmarks: tuple[tuple[str, int, int], ...] = ()   # (nearby text, dx, dy) to the target's centre
    post_text: str | None = None                 # postcondition: this text must appear
    post_region: tuple[int, int, int, int] | None = None  # ... or this box (l, t, r, b) must change
    successes: int = 0                           # statistics kept by the store
    failures: int = 0
    box: tuple[int, int, int, int] | None = None  # the target's box (l, t, r, b) when learned

    def __post_init__(self) -> None:
        if not self.action.strip():
            raise ConfigError("a skill step needs an action")
        if self.box is not None:
            if len(self.box) != 4:
                raise ConfigError("a skill step's box is (left, top, right, bottom)")
            object.__setattr__(self, "box", tuple(int(v) for v in self.box))
        object.__setattr__(self, "landmarks", tuple(
            (str(t), int(dx), int(dy)) for t, dx, dy in self.landmarks))
        if self.post_region is not None:
            if len(self.post_region) != 4:
                raise ConfigError("a postcondition region is (left, top, right, bottom)")
            object.__setattr__(self, "post_region", tuple(int(v) for v in self.post_region))

    @property
    def placeholders(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(PLACEHOLDER_RE.findall(self.action)))

    def render(self, values: Mapping[str, str | float]) -> str:
        """The action text with every ``{param}`` filled (escaped to stay a valid literal)."""
        def fill(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in values:
                raise ConfigError(f"no value for parameter {name!r} of step {self.action!r}")
            return _literal_text(values[name])

        return PLACEHOLDER_RE.sub(fill, self.action)


@dataclass(frozen=True)
class SkillStats:
    runs: int = 0
    successes: int = 0
    recent: tuple[bool, ...] = ()   # the last FLAG_WINDOW outcomes, newest first
    last_run_at: float | None = None

    @property
    def failures(self) -> int:
        return self.runs - self.successes

    @property
    def recent_failure_rate(self) -> float:
        return self.recent.count(False) / len(self.recent) if self.recent else 0.0

    @property
    def flagged(self) -> bool:
        """Keeps failing: enough runs, and most of the recent ones failed."""
        return self.runs >= FLAG_MIN_RUNS and self.recent_failure_rate > FLAG_FAILURE_RATE


@dataclass(frozen=True)
class Skill:
    name: str
    steps: tuple[SkillStep, ...]
    description: str = ""
    parameters: tuple[SkillParameter, ...] = ()
    examples: tuple[str, ...] = ()          # task phrasings this skill did (for retrieval)
    source: str = "manual"                  # manual | recorded | mined | imported
    stats: SkillStats = field(default_factory=SkillStats)
    created_at: float = 0.0
    updated_at: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", check_skill_name(self.name))
        object.__setattr__(self, "steps", tuple(self.steps))
        object.__setattr__(self, "parameters", tuple(self.parameters))
        object.__setattr__(self, "examples", tuple(dict.fromkeys(e.strip() for e in self.examples
                                                                 if e.strip())))
        if not self.steps:
            raise ConfigError(f"skill {self.name!r} has no steps")
        names = [p.name for p in self.parameters]
        if len(set(names)) != len(names):
            raise ConfigError(f"skill {self.name!r} declares a parameter twice")
        for i, step in enumerate(self.steps, 1):
            unknown = [p for p in step.placeholders if p not in names]
            if unknown:
                raise ConfigError(f"skill {self.name!r} step {i} uses undeclared parameter(s) "
                                  f"{', '.join(unknown)}")

    @property
    def flagged(self) -> bool:
        return self.stats.flagged

    def values(self, given: Mapping[str, Any] | None = None) -> dict[str, str | float]:
        """Parameter values: the given ones (typed), else the defaults; a missing one is an error."""
        given = dict(given or {})
        unknown = set(given) - {p.name for p in self.parameters}
        if unknown:
            raise ConfigError(f"skill {self.name!r} has no parameter(s) {', '.join(sorted(unknown))}")
        out: dict[str, str | float] = {}
        for p in self.parameters:
            if p.name in given:
                out[p.name] = p.coerce(given[p.name])
            elif p.default is not None:
                out[p.name] = p.default
            else:
                raise ConfigError(f"skill {self.name!r} needs a value for {p.name!r}")
        return out

    def render(self, given: Mapping[str, Any] | None = None) -> tuple[str, ...]:
        """Every step's action text with the parameters filled."""
        values = self.values(given)
        return tuple(step.render(values) for step in self.steps)

    def check_actions(self) -> None:
        """Each step, filled with sample values, must parse as an action (ConfigError if not)."""
        from ..actions import parse_action

        samples = {p.name: p.sample() for p in self.parameters}
        for i, step in enumerate(self.steps, 1):
            try:
                parse_action(step.render(samples))
            except GuiAgentError as exc:
                raise ConfigError(f"skill {self.name!r} step {i} is not a valid action "
                                  f"({step.action!r}): {exc}") from exc


@dataclass(frozen=True)
class EpisodeStep:
    index: int
    action: str
    outcome: str                           # ok | failed | refused | skipped
    subtask: str = ""
    target: str | None = None
    source: str | None = None              # the grounding rung that found the target
    point: tuple[int, int] | None = None   # image pixels
    screen_point: tuple[int, int] | None = None
    box: tuple[int, int, int, int] | None = None
    score: float | None = None
    error: str = ""
    verification: str | None = None        # what the post-action check concluded, if any
    before: str | None = None              # screenshot paths relative to the store's folder
    after: str | None = None
    timings: tuple[tuple[str, float], ...] = ()
    crop: str | None = None                # the target element as it looked (store-relative)
    ocr_text: str | None = None            # the text read on the target
    landmarks: tuple[tuple[str, int, int], ...] = ()  # (nearby text, dx, dy) to its centre
    expect: str | None = None              # text the step's subtask expected afterwards


@dataclass(frozen=True)
class Episode:
    id: int
    task: str
    outcome: str                 # done | failed | refused | stopped | error
    reason: str = ""
    answer: str | None = None
    model: str | None = None
    seconds: float = 0.0
    created_at: float = 0.0
    run_dir: str | None = None
    steps: tuple[EpisodeStep, ...] = ()

    @property
    def ok(self) -> bool:
        return self.outcome == "done"
