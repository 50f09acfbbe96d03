"""Grounding-only replies (UGround, OS-Atlas, and other "point at it" models): one position.

Accepted: ``(x, y)``, ``[x, y]``, ``[x1, y1, x2, y2]``, ``(x1,y1),(x2,y2)``,
``<|box_start|>(x1,y1),(x2,y2)<|box_end|>`` (OS-Atlas), ``<point>[[x, y]]</point>``,
``<point>x y</point>``, ``<bbox>x1 y1 x2 y2</bbox>``, possibly inside prose or a code fence.
A box means its centre. Numbers are in the frame's convention (0-1000 for UGround-V1 and
OS-Atlas). Two different positions in one reply are refused, never picked from.
"""

from __future__ import annotations

import re

from ...actions import Click
from ...geometry import Box, Point
from ..coordinates import ImageFrame, ModelReplyError, require_frame
from . import NUMBER, ModelReply, ascii_punctuation, check_length, numbers_in, preview, unfence

_NUM = NUMBER.pattern
_GROUP = re.compile(rf"[\(\[]\s*{_NUM}(?:\s*,\s*{_NUM})*\s*[\)\]]")
_TAGGED = re.compile(
    r"<\|box_start\|>(.*?)<\|box_end\|>|<point>(.*?)</point>|<bbox>(.*?)</bbox>", re.S
)
_OBJECT_REF = re.compile(r"<\|object_ref_start\|>.*?<\|object_ref_end\|>", re.S)
_BARE = re.compile(rf"\s*{_NUM}(?:\s*[, ]\s*{_NUM}){{1,3}}\s*")

FORMAT_REMINDER = (
    "Answer with only the position of the element as (x, y), or its box as "
    "[x1, y1, x2, y2], and nothing else."
)


def _targets(text: str) -> list[list[float]]:
    """Every position written in the reply, as 2 (point) or 4 (box) numbers each."""
    body = ascii_punctuation(_OBJECT_REF.sub(" ", unfence(text)))
    tagged = [next(g for g in m.groups() if g is not None) for m in _TAGGED.finditer(body)]
    if tagged:
        return [n for n in (numbers_in(t) for t in tagged) if len(n) in (2, 4)]
    if _BARE.fullmatch(body):
        numbers = numbers_in(body)
        return [numbers] if len(numbers) in (2, 4) else []
    targets: list[list[float]] = []
    groups = list(_GROUP.finditer(body))
    i = 0
    while i < len(groups):
        numbers = numbers_in(groups[i].group(0))
        if len(numbers) == 2 and i + 1 < len(groups):
            between = body[groups[i].end():groups[i + 1].start()]
            following = numbers_in(groups[i + 1].group(0))
            if re.fullmatch(r"\s*,?\s*", between) and len(following) == 2:
                targets.append(numbers + following)  # (x1,y1),(x2,y2): a box
                i += 2
                continue
        if len(numbers) in (2, 4):
            targets.append(numbers)
        i += 1
    return targets


def _one_target(text: str) -> list[float]:
    if not isinstance(text, str) or not text.strip():
        raise ModelReplyError("the grounding reply is empty: expected a position (x, y)")
    check_length(text)
    targets = _targets(text)
    if not targets:
        raise ModelReplyError(
            f"no position in the grounding reply {preview(text)}: expected (x, y) or [x1, y1, x2, y2]"
        )
    if any(t != targets[0] for t in targets[1:]):
        raise ModelReplyError(
            f"the grounding reply gives {len(targets)} different positions ({preview(text)}); "
            "expected exactly one"
        )
    return targets[0]


def parse_point(text: str, frame: ImageFrame | None) -> Point:
    """The one position a grounding reply names, as an observation image pixel."""
    numbers = _one_target(text)
    frame = require_frame(frame)
    if len(numbers) == 2:
        return frame.to_image(*numbers, strict=True)
    return frame.center_to_image(*numbers, strict=True)


def parse_target(text: str, frame: ImageFrame | None) -> Point | Box:
    """Like :func:`parse_point`, but a box answer stays a Box (observation image pixels)."""
    numbers = _one_target(text)
    frame = require_frame(frame)
    if len(numbers) == 2:
        return frame.to_image(*numbers, strict=True)
    return frame.box_to_image(*numbers, strict=True)


class GroundingPointAdapter:
    name = "grounding-point"
    format_reminder = FORMAT_REMINDER

    def parse(self, text: str, frame: ImageFrame | None) -> ModelReply:
        return ModelReply("", (Click(parse_point(text, frame)),), text)

    def parse_point(self, text: str, frame: ImageFrame | None) -> Point:
        """The one position the reply names (what a grounding ladder rung needs)."""
        return parse_point(text, frame)
