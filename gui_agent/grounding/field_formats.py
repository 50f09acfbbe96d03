"""'The date field', 'the time field' with no label reading "Date" or "Time": the field whose
text is a date or a time, or the pattern a browser shows in an empty one ("mm/dd/yyyy",
"--:-- --"). The kind of value a field takes is written in it."""

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
    """The text fields whose text has the format the description names ('the date field')."""
    pattern = FORMATS.get(query.text.strip().lower())
    if pattern is None or (query.kinds and ElementKind.TEXT_FIELD not in query.kinds):
        return []
    out = []
    for e in elements:
        shown = re.sub(r"\s+", "", e.text or "")
        if e.kind == ElementKind.TEXT_FIELD and shown and pattern.match(shown):
            # a browser's date or time input takes its value part by part, from the part
            # clicked: it is clicked on its first part, where its text starts
            b = e.box
            first = Box(b.left + 4, b.top, max(4, round(b.width * FIRST_PART)), b.height)
            out.append(Scored(e, first, FORMAT_SCORE, f"a field showing a {query.text.lower()}: {e.text!r}, "
                                                      "clicked on its first part"))
    return out
