"""Our own action text (``gui_agent.actions``), as a model prompted with it writes it.

A reply is an optional ``Thought:`` (one or more lines), then one action per line, each
optionally prefixed ``Action:``, a list marker (``-``, ``1.``) or wrapped in backticks; a
code fence around it all is fine. Lines that do not look like a call are reasoning. Targets
that are points or boxes are in the frame's convention (normally ``absolute``: observation
image pixels) and are mapped to observation image pixels; descriptions are kept as they are.
"""

from __future__ import annotations

import dataclasses
import re

from ...actions import ACTION_TYPES, Action, parse_action
from ...errors import ActionParseError
from ...geometry import Box, Point
from ..coordinates import ImageFrame, ModelReplyError
from . import ModelReply, check_length, preview

_PREFIX = re.compile(r"^\s*(?:[-*•]\s+|\d+[.)]\s+)?(?:Action\s*\d*\s*[:：]\s*)?`*\s*")
_THOUGHT = re.compile(r"^\s*(?:Thought|Reasoning|Reflection)\s*[:：]\s*", re.I)
_CALL = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_FENCE_LINE = re.compile(r"^\s*```")
_TARGET_FIELDS = ("target_", "into", "at", "source", "destination")

FORMAT_REMINDER = (
    "Answer with an optional line 'Thought: ...' and then one action per line in the action "
    "syntax, e.g. click(\"Save\"), type(\"hello\", into=\"Name\", enter=True), "
    "hotkey(\"ctrl\", \"s\"), scroll(\"down\"), done()."
)


class CanonicalAdapter:
    name = "gui-agent"
    format_reminder = FORMAT_REMINDER

    def parse(self, text: str, frame: ImageFrame | None) -> ModelReply:
        if not isinstance(text, str) or not text.strip():
            raise ModelReplyError("the reply is empty: expected an action such as click(\"OK\")")
        check_length(text)
        thought: list[str] = []
        actions: list[Action] = []
        for line in text.splitlines():
            if _FENCE_LINE.match(line) or not line.strip():
                continue
            body = _PREFIX.sub("", line, count=1).strip().rstrip("`").strip()
            call = _CALL.match(body)
            if call is None or (call.group(1) not in ACTION_TYPES and not _looks_like_action(line)):
                if not actions:
                    thought.append(_THOUGHT.sub("", line).strip())
                continue
            try:
                action = parse_action(body)
            except ActionParseError as exc:
                if not actions and not _looks_like_action(line) and not body.endswith(")"):
                    thought.append(_THOUGHT.sub("", line).strip())  # prose such as "type (the ..."
                    continue
                raise ModelReplyError(f"cannot read the action {preview(body)}: {exc}") from exc
            actions.append(_map_targets(action, frame))
        if not actions:
            raise ModelReplyError(
                f"no action in the reply {preview(text)}: expected a line such as click(\"OK\")"
            )
        return ModelReply("\n".join(t for t in thought if t), tuple(actions), text)


def _looks_like_action(line: str) -> bool:
    """An unknown verb is an error only where the model clearly meant an action line."""
    return bool(re.match(r"^\s*(?:Action\s*\d*\s*[:：]|`)", line))


def _map_targets(action: Action, frame: ImageFrame | None) -> Action:
    """Points and boxes in the frame's convention -> observation image pixels.

    Without a frame (no screenshot was shown) points are taken as observation image pixels.
    """
    if frame is None:
        return action
    changes = {}
    for name in _TARGET_FIELDS:
        value = getattr(action, name, None)
        if isinstance(value, Point):
            changes[name] = frame.to_image(value.x, value.y, strict=True)
        elif isinstance(value, Box):
            changes[name] = frame.box_to_image(*value.corners, strict=True)
    return dataclasses.replace(action, **changes) if changes else action

