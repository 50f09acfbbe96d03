"""UI-TARS (1.0 and 1.5) replies: ``Thought: ...`` then ``Action: click(start_box='(x,y)')``.

The format follows the UI-TARS model card and the prompts of UI-TARS-desktop: optional
``Reflection:``/``Action_Summary:``/``Thought:`` sections, then ``Action:`` with one or more
calls separated by blank lines. Coordinates are written ``(x,y)``, ``(x1,y1,x2,y2)``,
``[x1, y1, x2, y2]``, ``<|box_start|>(x,y)<|box_end|>``, ``<point>x y</point>`` or
``<bbox>x1 y1 x2 y2</bbox>`` (a box means its centre). UI-TARS-1.0 writes 0-1000 relative
numbers, UI-TARS-1.5 pixels of the resized image: the frame's convention says which.
Arguments are read by a small scanner (quotes, escapes, nesting), never evaluated.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ...actions import (
    SCROLL_DIRECTIONS,
    Action,
    AskUser,
    Click,
    Done,
    Drag,
    Hotkey,
    Move,
    OpenApp,
    Scroll,
    Type,
    Wait,
)
from ...errors import ActionParseError
from ...geometry import Point
from ..coordinates import ImageFrame, ModelReplyError, require_frame
from . import (
    ModelReply,
    ascii_punctuation,
    check_length,
    numbers_in,
    preview,
    split_keys,
    typed_text,
)

_OPEN, _CLOSE, _COMMA = "(（", ")）", ",，"
_QUOTES = {"'": "'", '"': '"', "‘": "’'", "“": "”\"", "`": "`"}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "'": "'", '"': '"', "\\": "\\"}
_MARKER = re.compile(r"(?<![A-Za-z_])Action[ \t]*[:：]")
_LABEL = re.compile(r"(?m)^[ \t]*(Thought|Reflection|Action_Summary)[ \t]*[:：][ \t]*")
_CALL_START = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)[ \t]*[(（]")
_MAX_TRIES = 8  # candidate action starts tried: bounded work on long, unbalanced replies
_WAIT_SECONDS = 5.0  # "wait() # Sleep for 5s and take a screenshot"
_UNSUPPORTED = {
    "long_press": "a long press", "press_home": "the Home button", "press_back": "the Back button",
    "keydown": "holding a key down", "keyup": "releasing a held key",
}

FORMAT_REMINDER = (
    "Answer in exactly this format:\nThought: <one sentence>\nAction: <one action>\n"
    "where the action is one of click(start_box='(x,y)'), left_double(start_box='(x,y)'), "
    "right_single(start_box='(x,y)'), drag(start_box='(x1,y1)', end_box='(x2,y2)'), "
    "hotkey(key='ctrl c'), type(content='text'), scroll(start_box='(x,y)', direction='down'), "
    "wait(), finished(content='answer'), call_user()."
)


@dataclass(frozen=True)
class _Call:
    verb: str
    args: dict[str, str]
    source: str


def _outside_quotes(text: str, start: int, opens: str, closes: str) -> Iterator[tuple[int, str, int]]:
    """(index, char, depth after it) for every bracket and comma of ``text`` from ``start``
    that is not inside a quoted value; backslash escapes inside quotes are skipped."""
    depth, quote, i = 0, "", start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch in _QUOTES[quote] and _closes_quote(text, i + 1):
                quote = ""
        elif ch in _QUOTES and _opens_quote(text, i):
            quote = ch
        elif ch in opens:
            depth += 1
            yield i, ch, depth
        elif ch in closes:
            depth -= 1
            yield i, ch, depth
        elif ch in _COMMA:
            yield i, ch, depth
        i += 1


def _find_call(text: str, pos: int) -> tuple[_Call, int] | None:
    """The call starting at ``pos`` (after whitespace) and the index just after it."""
    match = _CALL_START.match(text, pos)
    if not match:
        return None
    args_start = match.end()
    for i, ch, depth in _outside_quotes(text, args_start - 1, _OPEN, _CLOSE):
        if ch in _CLOSE and depth == 0:
            call = _Call(match.group(1), _split_args(text[args_start:i]), text[pos:i + 1].strip())
            return call, i + 1
    return None


def _opens_quote(text: str, i: int) -> bool:
    """A quote opens a value only right after '(', ',', '=' (or spaces following one)."""
    j = i - 1
    while j >= 0 and text[j] in " \t":
        j -= 1
    return j < 0 or text[j] in "=＝" + _OPEN + _COMMA


def _closes_quote(text: str, j: int) -> bool:
    """A quote closes its value only when a ',' or ')' follows: an apostrophe inside stays."""
    while j < len(text) and text[j] in " \t":
        j += 1
    return j >= len(text) or text[j] in _COMMA + _CLOSE


def _split_args(body: str) -> dict[str, str]:
    """``key='value', key2=(1,2)`` -> {key: value}; positional values get keys ``_0``, ``_1``."""
    parts: list[str] = []
    start = 0
    for i, ch, depth in _outside_quotes(body, 0, _OPEN + "[", _CLOSE + "]"):
        if ch in _COMMA and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    args: dict[str, str] = {}
    for index, part in enumerate(p for p in parts if p.strip()):
        match = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*[=＝]\s*(.*)\Z", part, re.S)
        key, value = (match.group(1), match.group(2)) if match else (f"_{index}", part)
        args[key] = _unquote(value.strip())
    return args


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] in _QUOTES and value[-1] in _QUOTES[value[0]]:
        return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), value[1:-1], flags=re.S)
    return value


def _thought(prefix: str) -> str:
    """Reflection, Thought and Action_Summary sections in order, without their labels."""
    prefix = re.sub(r"```[A-Za-z]*", "", prefix)
    labels = list(_LABEL.finditer(prefix))
    if not labels:
        return prefix.strip()
    sections = [prefix[: labels[0].start()].strip()]
    for k, match in enumerate(labels):
        end = labels[k + 1].start() if k + 1 < len(labels) else len(prefix)
        sections.append(prefix[match.end():end].strip())
    return "\n".join(s for s in sections if s)


class UiTarsAdapter:
    name = "ui-tars"
    format_reminder = FORMAT_REMINDER

    def parse(self, text: str, frame: ImageFrame | None) -> ModelReply:
        if not isinstance(text, str) or not text.strip():
            raise ModelReplyError("the UI-TARS reply is empty: expected 'Thought: ...' and 'Action: ...'")
        check_length(text)
        source = text.strip()
        start = self._actions_start(source)
        if start is None:
            if any(_CALL_START.match(source, m.end()) for m in _MARKER.finditer(source)):
                raise ModelReplyError(
                    f"unbalanced brackets or quotes in the UI-TARS action of {preview(source)}"
                )
            raise ModelReplyError(
                f"no action in the UI-TARS reply {preview(source)}: expected a line such as "
                "Action: click(start_box='(x,y)')"
            )
        thought_end, pos = start
        calls: list[_Call] = []
        while True:
            marker = _MARKER.match(source, _skip_space(source, pos))
            if marker:
                pos = marker.end()
            found = _find_call(source, pos)
            if found is None:
                break
            call, pos = found
            calls.append(call)
        rest = source[pos:].strip()
        if _CALL_START.match(rest):
            raise ModelReplyError(
                f"unbalanced brackets or quotes in the UI-TARS action {preview(rest)}"
            )
        thought = _thought(source[:thought_end])
        actions: list[Action] = []
        for call in calls:
            actions.extend(self._action(call, frame, thought))
        return ModelReply(thought, tuple(actions), text)

    def _actions_start(self, source: str) -> tuple[int, int] | None:
        """(end of the thought, start of the first call) or None when there is no call."""
        markers = [m for m in _MARKER.finditer(source) if _CALL_START.match(source, m.end())]
        for marker in markers[:_MAX_TRIES]:
            if _find_call(source, marker.end()) is not None:
                return marker.start(), marker.end()
        if markers:
            return None
        lines = (m.start() for m in re.finditer(r"(?m)^", source))  # no marker: a bare call
        bare = [i for i in lines if (c := _CALL_START.match(source, i)) and c.group(1) in _VERBS]
        for start in bare[:_MAX_TRIES]:
            if _find_call(source, start) is not None:
                return start, start
        return None

    def _action(self, call: _Call, frame: ImageFrame | None, thought: str) -> list[Action]:
        verb = call.verb.lower()
        if verb in _UNSUPPORTED:
            raise ModelReplyError(f"{call.verb}: {_UNSUPPORTED[verb]} is not available on a desktop")
        if verb not in _VERBS:
            raise ModelReplyError(
                f"unknown UI-TARS action {call.verb!r} in {preview(call.source)}; known: "
                f"{', '.join(sorted(_VERBS))}"
            )
        try:
            return [_VERBS[verb](_Args(call, frame), thought)]
        except ActionParseError as exc:
            raise ModelReplyError(f"{call.verb}: {exc} (in {preview(call.source)})") from exc


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


class _Args:
    """Typed access to one call's arguments, with the spellings UI-TARS versions use."""

    def __init__(self, call: _Call, frame: ImageFrame | None) -> None:
        self.call, self.frame = call, frame

    def text(self, *names: str, positional: bool = True) -> str | None:
        for name in names:
            if name in self.call.args:
                return self.call.args[name]
        if positional and "_0" in self.call.args:
            return self.call.args["_0"]
        return None

    def point(self, *names: str, required: bool = True) -> Point | None:
        value = self.text(*names)
        if value is None or not value.strip():
            if required:
                raise ModelReplyError(
                    f"{self.call.verb}: missing {names[0]} in {preview(self.call.source)}"
                )
            return None
        numbers = numbers_in(ascii_punctuation(value.replace("<|box_start|>", "").replace("<|box_end|>", "")))
        if len(numbers) == 2:
            return require_frame(self.frame).to_image(*numbers, strict=True)
        if len(numbers) == 4:
            return require_frame(self.frame).center_to_image(*numbers, strict=True)
        raise ModelReplyError(
            f"{self.call.verb}: {names[0]} {value!r} is not a point (x,y) or a box (x1,y1,x2,y2)"
        )


_START = ("start_box", "point", "start_point")
_END = ("end_box", "end_point")


def _click(button: str = "left", clicks: int = 1):
    return lambda a, _t: Click(a.point(*_START), button=button, clicks=clicks)


def _type(a: _Args, _t: str) -> Action:
    content = a.text("content", "text")
    if content is None:
        raise ModelReplyError(f"type: missing content in {preview(a.call.source)}")
    text, enter = typed_text(content)
    if not text and not enter:
        raise ModelReplyError("type: the content is empty")
    return Type(text, enter=enter)


def _keys(a: _Args, _t: str) -> Action:
    spec = a.text("key", "keys", "hotkey")
    keys = split_keys(spec or "")
    if not keys:
        raise ModelReplyError(f"{a.call.verb}: no key given in {preview(a.call.source)}")
    return Hotkey(keys)


def _scroll(a: _Args, _t: str) -> Action:
    direction = (a.text("direction", positional=False) or "").strip().lower()
    if direction not in SCROLL_DIRECTIONS:
        raise ModelReplyError(
            f"scroll: direction must be one of {', '.join(SCROLL_DIRECTIONS)}, not {direction!r}"
        )
    return Scroll(direction, at=a.point(*_START, required=False))


def _drag(a: _Args, _t: str) -> Action:
    source = a.point(*_START)
    if a.text(*_END, positional=False) is None:
        raise ModelReplyError(f"{a.call.verb}: missing end_box in {preview(a.call.source)}")
    return Drag(source, a.point(*_END))


def _finished(a: _Args, _t: str) -> Action:
    content = (a.text("content", "answer") or "").strip()
    return Done(content or None)


def _call_user(a: _Args, thought: str) -> Action:
    return AskUser(thought or "The model needs your help to continue this task.")


def _open_app(a: _Args, _t: str) -> Action:
    return OpenApp((a.text("app_name", "name", "app") or "").strip())


_VERBS = {
    "click": _click(), "left_single": _click(), "left_click": _click(),
    "left_double": _click(clicks=2), "double_click": _click(clicks=2),
    "left_triple": _click(clicks=3),
    "right_single": _click("right"), "right_click": _click("right"),
    "middle_single": _click("middle"),
    "hover": lambda a, _t: Move(a.point(*_START)), "mouse_move": lambda a, _t: Move(a.point(*_START)),
    "drag": _drag, "select": _drag,
    "type": _type,
    "hotkey": _keys, "press": _keys,
    "scroll": _scroll,
    "wait": lambda _a, _t: Wait(_WAIT_SECONDS),
    "finished": _finished,
    "call_user": _call_user,
    "open_app": _open_app,
}
