"""The action space (the agent-computer interface) and its one canonical text form.

Every action is a frozen dataclass. ``format_action`` writes the text used in prompts,
logs and skills; ``parse_action`` reads it back with :mod:`ast`, accepting literal
arguments only (never ``eval``). A *target* is a description of an element
(``"the Save button"``), a :class:`Point` written ``(x, y)``, or a :class:`Box`
written by its corners ``(left, top, right, bottom)``.
"""

from __future__ import annotations

import ast
import math
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, Union

from .errors import ActionParseError
from .geometry import Box, Point

Target = Union[str, Point, Box]  # noqa: UP007 - used at run time in isinstance checks
SCROLL_DIRECTIONS = ("up", "down", "left", "right")
MOUSE_BUTTONS = ("left", "right", "middle")
HELD_KEYS = ("ctrl", "shift")     # a click with one held: add an item to a selection, extend it


def _check_target(value: Any, name: str) -> None:
    if isinstance(value, str):
        if not value.strip():
            raise ActionParseError(f"{name} must not be empty")
    elif not isinstance(value, Point | Box):
        raise ActionParseError(f"{name} must be a description, a point (x, y) or a box (l, t, r, b)")


@dataclass(frozen=True)
class Action:
    """Base class; ``name`` is the verb in the text form."""

    name: ClassVar[str] = ""

    @property
    def target(self) -> Target | None:
        """The element this action is aimed at, if any (what grounding resolves)."""
        return None

    def __str__(self) -> str:
        return format_action(self)


@dataclass(frozen=True)
class Click(Action):
    name: ClassVar[str] = "click"
    target_: Target = field(metadata={"arg": "target"})
    button: str = "left"
    clicks: int = 1
    hold: str = ""      # a key held down during the click ("ctrl": one more item of a list box)

    def __post_init__(self) -> None:
        _check_target(self.target_, "click target")
        if self.button not in MOUSE_BUTTONS:
            raise ActionParseError(f"button must be one of {MOUSE_BUTTONS}, not {self.button!r}")
        if not 1 <= self.clicks <= 3:
            raise ActionParseError(f"clicks must be 1, 2 or 3, not {self.clicks}")
        if self.hold and self.hold not in HELD_KEYS:
            raise ActionParseError(f"hold must be one of {HELD_KEYS}, not {self.hold!r}")

    @property
    def target(self) -> Target:
        return self.target_


@dataclass(frozen=True)
class Type(Action):
    """Types ``text`` (into a target). A planned step may instead name where on the screen its
    text is to be read (``read_from``: 'the value of "Color"'); the planner reads it there and
    hands out the step with the text it read, never with ``read_from`` set."""

    name: ClassVar[str] = "type"
    text: str
    into: Target | None = None
    clear: bool = False
    enter: bool = False
    read_from: str | None = None

    def __post_init__(self) -> None:
        if self.into is not None:
            _check_target(self.into, "type target")
        if self.read_from is not None and not self.read_from.strip():
            raise ActionParseError("type: read_from must name what to read")

    @property
    def target(self) -> Target | None:
        return self.into


@dataclass(frozen=True)
class Hotkey(Action):
    name: ClassVar[str] = "hotkey"
    keys: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.keys or not all(isinstance(k, str) and k.strip() for k in self.keys):
            raise ActionParseError("hotkey needs at least one non-empty key name")
        object.__setattr__(self, "keys", tuple(k.strip().lower() for k in self.keys))


@dataclass(frozen=True)
class Scroll(Action):
    name: ClassVar[str] = "scroll"
    direction: str
    amount: int = 3
    at: Target | None = None

    def __post_init__(self) -> None:
        if self.direction not in SCROLL_DIRECTIONS:
            raise ActionParseError(f"scroll direction must be one of {SCROLL_DIRECTIONS}")
        if not 1 <= self.amount <= 100:
            raise ActionParseError("scroll amount must be between 1 and 100")
        if self.at is not None:
            _check_target(self.at, "scroll position")

    @property
    def target(self) -> Target | None:
        return self.at


@dataclass(frozen=True)
class Drag(Action):
    name: ClassVar[str] = "drag"
    source: Target
    destination: Target

    def __post_init__(self) -> None:
        _check_target(self.source, "drag source")
        _check_target(self.destination, "drag destination")

    @property
    def target(self) -> Target:
        return self.source


RESIZE_LIMITS = (0.25, 4.0)   # the factors a resize may ask for


@dataclass(frozen=True)
class Resize(Action):
    """Make an element ``width`` x ``height`` times its size by dragging its bottom-right
    corner (where a text area's grip, a pane's or a window's corner is)."""

    name: ClassVar[str] = "resize"
    target_: Target = field(metadata={"arg": "target"})
    width: float = 1.0
    height: float = 1.0

    def __post_init__(self) -> None:
        _check_target(self.target_, "resize target")
        low, high = RESIZE_LIMITS
        for what, value in (("width", self.width), ("height", self.height)):
            if not (math.isfinite(value) and low <= value <= high):
                raise ActionParseError(f"resize: {what} is a factor between {low:g} and {high:g}, "
                                       f"not {value!r}")
        if self.width == 1.0 and self.height == 1.0:
            raise ActionParseError("resize needs a width or height factor other than 1")

    @property
    def target(self) -> Target:
        return self.target_


@dataclass(frozen=True)
class Move(Action):
    name: ClassVar[str] = "move"
    target_: Target = field(metadata={"arg": "target"})

    def __post_init__(self) -> None:
        _check_target(self.target_, "move target")

    @property
    def target(self) -> Target:
        return self.target_


@dataclass(frozen=True)
class Wait(Action):
    name: ClassVar[str] = "wait"
    seconds: float = 1.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.seconds) and 0 <= self.seconds <= 3600):
            raise ActionParseError("wait needs a number of seconds between 0 and 3600")


@dataclass(frozen=True)
class OpenApp(Action):
    name: ClassVar[str] = "open_app"
    app: str = field(metadata={"arg": "name"})

    def __post_init__(self) -> None:
        if not self.app.strip():
            raise ActionParseError("open_app needs an application name")


@dataclass(frozen=True)
class RunSkill(Action):
    name: ClassVar[str] = "run_skill"
    skill: str = field(metadata={"arg": "name"})
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if not self.skill.strip():
            raise ActionParseError("run_skill needs a skill name")
        object.__setattr__(self, "params", tuple(sorted(dict(self.params).items())))


@dataclass(frozen=True)
class Done(Action):
    name: ClassVar[str] = "done"
    answer: str | None = None


@dataclass(frozen=True)
class Fail(Action):
    name: ClassVar[str] = "fail"
    reason: str


@dataclass(frozen=True)
class AskUser(Action):
    name: ClassVar[str] = "ask_user"
    question: str


ACTION_TYPES: dict[str, type[Action]] = {
    cls.name: cls
    for cls in (Click, Type, Hotkey, Scroll, Drag, Resize, Move, Wait, OpenApp, RunSkill, Done, Fail,
                AskUser)
}
_TARGET_FIELDS = {"target_", "into", "at", "source", "destination"}


def _arg_name(f: Any) -> str:
    return f.metadata.get("arg", f.name)


def _literal(value: Any) -> str:
    if isinstance(value, Point):
        return f"({value.x}, {value.y})"
    if isinstance(value, Box):
        return "({}, {}, {}, {})".format(*value.corners)
    if isinstance(value, float) and value.is_integer():
        return repr(value)
    return repr(value)


def format_action(action: Action) -> str:
    """The canonical text form: positional required arguments, non-default keywords."""
    if isinstance(action, Hotkey):
        return f"hotkey({', '.join(repr(k) for k in action.keys)})"
    if isinstance(action, RunSkill):
        parts = [repr(action.skill)] + [f"{k}={_literal(v)}" for k, v in action.params]
        return f"run_skill({', '.join(parts)})"
    parts: list[str] = []
    for f in fields(action):
        value = getattr(action, f.name)
        if f.default is MISSING:
            parts.append(_literal(value))
        elif value != f.default:
            parts.append(f"{_arg_name(f)}={_literal(value)}")
    return f"{action.name}({', '.join(parts)})"


def _to_target(value: Any, what: str) -> Any:
    if isinstance(value, tuple | list) and all(
        isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in value
    ):
        if len(value) == 2:
            return Point(round(value[0]), round(value[1]))
        if len(value) == 4:
            return Box.from_corners(*value)
    if isinstance(value, str | Point | Box) or value is None:
        return value
    raise ActionParseError(f"{what} must be a text, (x, y) or (left, top, right, bottom)")


def _coerce(f: Any, value: Any, verb: str) -> Any:
    kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    if f.name in _TARGET_FIELDS:
        return _to_target(value, f"{verb}: {_arg_name(f)}")
    if kind == "bool":
        if not isinstance(value, bool):
            raise ActionParseError(f"{verb}: {f.name} must be True or False")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int | float) or (
            isinstance(value, float) and not value.is_integer()
        ):
            raise ActionParseError(f"{verb}: {f.name} must be a whole number")
        return int(value)
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ActionParseError(f"{verb}: {f.name} must be a number")
        return float(value)
    if kind in ("str", "str | None"):
        if value is None and kind == "str | None":
            return None
        if not isinstance(value, str):
            raise ActionParseError(f"{verb}: {f.name} must be a quoted text")
        return value
    return value


def parse_action(text: str) -> Action:
    """Read one action from its text form; raises only :class:`ActionParseError`."""
    if not isinstance(text, str):
        raise ActionParseError("an action must be given as text")
    source = text.strip()
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise ActionParseError(f"not an action call: {source[:80]!r}") from exc
    call = tree.body
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        raise ActionParseError(f"expected a call like click(\"OK\"), got {source[:80]!r}")
    verb = call.func.id
    cls = ACTION_TYPES.get(verb)
    if cls is None:
        raise ActionParseError(f"unknown action {verb!r}; known: {', '.join(ACTION_TYPES)}")
    try:
        args = [ast.literal_eval(a) for a in call.args]
        kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError) as exc:
        raise ActionParseError(f"{verb}: arguments must be literal values") from exc
    if any(k is None for k in kwargs):
        raise ActionParseError(f"{verb}: ** arguments are not allowed")
    try:
        return _build(cls, verb, args, kwargs)
    except ActionParseError:
        raise
    except (TypeError, ValueError, OverflowError) as exc:
        raise ActionParseError(f"{verb}: {exc}") from exc


def _build(cls: type[Action], verb: str, args: list[Any], kwargs: dict[str, Any]) -> Action:
    if cls is Hotkey:
        if kwargs:
            raise ActionParseError("hotkey takes key names only, e.g. hotkey('ctrl', 's')")
        keys = args[0] if len(args) == 1 and isinstance(args[0], list | tuple) else args
        if not all(isinstance(k, str) for k in keys):
            raise ActionParseError("hotkey keys must be quoted names")
        return Hotkey(tuple(keys))
    if cls is RunSkill:
        if len(args) != 1 or not isinstance(args[0], str):
            raise ActionParseError("run_skill needs the skill name first, then name=value params")
        for value in kwargs.values():
            if not isinstance(value, str | int | float | bool):
                raise ActionParseError("run_skill parameters must be texts, numbers or booleans")
        return RunSkill(args[0], tuple(kwargs.items()))
    params = list(fields(cls))
    if len(args) > len(params):
        raise ActionParseError(f"{verb}: too many arguments")
    values: dict[str, Any] = {}
    for f, value in zip(params, args, strict=False):
        values[f.name] = value
    by_arg = {_arg_name(f): f for f in params}
    for key, value in kwargs.items():
        f = by_arg.get(key)
        if f is None:
            raise ActionParseError(f"{verb}: unknown argument {key!r}")
        if f.name in values:
            raise ActionParseError(f"{verb}: {key!r} given twice")
        values[f.name] = value
    missing = [
        _arg_name(f) for f in params
        if f.name not in values and f.default is MISSING
    ]
    if missing:
        raise ActionParseError(f"{verb}: missing {', '.join(missing)}")
    coerced = {name: _coerce(next(f for f in params if f.name == name), v, verb) for name, v in values.items()}
    return cls(**coerced)


TARGET_FIELD_NAMES = ("target", "into", "at", "source", "destination")


def target_fields(action: Action) -> dict[str, object]:
    """The action's target fields that are set, by argument name: {"target": "Save", "into": ...}."""
    out: dict[str, object] = {}
    for name in TARGET_FIELD_NAMES:
        value = getattr(action, "target_" if name == "target" else name, None)
        if value is not None:
            out[name] = value
    return out
