"""A date picked on a calendar: after typing a date (taken or refused by its field) while a
month grid is open, the worker steps the months with the arrows beside the heading and clicks
the day under it (Pillow calendars, two themes, two fonts)."""

from __future__ import annotations

import calendar as months
from datetime import date

import pytest
from PIL import Image, ImageDraw

from gui_agent.actions import Click, Done, Type
from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.queries import ScreenQueries
from gui_agent.planner.base import StepRecord
from gui_agent.planner.calendar import parse_date
from gui_agent.planner.offline import OfflineManager, OfflineWorker
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font

TASK = "Select 12/10/2016 as the date and hit submit."


def _calendar(year: int, month: int, theme: str, font_name: str) -> tuple[Image.Image, dict[str, Box]]:
    """A date field with a month grid under it; the boxes of the arrows and of each day."""
    c = THEMES[theme]
    img = Image.new("RGB", (420, 420), c["bg"])
    d = ImageDraw.Draw(img)
    f, small = font(16, font_name), font(13, font_name)
    d.text((10, 22), "Date:", fill=c["fg"], font=f)
    d.rectangle([70, 14, 330, 46], fill=c["field"], outline=c["border"], width=2)
    d.rectangle([70, 56, 330, 330], fill=c["field"], outline=c["border"])
    heading = f"{months.month_name[month]} {year}"
    d.text((200, 76), heading, fill=c["fg"], font=f, anchor="mm")
    boxes = {}
    for name, cx, glyph in (("prev", 92, "<"), ("next", 308, ">")):
        d.ellipse([cx - 11, 65, cx + 11, 87], outline=c["border"], width=2)
        d.text((cx, 76), glyph, fill=c["fg"], font=small, anchor="mm")
        boxes[name] = Box(cx - 11, 65, 23, 23)
    for i, wd in enumerate(("Su", "Mo", "Tu", "We", "Th", "Fr", "Sa")):
        d.text((96 + i * 34, 104), wd, fill=c["fg"], font=small, anchor="mm")
    first = (date(year, month, 1).weekday() + 1) % 7
    for day in range(1, months.monthrange(year, month)[1] + 1):
        row, col = divmod(first + day - 1, 7)
        x, y = 81 + col * 34, 120 + row * 32
        d.rectangle([x, y, x + 30, y + 26], fill=c["face"], outline=c["border"])
        d.text((x + 15, y + 13), str(day), fill=c["fg"], font=small, anchor="mm")
        boxes[str(day)] = Box(x, y, 31, 27)
    return img, boxes


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", ["dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf"])
def test_the_date_is_picked_on_its_calendar(theme, font_name):
    ladder, parser = default_ladder()
    ladder.instruction = TASK
    worker = OfflineWorker(texts_reader=ScreenQueries(ladder, parser).texts)
    first = OfflineManager().plan(TASK)[0]
    typed = first.actions[0]
    assert isinstance(typed, Type) and parse_date(typed.text) == date(2016, 12, 10)
    img, boxes = _calendar(2016, 11, theme, font_name)
    assert worker.next_action(first, Observation.from_image(img), []) == typed
    history = [StepRecord(typed, 0, False, "no effect after 2 tries")]   # a read-only field
    click = worker.next_action(first, Observation.from_image(img), history)
    assert isinstance(click, Click)
    assert boxes["next"].contains(ladder.resolve(click.target, Observation.from_image(img)).point)
    history.append(StepRecord(click, 0, True))

    img, boxes = _calendar(2016, 12, theme, font_name)
    day = worker.next_action(first, Observation.from_image(img), history)
    assert isinstance(day, Click)
    assert boxes["10"].contains(ladder.resolve(day.target, Observation.from_image(img)).point)
    history.append(StepRecord(day, 0, True))
    assert isinstance(worker.next_action(first, Observation.from_image(img), history), Done)


def test_a_later_calendar_steps_back_and_no_calendar_changes_nothing():
    ladder, parser = default_ladder()
    worker = OfflineWorker(texts_reader=ScreenQueries(ladder, parser).texts)
    first = OfflineManager().plan(TASK)[0]
    img, boxes = _calendar(2017, 2, "light", "dejavu/DejaVuSans.ttf")
    assert worker.next_action(first, Observation.from_image(img), []) == first.actions[0]
    back = worker.next_action(first, Observation.from_image(img), [StepRecord(first.actions[0], 0, True)])
    assert boxes["prev"].contains(ladder.resolve(back.target, Observation.from_image(img)).point)
    plain = Image.new("RGB", (420, 420), "white")
    other = OfflineWorker(texts_reader=ScreenQueries(ladder, parser).texts)
    assert other.next_action(first, Observation.from_image(plain), []) == first.actions[0]
    assert isinstance(other.next_action(first, Observation.from_image(plain),
                                        [StepRecord(first.actions[0], 0, True)]), Done)
