"""A date that a field will not take typed is picked on its calendar.

Date fields on web pages and in apps are often read-only: clicking them opens a month grid
under a heading such as "December 2016", between a previous and a next arrow. When typing a
date had no effect and such a heading is on the screen, the offline worker steps the calendar
month by month towards the date (clicking the arrow beside the heading), then clicks the day
under the heading. The month names are the language file's (``numbers.months``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date

from ..actions import Click
from . import vocabulary as vocab

MAX_CALENDAR_STEPS = 40          # month arrows and the day: a date more than three years away fails
_NUMERIC = re.compile(r"^\s*(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})\s*$")        # 12/10/2016 (month first)
_ISO = re.compile(r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})\s*$")                     # 2016-12-10
_HEADING = re.compile(r"^\s*([^\W\d_]+)\.?,?\s*(\d{4})\s*$")    # December 2016 (OCR may drop the space)


def parse_date(text: str) -> date | None:
    """The date a typed text spells (month/day/year as US forms write it, or ISO), else None."""
    try:
        if m := _ISO.match(text):
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if m := _NUMERIC.match(text):
            return date(int(m.group(3)), int(m.group(1)), int(m.group(2)))
    except ValueError:
        return None
    return None


def shown_month(texts: Iterable[str]) -> tuple[int, int, str] | None:
    """(year, month, the heading as shown) of a calendar on the screen, else None."""
    for text in texts:
        m = _HEADING.match(text)
        month = vocab.MONTHS.get(m.group(1).lower()) if m else None
        if m and month:
            return int(m.group(2)), month, text.strip()
    return None


def calendar_click(wanted: date, texts: Iterable[str]) -> Click | None:
    """The next click towards ``wanted`` on the calendar the screen shows (an arrow beside its
    heading, or the day under it); None when no calendar heading is on the screen."""
    shown = shown_month(texts)
    if shown is None:
        return None
    year, month, heading = shown
    if (year, month) == (wanted.year, wanted.month):
        return Click(f'"{wanted.day}" below "{heading}"')
    side = "left" if (year, month) > (wanted.year, wanted.month) else "right"
    return Click(f'{side} of "{heading}"')


def is_calendar_click(action: object) -> bool:
    """Whether ``action`` is one of :func:`calendar_click`'s clicks."""
    return isinstance(action, Click) and isinstance(action.target, str) and bool(
        re.fullmatch(r'(?:"\d{1,2}" below|left of|right of) "[^"]+\d{4}"', action.target))
