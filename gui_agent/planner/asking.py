"""Asking a model and reading its reply: the reply that cannot be read gets one retry with a
reminder of the format, then a PlanningError that shows how it began; a plan is a numbered (or
bulleted) list of subtasks, DONE, or GIVE UP with a reason; a plan line may be an action
written as a call."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ..actions import Action
from ..backends.base import Backend, GenerationSettings, Message, generate_within
from ..deadline import Deadline
from ..errors import PlanningError
from . import prompting

log = logging.getLogger(__name__)
T = TypeVar("T")

_ITEM = re.compile(r"^\s*(?:\d+\s*[.):]|[-*•])\s+(.+?)\s*$")
_GIVE_UP = re.compile(r"^\s*(?:give\s*up|cannot be done)\b[:\s-]*(.*)$", re.I | re.S)
_DONE = re.compile(r"^\s*(?:done|finished|nothing(?: is)? left)\s*[.!]?\s*$", re.I)


def preview(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit - 3] + "...")


_CALL_LINE = re.compile(r"^\s*([a-z_]+)\s*\(.*\)\s*$", re.S)


def action_line(line: str) -> Action | None:
    """The action a plan line is written as (``click("the Save button")``), else None."""
    from ..actions import ACTION_TYPES, parse_action
    from ..errors import ActionParseError

    call = _CALL_LINE.match(line.strip().strip("`"))
    if call is None or call.group(1) not in ACTION_TYPES:
        return None
    try:
        return parse_action(line.strip().strip("`"))
    except ActionParseError:
        return None


@dataclass(frozen=True)
class PlanReply:
    """A plan as the model wrote it: subtasks, or finished, or a reason to give up."""

    subtasks: tuple[str, ...] = ()
    finished: bool = False
    give_up: str | None = None


def parse_plan(text: str, max_subtasks: int = 8) -> PlanReply:
    """Read a numbered (or bulleted) list of subtasks, ``DONE`` or ``GIVE UP: why``."""
    body = re.sub(r"<think>.*?</think>", "", text, flags=re.S).strip()
    give_up = _GIVE_UP.match(body)
    if give_up:
        return PlanReply(give_up=give_up.group(1).strip() or "the model gave up")
    if _DONE.match(body):
        return PlanReply(finished=True)
    items = [m.group(1).strip().strip('"') for line in body.splitlines() if (m := _ITEM.match(line))]
    items = [i for i in items if i]
    if not items:
        raise PlanningError(f"expected a numbered list of subtasks, got {preview(body, 80)}")
    return PlanReply(tuple(items[:max_subtasks]))


def _ask(backend: Backend, messages: list[Message], generation: GenerationSettings | None,
         what: str, deadline: Deadline | None = None) -> str:
    reply = generate_within(backend, messages, generation, deadline, what)
    if not isinstance(reply, str):
        raise PlanningError(f"the {what} backend {getattr(backend, 'name', '?')!r} returned no text")
    return reply


def ask_with_retry(backend: Backend, messages: list[Message], generation: GenerationSettings | None,
                   read: Callable[[str], T], reminder: Callable[[str], str], what: str,
                   deadline: Deadline | None = None) -> T:
    """``read(reply)``; on a PlanningError one retry with ``reminder(error)``, then a clear error."""
    reply = _ask(backend, messages, generation, what, deadline)
    try:
        return read(reply)
    except PlanningError as first:
        log.info("%s reply unreadable (%s); retrying with a format reminder", what, first)
        retry = prompting.retry_messages(messages, reply, reminder(str(first)))
        again = _ask(backend, retry, generation, what, deadline)
        try:
            return read(again)
        except PlanningError as second:
            raise PlanningError(
                f"the {what} model's reply could not be read, even after a reminder of the "
                f"format: {second}. The reply began: {preview(again)}") from second
