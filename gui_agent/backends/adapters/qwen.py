"""Qwen2.5-VL-Instruct replies: grounding JSON and the ``computer_use`` function call.

Grounding: ``[{"bbox_2d": [x1, y1, x2, y2], "label": "..."}]`` or ``{"point_2d": [x, y]}``,
usually in a ```json fence. Computer use (the Qwen agent cookbook's tool):
``<tool_call>{"name": "computer_use", "arguments": {"action": "left_click",
"coordinate": [x, y]}}</tool_call>``. Coordinates are pixels of the resized image the model
saw (convention ``absolute-resized``). Read with ``json`` (and ``ast.literal_eval`` for
single-quoted dicts) only. A plain ``(x, y)`` answer falls back to the grounding reader.
"""

from __future__ import annotations

import re
from typing import Any

from ...actions import Action, Click, Done, Drag, Fail, Hotkey, Move, Scroll, Type, Wait
from ...errors import ActionParseError
from ...geometry import Point
from ..coordinates import ImageFrame, ModelReplyError, require_frame
from . import (
    ModelReply,
    check_length,
    finite,
    finite_numbers,
    preview,
    read_literal,
    split_keys,
    typed_text,
    unfence,
)
from .grounding import parse_point

_TOOL_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.S)
_JSON_START = re.compile(r"[\[{]")
_MAX_ATTEMPTS = 40  # bounded work on long replies with many brackets
_CLICKS = {
    "left_click": ("left", 1), "right_click": ("right", 1), "middle_click": ("middle", 1),
    "double_click": ("left", 2), "triple_click": ("left", 3),
}
_UNSUPPORTED = ("left_mouse_down", "left_mouse_up", "cursor_position", "screenshot")

FORMAT_REMINDER = (
    "Answer with one tool call: <tool_call>{\"name\": \"computer_use\", \"arguments\": "
    "{\"action\": \"left_click\", \"coordinate\": [x, y]}}</tool_call>, or for a position "
    "only: ```json\n{\"point_2d\": [x, y]}\n```"
)


def _json_value(text: str) -> Any:
    """The first JSON (or Python literal) value in ``text``, or raises ValueError."""
    body = unfence(text).strip()
    try:
        return read_literal(body)
    except ValueError:
        pass
    attempts = 0
    for start in _JSON_START.finditer(body):  # JSON inside prose: try each opening bracket
        closer = "]" if start.group(0) == "[" else "}"
        end = body.rfind(closer)
        while end > start.start() and attempts < _MAX_ATTEMPTS:
            attempts += 1
            try:
                return read_literal(body[start.start():end + 1])
            except ValueError:
                end = body.rfind(closer, start.start(), end)
    raise ValueError(text)


class QwenAdapter:
    name = "qwen2.5-vl"
    format_reminder = FORMAT_REMINDER

    def parse(self, text: str, frame: ImageFrame | None) -> ModelReply:
        if not isinstance(text, str) or not text.strip():
            raise ModelReplyError("the Qwen2.5-VL reply is empty")
        check_length(text)
        calls = list(_TOOL_CALL.finditer(text))
        if calls:
            thought = " ".join(_TOOL_CALL.sub(" ", text).split())
            return ModelReply(thought, self._tool_actions(calls, frame), text)
        try:
            value = _json_value(text)
        except ValueError:
            return ModelReply("", (Click(parse_point(text, frame)),), text)
        return ModelReply("", (Click(_grounded_point(value, frame, text)),), text)

    def _tool_actions(self, calls: list[re.Match[str]], frame: ImageFrame | None) -> tuple[Action, ...]:
        actions: list[Action] = []
        cursor: Point | None = None
        for match in calls:
            body = match.group(1).strip()
            try:
                call = read_literal(body)
            except ValueError:
                raise ModelReplyError(f"the tool call {preview(body)} is not valid JSON") from None
            arguments = call.get("arguments") if isinstance(call, dict) else None
            if isinstance(arguments, str):
                try:
                    arguments = read_literal(arguments)
                except ValueError:
                    arguments = None
            if not isinstance(arguments, dict) or not isinstance(arguments.get("action"), str):
                raise ModelReplyError(
                    f"the tool call {preview(body)} has no \"arguments\" with an \"action\""
                )
            try:
                action, cursor = _computer_action(arguments, frame, cursor)
            except ActionParseError as exc:
                raise ModelReplyError(f"computer_use {arguments.get('action')}: {exc}") from exc
            if action is not None:
                actions.append(action)
        if not actions:
            raise ModelReplyError("the tool calls contain no action to perform")
        return tuple(actions)


def _coordinate(args: dict[str, Any], frame: ImageFrame | None, key: str = "coordinate") -> Point | None:
    value = args.get(key)
    if value is None:
        return None
    numbers = finite_numbers(value)
    if numbers is not None and len(numbers) == 2:
        return require_frame(frame).to_image(numbers[0], numbers[1], strict=True)
    raise ModelReplyError(f"{key} must be [x, y] (two finite numbers), not {preview(repr(value))}")


def _required(point: Point | None, verb: str) -> Point:
    if point is None:
        raise ModelReplyError(f"computer_use {verb} needs a \"coordinate\": [x, y]")
    return point


def _number(args: dict[str, Any], key: str, default: float) -> float:
    value = args.get(key, default)
    number = finite(value)
    if number is None:
        raise ModelReplyError(f"{key} must be a finite number, not {preview(repr(value))}")
    return number


def _computer_action(
    args: dict[str, Any], frame: ImageFrame | None, cursor: Point | None
) -> tuple[Action | None, Point | None]:
    """One computer_use call -> (action or None, the mouse position after it)."""
    verb = args["action"].strip().lower()
    at = _coordinate(args, frame)
    if verb in _CLICKS:
        button, clicks = _CLICKS[verb]
        target = _required(at if at is not None else cursor, verb)
        return Click(target, button=button, clicks=clicks), target
    if verb == "mouse_move":
        target = _required(at, verb)
        return Move(target), target
    if verb == "left_click_drag":
        start = _coordinate(args, frame, "start_coordinate") or cursor
        if start is None:
            raise ModelReplyError(
                "computer_use left_click_drag drags from the mouse position, which is unknown: "
                "move the mouse first (mouse_move) in the same reply"
            )
        end = _required(at, verb)
        return Drag(start, end), end
    if verb == "type":
        text = args.get("text")
        if not isinstance(text, str) or not text:
            raise ModelReplyError("computer_use type needs a non-empty \"text\"")
        typed, enter = typed_text(text)
        return Type(typed, enter=enter), cursor
    if verb == "key":
        keys = args.get("keys", args.get("text"))
        if isinstance(keys, str):
            keys = split_keys(keys)
        if not isinstance(keys, list | tuple) or not keys or not all(isinstance(k, str) for k in keys):
            raise ModelReplyError("computer_use key needs \"keys\": a list of key names")
        return Hotkey(tuple(k.lower() for k in keys)), cursor
    if verb == "scroll":
        pixels = _number(args, "pixels", 0)
        if pixels == 0:
            raise ModelReplyError("computer_use scroll needs non-zero \"pixels\" (positive scrolls up)")
        amount = min(100, max(1, round(abs(pixels))))
        return Scroll("up" if pixels > 0 else "down", amount, at=at), at or cursor
    if verb == "wait":
        return Wait(_number(args, "time", 1.0)), cursor
    if verb == "terminate":
        status = str(args.get("status", "success")).strip().lower()
        if status == "success":
            return Done(), cursor
        return Fail(f"the model ended the task with status {status!r}"), cursor
    if verb == "answer":
        text = args.get("text")
        return Done(str(text).strip() or None if text is not None else None), cursor
    if verb in _UNSUPPORTED:
        raise ModelReplyError(f"computer_use {verb} is not supported; use a click, drag or key action")
    raise ModelReplyError(f"unknown computer_use action {verb!r}")


def _grounded_point(value: Any, frame: ImageFrame | None, text: str) -> Point:
    """The one point of a grounding JSON answer (a box gives its centre)."""
    items = value if isinstance(value, list) and value and all(isinstance(v, dict) for v in value) else [value]
    points: list[Point] = []
    for item in items:
        if isinstance(item, dict) and "bbox_2d" in item:
            box = finite_numbers(item["bbox_2d"])
            if box is None or len(box) != 4:
                raise ModelReplyError(
                    f"bbox_2d must be [x1, y1, x2, y2], not {preview(repr(item['bbox_2d']))}")
            points.append(require_frame(frame).center_to_image(*box, strict=True))
        elif isinstance(item, dict) and "point_2d" in item:
            points.append(_required(_coordinate(item, frame, "point_2d"), "point_2d"))
        elif isinstance(item, list | tuple):
            return parse_point(str(list(item)), frame)
        else:
            raise ModelReplyError(
                f"no bbox_2d or point_2d in the Qwen2.5-VL answer {preview(text)}"
            )
    if len(set(points)) > 1:
        raise ModelReplyError(
            f"the answer names {len(points)} different elements ({preview(text)}); expected exactly one"
        )
    return points[0]
