"""'The date field', 'the time field', 'the search field' with no label reading "Date", "Time" or
"Search": the field whose text is a date or a time, or the pattern a browser shows in an empty one
("mm/dd/yyyy", "--:-- --"), or whose own icon looks like what it takes (a clock, a calendar, a
magnifier). The kind of value a field takes is shown in it."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..geometry import Box
from ..parsing.elements import Element, ElementKind
from .description import TargetQuery
from .scored import Scored

_PART = r"(?:mm|dd|yyyy|yy|jj|aaaa|tt|\d{1,4})"
FORMATS: dict[str, re.Pattern[str]] = {
    "date": re.compile(rf"^{_PART}([/.\-]){_PART}\1{_PART}$", re.IGNORECASE),
    "time": re.compile(r"^(?:--|hh|\d{1,2})[:.](?:--|mm|\d{2})(?:[:.](?:--|ss|\d{2}))?(?:--|am|pm|a|p)?$",
                       re.IGNORECASE),     # (OCR may read the colon of a faint "--:--" as a dot)
}
FORMAT_SCORE = 0.85     # below a field labelled so, above one named by its role alone
FIRST_PART = 0.1        # of a field's width: where its first part ("mm") is clicked


def formatted_fields(query: TargetQuery, elements: Iterable[Element]) -> list[Scored]:
    """The text fields whose text has the format the description names ('the date field'), or
    whose own icon looks like it ('the time field' with a clock in it)."""
    name = query.text.strip().lower()
    pattern = FORMATS.get(name)
    if query.kinds and ElementKind.TEXT_FIELD not in query.kinds:
        return []
    elements = list(elements)
    icons = [e for e in elements if e.kind == ElementKind.ICON and name in e.looks_like]
    out = []
    for e in elements:
        if e.kind != ElementKind.TEXT_FIELD:
            continue
        shown = re.sub(r"\s+", "", e.text or "")
        if pattern is not None and shown and pattern.match(shown):
            out.append(Scored(e, _first_part(e.box), FORMAT_SCORE,
                              f"a field showing a {name}: {e.text!r}, clicked on its first part",
                              segmented=True))
            continue
        icon = next((i for i in icons if e.box.contains(i.box.center) and i.box.area < 0.5 * e.box.area), None)
        if icon is not None:
            parts = pattern is not None and not shown     # an empty date or time input
            out.append(Scored(e, _first_part(e.box) if parts else e.box, FORMAT_SCORE,
                              f"a field whose icon looks like a {name} ({icon.looks_like[0]!r})",
                              segmented=parts))
    return out


def _first_part(b: Box) -> Box:
    """A browser's date or time input takes its value part by part, from the part clicked: it is
    clicked on its first part, where its text starts."""
    return Box(b.left + 4, b.top, max(4, round(b.width * FIRST_PART)), b.height)
