"""What was under the pointer: the element at a point of a parsed frame, its label, a
description the grounding ladder finds again, and parameter names made from labels."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import GroundingError
from ..geometry import Box, Point
from ..parsing.elements import Element, ElementKind

K = ElementKind
NEAR_PX = 6                 # a click this close to an element's edge still means that element
ROW_CONTAINER_PX = 60       # a widget taller than this holds rows (a list): a click means the row's text
LABEL_LEFT_PX = 320         # a field's label lies this far to its left at most
LABEL_ABOVE_PX = 40         # ... or this far above it
_ROLE = {K.BUTTON: "button", K.LINK: "link", K.TAB: "tab", K.CHECKBOX: "checkbox",
         K.RADIO: "radio button", K.COMBO: "drop-down", K.TEXT_FIELD: "field"}


def _distance(box: Box, p: Point) -> float:
    dx = max(box.left - p.x, 0, p.x - (box.right - 1))
    dy = max(box.top - p.y, 0, p.y - (box.bottom - 1))
    return math.hypot(dx, dy)


def element_at(elements: Iterable[Element], point: Point) -> Element | None:
    """The element under ``point``: a widget before the text on it, the smallest first.

    A click on a row of a tall widget (a list, a text area) means the text on that row, when
    there is one: the row's text is what a replay can find again, not the whole list.
    """
    elements = list(elements)
    near = [(e, _distance(e.box, point)) for e in elements]
    near = [(e, d) for e, d in near if d <= NEAR_PX]
    if not near:
        return None
    inside = [e for e, d in near if d == 0] or [min(near, key=lambda n: n[1])[0]]
    best = min(inside, key=lambda e: (e.kind == K.TEXT, e.box.width * e.box.height))
    if best.kind != K.TEXT and best.box.height > ROW_CONTAINER_PX:
        row = [e for e in elements if e.kind == K.TEXT and (e.text or "").strip()
               and best.box.contains(e.box.center) and e.box.top - NEAR_PX <= point.y < e.box.bottom + NEAR_PX]
        if row:
            return min(row, key=lambda e: (_distance(e.box, point), e.box.area))
    return best


def label_of(element: Element, elements: Sequence[Element]) -> str | None:
    """A field's label: the parser's, else the nearest text left of it or just above it."""
    if element.label:
        return element.label.strip() or None
    if element.kind not in (K.TEXT_FIELD, K.COMBO, K.CHECKBOX, K.RADIO):
        return None
    box = element.box
    best: tuple[float, str] | None = None
    for other in elements:
        text = (other.text or "").strip()
        if other is element or other.kind != K.TEXT or not text:
            continue
        ob = other.box
        same_row = ob.top < box.bottom and ob.bottom > box.top
        if same_row and 0 <= box.left - ob.right <= LABEL_LEFT_PX:
            score = box.left - ob.right
        elif 0 <= box.top - ob.bottom <= LABEL_ABOVE_PX and ob.left < box.right and ob.right > box.left - 20:
            score = (box.top - ob.bottom) * 2
        else:
            continue
        if best is None or score < best[0]:
            best = (score, text)
    return best[1] if best else None


def descriptions(element: Element, label: str | None) -> list[str]:
    """Descriptions to try for ``element``, the most robust first."""
    text = (element.text or "").strip().replace('"', "'")
    role = _ROLE.get(element.kind)
    out: list[str] = []
    if element.kind in (K.TEXT_FIELD, K.COMBO):
        if label:
            out += [f"the {label} {role}", f'the "{label}" {role}', f"the {role} for {label}"]
        return out
    if element.kind in (K.CHECKBOX, K.RADIO):
        name = label or text
        if name:
            out += [f'the "{name}" {role}', f'"{name}"']
        return out
    if text:
        out.append(f'"{text}"')
        if role:
            out.append(f'the "{text}" {role}')
    return out


def verified_description(element: Element, label: str | None, observation: Any,
                         ladder: Any) -> str | None:
    """The first description that the ladder resolves back onto ``element`` in this frame."""
    zone = Box(element.box.left - 4, element.box.top - 4, element.box.width + 8, element.box.height + 8)
    for description in descriptions(element, label):
        try:
            found = ladder.resolve(description, observation)
        except GroundingError:
            continue
        if zone.contains(found.point):
            return description
    return None


def param_slug(label: str | None, fallback: str = "text") -> str:
    """'E-mail address:' -> 'e_mail_address' (a valid parameter name)."""
    slug = re.sub(r"[^a-z0-9]+", "_", (label or "").lower()).strip("_")[:40].strip("_")
    if not slug:
        return fallback
    return f"p_{slug}" if slug[0].isdigit() else slug


def unique_name(name: str, taken: set[str]) -> str:
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}_{n}", n + 1
    taken.add(candidate)
    return candidate


def image_point(point: Sequence[int], screen: dict[str, Any]) -> Point:
    """A screen (input) point -> pixel of the recorded monitor's frames."""
    scale = float(screen.get("scale", 1.0) or 1.0)
    return Point(round((point[0] - int(screen.get("left", 0))) * scale),
                 round((point[1] - int(screen.get("top", 0))) * scale))
