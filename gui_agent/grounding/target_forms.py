"""Descriptions that name no element but a place or a literal text.

A point spelled out ('(725, 418)', 'at 725,418', 'x=725 y=418') is clicked where it says; the
start or end of a text ('the start of "quick brown"') is where a drag that selects it begins and
ends; :func:`quote` writes a text the grounder must match literally. Pure string work, as the
rest of the description grammar (:mod:`.description`).
"""

from __future__ import annotations

import re

from ..geometry import Point

# 'at (725, 418)', '(725,418)', 'at 725, 418', 'the point 725 418', 'x=725 y=418', 'position (725, 418)'
_POINT_RE = re.compile(
    r"^(?:(?:at|on|to)\s+)?(?:the\s+)?(?:(?:point|position|coordinates?|pixel|location)\s+)?"
    r"(?:\((?P<x1>\d{1,5})\s*[,;]?\s*(?P<y1>\d{1,5})\)|(?P<x2>\d{1,5})\s*[,;]\s*(?P<y2>\d{1,5})|"
    r"x\s*[=:]\s*(?P<x3>\d{1,5})\s*[, ]\s*y\s*[=:]\s*(?P<y3>\d{1,5}))"
    r"(?:\s+(?:field|box|button|element|spot))?$",
    re.IGNORECASE,
)


def point_of(description: str) -> Point | None:
    """The screen point a description spells out ('(725, 418)', 'at 725,418', 'x=725 y=418'),
    in screenshot pixels; None for anything else (a quoted "(1, 2)" is a text, not a point)."""
    m = _POINT_RE.match(description.strip().rstrip("."))
    if m is None:
        return None
    x = next(m.group(k) for k in ("x1", "x2", "x3") if m.group(k) is not None)
    y = next(m.group(k) for k in ("y1", "y2", "y3") if m.group(k) is not None)
    return Point(int(x), int(y))


_EDGE_RE = re.compile(r"^the\s+(?P<edge>start|beginning|end)\s+of\s+(?P<inner>.+)$", re.IGNORECASE)


def quote(text: str) -> str:
    """A text the grounder must match literally: in double quotes (single if it has one)."""
    if not text.strip():
        return ""
    return f"'{text}'" if '"' in text else f'"{text}"'


def edge_of(description: str) -> tuple[str, str] | None:
    """('start' | 'end', the inner description) for 'the start of "quick brown"' / 'the end of
    the Name field': the point just inside that end of what the inner one names (where a drag
    that selects a text begins and ends); None for any other description."""
    m = _EDGE_RE.match(description.strip())
    if m is None:
        return None
    return ("end" if m.group("edge").lower() == "end" else "start"), m.group("inner").strip()
