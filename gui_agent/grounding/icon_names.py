"""An icon asked for by name that no glyph names clearly on its own ('the trash icon' on a bin
with a badge on its corner): of the screen's unnamed icon-sized shapes, the ones most like a
glyph of that name (parsing/named_icons.py), priced below an icon named without being asked."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..parsing.elements import Element, ElementKind
from ..parsing.named_icons import shapes_like
from .description import TargetQuery
from .kinds import kind_factor
from .scored import Scored

ASKED_FACTOR = 0.8      # a likeness found because the task asked for it: below one seen unasked
_CAPTIONLESS = (ElementKind.ICON, ElementKind.BUTTON)


def asked_icons(query: TargetQuery, elements: Iterable[Element], gray: Any) -> list[Scored]:
    """Shapes that look like a glyph called ``query.text``, as ICON candidates (the caption-less
    element over one, where the parser has it)."""
    elements = list(elements)
    out = []
    for box, like in shapes_like(gray, elements, query.text):
        twin = next((e for e in elements if e.kind in _CAPTIONLESS and not e.text.strip()
                     and e.box.iou(box) > 0.3), None)
        element = twin or Element(ElementKind.ICON, box, score=round(like, 3), source="detector",
                                  looks_like=(query.text.lower(),))
        kind = max(kind_factor(query, k) for k in _CAPTIONLESS)     # an icon is a button's face
        out.append(Scored(element, element.box, like * ASKED_FACTOR * kind,
                          f"a shape more like a {query.text.lower()!r} icon than any other on the screen"))
    return out
