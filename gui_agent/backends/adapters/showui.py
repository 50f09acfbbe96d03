"""ShowUI replies: ``{'action': 'CLICK', 'value': None, 'position': [0.49, 0.42]}``.

Positions are 0-1 relative to the image (the frame's convention is normally ``relative-1``).
A reply is one such dict, a list of them, several separated by text, or a bare
``[x, y]`` (ShowUI's grounding answer). Actions per the ShowUI README (web and mobile):
CLICK/TAP, INPUT, SELECT, HOVER, ANSWER, ENTER, SCROLL, SELECT_TEXT, COPY, SWIPE, PRESS.
Read with ``ast.literal_eval`` / ``json`` only.
"""

from __future__ import annotations

import re
from typing import Any

from ...actions import SCROLL_DIRECTIONS, Action, Click, Done, Drag, Hotkey, Move, Scroll, Type
from ...errors import ActionParseError
from ...geometry import Point
from ..coordinates import ImageFrame, ModelReplyError, require_frame
from . import (
    ModelReply,
    check_length,
    finite_numbers,
    preview,
    read_literal,
    split_keys,
    typed_text,
    unfence,
)

_DICT = re.compile(r"\{[^{}]*\}")

FORMAT_REMINDER = (
    "Answer with one action as a Python dict, e.g. "
    "{'action': 'CLICK', 'value': None, 'position': [0.49, 0.42]}, where position is [x, y] "
    "relative to the screenshot (0 to 1) and action is one of CLICK, INPUT, SELECT, HOVER, "
    "ANSWER, ENTER, SCROLL, SELECT_TEXT, COPY."
)


def read_items(text: str) -> tuple[list[Any], str]:
    """The dicts / coordinate lists in a reply, and the text around them (the thought)."""
    body = unfence(text).strip()
    try:
        value = read_literal(body)
    except ValueError:
        value = None
    if value is not None:
        return (list(value) if _is_dict_list(value) else [value]), ""
    items, rest, last = [], [], 0
    for match in _DICT.finditer(body):
        try:
            items.append(read_literal(match.group(0)))
        except ValueError:
            continue
        rest.append(body[last:match.start()])
        last = match.end()
    rest.append(body[last:])
    if not items:  # perhaps a bare [x, y] inside prose
        bracket = re.search(r"\[[^\[\]]*\]", body)
        if bracket:
            try:
                items.append(read_literal(bracket.group(0)))
                rest = [body[: bracket.start()], body[bracket.end():]]
            except ValueError:
                pass
    return items, " ".join(" ".join(rest).split())


def _is_dict_list(value: Any) -> bool:
    return isinstance(value, list | tuple) and bool(value) and all(isinstance(v, dict) for v in value)


def _numbers(value: Any) -> list[float] | None:
    """A flat list of finite numbers, or None (also for a 400-digit integer)."""
    return finite_numbers(value)


class ShowUiAdapter:
    name = "showui"
    format_reminder = FORMAT_REMINDER

    def parse(self, text: str, frame: ImageFrame | None) -> ModelReply:
        if not isinstance(text, str) or not text.strip():
            raise ModelReplyError("the ShowUI reply is empty: expected {'action': ..., 'position': [x, y]}")
        check_length(text)
        items, thought = read_items(text)
        if not items:
            raise ModelReplyError(
                f"no action in the ShowUI reply {preview(text)}: expected a dict such as "
                "{'action': 'CLICK', 'value': None, 'position': [0.5, 0.5]}"
            )
        actions: list[Action] = []
        for item in items:
            try:
                actions.extend(self._actions(item, frame))
            except ActionParseError as exc:
                raise ModelReplyError(f"ShowUI action {preview(str(item))}: {exc}") from exc
        return ModelReply(thought, tuple(actions), text)

    def _actions(self, item: Any, frame: ImageFrame | None) -> list[Action]:
        if _numbers(item) is not None:
            return [Click(_point(item, frame))]
        if not isinstance(item, dict):
            raise ModelReplyError(f"ShowUI action {preview(str(item))} is not a dict with 'action'")
        verb = item.get("action")
        if not isinstance(verb, str) or not verb.strip():
            raise ModelReplyError(f"ShowUI action {preview(str(item))} has no 'action' name")
        verb = verb.strip().upper()
        value, position = item.get("value"), item.get("position")
        text = value if isinstance(value, str) and value.strip().lower() not in ("", "none", "null") else None
        if verb in ("CLICK", "TAP"):
            return [Click(_point(position, frame))]
        if verb == "HOVER":
            return [Move(_point(position, frame))]
        if verb == "INPUT":
            if value is None:
                raise ModelReplyError("ShowUI INPUT needs the text to type in 'value'")
            typed, enter = typed_text(str(value))
            into = _point(position, frame) if position is not None else None
            return [Type(typed, into=into, enter=enter)]
        if verb == "SELECT":
            # Open the list, then type the option's name and confirm (works for native
            # drop-downs and combo boxes alike).
            click: list[Action] = [Click(_point(position, frame))]
            return click + ([Type(text, enter=True)] if text else [])
        if verb == "ANSWER":
            return [Done(str(value).strip() or None if value is not None else None)]
        if verb == "ENTER":
            return [Hotkey(("enter",))]
        if verb == "PRESS":
            if not text:
                raise ModelReplyError("ShowUI PRESS needs the key name in 'value'")
            return [Hotkey(split_keys(text))]
        if verb == "COPY":
            return [Hotkey(("ctrl", "c"))]
        if verb == "SCROLL":
            direction = (text or "").strip().lower()
            if direction not in SCROLL_DIRECTIONS:
                raise ModelReplyError(
                    f"ShowUI SCROLL value must be one of {', '.join(SCROLL_DIRECTIONS)}, not {value!r}"
                )
            at = _point(position, frame) if _numbers(position) is not None else None
            return [Scroll(direction, at=at)]
        if verb in ("SELECT_TEXT", "SWIPE", "DRAG"):
            start, end = _pair(position, frame, verb)
            return [Drag(start, end)]
        raise ModelReplyError(
            f"unknown ShowUI action {verb!r}; known: CLICK, TAP, INPUT, SELECT, HOVER, ANSWER, "
            "ENTER, PRESS, SCROLL, SELECT_TEXT, SWIPE, COPY"
        )


def _point(position: Any, frame: ImageFrame | None) -> Point:
    numbers = _numbers(position)
    if numbers is not None and len(numbers) == 2:
        return require_frame(frame).to_image(*numbers, strict=True)
    if numbers is not None and len(numbers) == 4:
        return require_frame(frame).center_to_image(*numbers, strict=True)
    raise ModelReplyError(f"ShowUI position {position!r} is not [x, y] (0 to 1)")


def _pair(position: Any, frame: ImageFrame | None, verb: str) -> tuple[Point, Point]:
    flat = _numbers(position)
    if flat is None and isinstance(position, list | tuple) and len(position) == 2:
        parts = [_numbers(p) for p in position]
        if all(p is not None and len(p) == 2 for p in parts):
            flat = [*parts[0], *parts[1]]  # type: ignore[misc]
    if flat is None or len(flat) != 4:
        raise ModelReplyError(f"ShowUI {verb} position must be [[x1, y1], [x2, y2]], not {position!r}")
    frame = require_frame(frame)
    return frame.to_image(flat[0], flat[1], strict=True), frame.to_image(flat[2], flat[3], strict=True)
