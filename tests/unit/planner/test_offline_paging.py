"""A numbered item on a later page of its list: 'click the 8th search result' on results shown
three to a page. The worker counts the results shown, clicks the list's next-page control and
looks for the item that many fewer down (Pillow result pages, two themes, two fonts, real OCR);
a list without a next-page control, or a page that already shows the item, is left alone."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.actions import Click, Done, Fail, Type
from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.queries import ScreenQueries
from gui_agent.planner.base import StepRecord
from gui_agent.planner.offline import OfflineManager, OfflineWorker
from gui_agent.planner.paging import MAX_PAGES, PagingRun, next_page_word
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font

TASK = 'type "owl" into the search field, click "Search", then click the 8th search result'
NAMES = ["Renda", "Ignacio", "Marlow", "Quinta", "Bertil", "Odessa", "Tamsin", "Valery", "Wystan"]
PER_PAGE = 3


def _page(page: int, theme: str, font_name: str, pager: bool = True) -> tuple[Image.Image, dict[str, Box]]:
    """Results ``page`` (1-based) of NAMES, three to a page, under a search box; the boxes of
    each result's title and of the Next control."""
    c = THEMES[theme]
    img = Image.new("RGB", (480, 520), c["bg"])
    d = ImageDraw.Draw(img)
    f, small = font(17, font_name), font(14, font_name)
    d.rectangle([16, 14, 300, 48], fill=c["field"], outline=c["border"], width=2)
    d.text((24, 22), "owl", fill=c["fg"], font=f)
    d.rectangle([312, 14, 420, 48], fill=c["face"], outline=c["border"])
    d.text((366, 31), "Search", fill=c["fg"], font=f, anchor="mm")
    boxes = {}
    for k, name in enumerate(NAMES[(page - 1) * PER_PAGE: page * PER_PAGE]):
        y = 80 + k * 110
        d.text((20, y), name, fill=c["link"], font=f)
        boxes[name] = Box(20, y, round(d.textlength(name, font=f)), 20)
        d.text((20, y + 28), f"https://www.{name.lower()}.example.org", fill=(30, 130, 60), font=small)
        d.text((20, y + 52), "Lorem ipsum dolor sit amet.", fill=c["fg"], font=small)
    if pager:
        d.text((150, 440), "Previous", fill=c["link"], font=f)
        d.text((270, 440), "Next", fill=c["link"], font=f)
        boxes["Next"] = Box(270, 440, round(d.textlength("Next", font=f)), 20)
    return img, boxes


def _worker(ladder, parser) -> OfflineWorker:
    q = ScreenQueries(ladder, parser)
    return OfflineWorker(texts_reader=q.texts, named_reader=q.named)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", ["dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf"])
def test_the_eighth_result_is_found_two_pages_on(theme, font_name):
    ladder, parser = default_ladder()
    ladder.instruction = TASK
    worker = _worker(ladder, parser)
    plan = OfflineManager().plan(TASK)
    third = plan[2]
    assert third.actions == (Click("the 8th search result"),)
    img, boxes = _page(1, theme, font_name)
    obs = Observation.from_image(img)
    history: list[StepRecord] = []
    for page in (1, 2):
        click = worker.next_action(third, obs, history)
        assert isinstance(click, Click)
        history.append(StepRecord(click, 2, False, f"could not find {click.target!r} on the screen"))
        turn = worker.next_action(third, obs, history)
        assert isinstance(turn, Click), turn
        assert boxes["Next"].contains(ladder.resolve(turn.target, obs).point), (page, turn)
        history.append(StepRecord(turn, 2, True))
        img, boxes = _page(page + 1, theme, font_name)
        obs = Observation.from_image(img)
    click = worker.next_action(third, obs, history)
    assert click == Click("the 2nd search result")
    assert boxes["Valery"].contains(ladder.resolve(click.target, obs).point)   # NAMES[7]
    history.append(StepRecord(click, 2, True))
    assert isinstance(worker.next_action(third, obs, history), Done)


def test_a_list_without_a_next_page_control_fails_as_before():
    ladder, parser = default_ladder()
    ladder.instruction = TASK
    worker = _worker(ladder, parser)
    third = OfflineManager().plan(TASK)[2]
    obs = Observation.from_image(_page(1, "light", "dejavu/DejaVuSans.ttf", pager=False)[0])
    click = worker.next_action(third, obs, [])
    failed = [StepRecord(click, 2, False, "could not find 'the 8th search result' on the screen")]
    assert isinstance(worker.next_action(third, obs, failed), Fail)


def test_paging_stops_when_the_page_should_hold_the_item_or_after_max_pages():
    run, three = PagingRun(), ["Renda", "Ignacio", "Marlow"]
    assert run.turn((3, "result"), three, ["Next"]) is None        # the 3rd of 3 shown: no paging
    assert run.turn((8, "result"), ["Previous", "2", "Next"], ["Next"]) is None   # no items
    assert run.turn((8, "result"), [*three, "Previous", "1", "Next"], ["1 2 3 Next"]) == \
        Click('"Next"') and run.passed == 3                          # the pager is not counted
    for _ in range(MAX_PAGES - 1):
        assert run.turn((500, "result"), three, ["›"]) == Click('"›"')
    assert run.turn((500, "result"), three, ["›"]) is None
    assert next_page_word(["Previous", "1 2 3 »"]) == "»" and next_page_word(["1 2 3"]) is None
    assert next_page_word(["Adipiscing cursus.", "123>"]) == ">"   # read without its spaces


def test_a_planned_click_that_is_not_on_a_later_page_is_typed_unchanged():
    assert isinstance(OfflineManager().plan(TASK)[0].actions[0], Type)
