"""One part of several records of a name: 'Click the "Like" button on 3 posts by @ann', '... on
all posts by @ann'. A feed taller than its window (Pillow, two themes, real OCR, icon buttons
named by the glyph they look like) is scrolled under the worker: each of Ann's posts gets its
own heart clicked once, none of anyone else's, and the count is kept; a count the feed cannot
reach fails saying how many it found."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

from gui_agent.actions import Click, Done, Fail, Scroll
from gui_agent.errors import TargetNotFound
from gui_agent.geometry import Box, Point
from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.queries import ScreenQueries
from gui_agent.parsing.icon_fonts import FONTS
from gui_agent.planner.base import StepRecord
from gui_agent.planner.offline import OfflineManager, OfflineWorker
from gui_agent.planner.reveal import SCROLLS
from gui_agent.planner.screen_aids import line_at
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font
from tests.support.requirements import require_icon_fonts

AWESOME, MATERIAL = (str(f.font) for f in FONTS)
ICONS = (("reply", AWESOME, "\uf112"), ("like", MATERIAL, "\ue87d"), ("share", MATERIAL, "\ue80d"))
POSTS = (("Ann Lee", "@ann", "Lunch at noon?"), ("Bo Park", "@bo", "New photos up."),
         ("Ann Lee", "@ann", "Back on Monday."), ("Cy Diaz", "@cy", "Who has the keys?"),
         ("Ann Lee", "@ann", "Rain again today."), ("Ann Lee", "@ann", "Train is late."),
         ("Bo Park", "@bo", "See you soon."))
POST_HEIGHT, WINDOW, WHEEL = 96, 250, 70      # px; one wheel click moves the feed this far


@pytest.fixture(autouse=True)
def _fonts():
    require_icon_fonts()


def _feed(theme: str) -> tuple[Image.Image, dict[tuple[int, str], Box]]:
    """The whole feed, and each post's icons: (post index, icon name) -> box."""
    c = THEMES[theme]
    img = Image.new("RGB", (420, 60 + POST_HEIGHT * len(POSTS)), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(16)
    icons: dict[tuple[int, str], Box] = {}
    for k, (name, handle, body) in enumerate(POSTS):
        y = 10 + k * POST_HEIGHT
        d.text((16, y), f"{name} {handle}", fill=c["fg"], font=f)
        d.text((16, y + 26), body, fill=c["fg"], font=f)
        for j, (icon, path, glyph) in enumerate(ICONS):
            glyph_font = ImageFont.truetype(path, 18)
            d.text((40 + 90 * j, y + 58), glyph, font=glyph_font, fill=c["border"])
            left, top, right, bottom = d.textbbox((40 + 90 * j, y + 58), glyph, font=glyph_font)
            icons[(k, icon)] = Box(left, top, right - left, bottom - top)
        d.line([8, y + POST_HEIGHT - 8, 410, y + POST_HEIGHT - 8], fill=c["border"])
    y = 10 + len(POSTS) * POST_HEIGHT
    d.rectangle([150, y, 250, y + 34], fill=c["face"], outline=c["border"])
    d.text((170, y + 7), "Submit", fill=c["fg"], font=f)
    icons[(-1, "submit")] = Box(150, y, 100, 34)
    return img, icons


def _run(task: str, theme: str) -> tuple[list[int], object]:
    """Drive the worker through the task's plan over the feed, scrolled WHEEL px per wheel
    click: the posts whose heart its clicks landed on (in order; -1: the Submit button), and
    how it ended (the last subtask's Done, or the first Fail)."""
    ladder, parser = default_ladder()
    ladder.instruction = task
    q = ScreenQueries(ladder, parser)
    worker = OfflineWorker(texts_reader=q.texts, rows_reader=q.text_rows)
    feed, icons = _feed(theme)
    top, history, clicked = 0, [], []
    for index, subtask in enumerate(OfflineManager().plan(task)):
        for _ in range(40):
            obs = Observation.from_image(feed.crop((0, top, 420, top + WINDOW)))
            action = worker.next_action(subtask, obs, history)
            if isinstance(action, Fail):
                return clicked, action
            if isinstance(action, Done):
                break
            if isinstance(action, Scroll):
                moved = min(top + WHEEL * action.amount, feed.height - WINDOW) \
                    if action.direction == "down" else max(0, top - WHEEL * action.amount)
                history.append(StepRecord(action, index, moved != top))
                top = moved
                continue
            assert isinstance(action, Click), action
            try:
                point = ladder.resolve(action.target, obs).point
            except TargetNotFound as exc:
                history.append(StepRecord(action, index, False, str(exc)))
                continue
            at = Point(point.x, point.y + top)
            hit = [k for (k, icon), box in icons.items() if box.expand(3).contains(at)]
            assert len(hit) == 1, (action, point, top)
            assert hit == [-1] or icons[(hit[0], "like")].expand(3).contains(at), (action, point, top)
            clicked.append(hit[0])
            history.append(StepRecord(action, index, True))
        else:
            raise AssertionError(f"no end after 40 steps: clicked {clicked}")
    return clicked, action


def test_the_clause_names_the_part_the_count_and_the_records() -> None:
    plan = OfflineManager().plan('Click the "Like" button on 3 posts by @ann and then click Submit.')
    assert plan[0].actions == (Click('the "Like" button after each of 3 "@ann"'),)
    assert plan[1].actions == (Click("Submit"),) and plan[1].reveal == SCROLLS   # it scrolled
    assert OfflineManager().plan("click Submit")[0].reveal is None       # no scroll: none looked for
    every = OfflineManager().plan("click the like icon on all posts by Ann Lee")[0]
    assert every.actions == (Click('the like icon after every "Ann Lee"'),)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_each_of_the_records_of_a_name_gets_its_own_part_clicked_once(theme) -> None:
    clicked, end = _run('Click the "Like" button on 3 posts by @ann', theme)
    assert isinstance(end, Done), end
    assert clicked == [0, 2, 4], clicked          # Ann's first three posts, top to bottom


def test_every_record_of_a_name_is_clicked_down_to_the_list_s_end() -> None:
    clicked, end = _run('Click the "Like" button on all posts by @ann', "light")
    assert isinstance(end, Done), end
    assert clicked == [0, 2, 4, 5], clicked


def test_the_last_record_of_the_list_is_done_with_fewer_rows_under_it() -> None:
    """Bo's last post ends the list (only its body under its name): at the list's end it shows
    whole all the same."""
    clicked, end = _run('Click the "Like" button on all posts by @bo', "light")
    assert isinstance(end, Done), end
    assert clicked == [1, 6], clicked


def test_a_retried_subtask_does_not_click_a_record_again() -> None:
    """A second click on a record's toggle undoes the first: the records done stay done when the
    subtask is tried again after a failure."""
    task = 'Click the "Like" button on 2 posts by @ann'
    ladder, parser = default_ladder()
    ladder.instruction = task
    q = ScreenQueries(ladder, parser)
    worker = OfflineWorker(texts_reader=q.texts, rows_reader=q.text_rows)
    subtask = OfflineManager().plan(task)[0]
    obs = Observation.from_image(_feed("light")[0].crop((0, 0, 420, 4 * POST_HEIGHT)))
    first = worker.next_action(subtask, obs, [])
    history = [StepRecord(first, 0, True)]
    second = worker.next_action(subtask, obs, history)
    assert second != first
    history.append(StepRecord(second, 0, False, "the click had no effect"))
    assert isinstance(worker.next_action(subtask, obs, history), Fail)
    again = worker.next_action(subtask, obs, history)          # the retry
    assert again == second, again


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_button_below_after_the_records_is_looked_for_further_down(theme) -> None:
    """The list was scrolled only as far as the records asked for: Submit, at its end, is
    looked for further down (the task scrolled, so the screen does)."""
    clicked, end = _run('Click the "Like" button on 1 post by @ann and then click Submit.', theme)
    assert isinstance(end, Done), end
    assert clicked == [0, -1], clicked


def test_a_line_shown_several_times_is_named_by_its_place_from_the_last() -> None:
    lines = ["Ann Lee @ann", "Lunch", "Ann Lee @ann", "Rain", "Ann Lee @ann"]
    assert line_at(lines, 4) == 'the last "Ann Lee @ann"'
    assert line_at(lines, 2) == 'the 2nd to last "Ann Lee @ann"'
    assert line_at(lines, 3) == '"Rain"'


def test_a_count_the_list_cannot_reach_fails_saying_how_many_were_found() -> None:
    clicked, end = _run('Click the "Like" button on 5 posts by @ann', "light")
    assert clicked == [0, 2, 4, 5], clicked
    assert isinstance(end, Fail) and "found 4 of the 5" in end.reason, end


def test_the_part_after_the_nth_name_is_that_record_s() -> None:
    """The grounding the loop relies on: 'after the 2nd "@ann"' is after that one of the names
    (every name of it was an anchor before, and the two hearts tied)."""
    feed, icons = _feed("light")
    ladder, _ = default_ladder()
    obs = Observation.from_image(feed.crop((0, 0, 420, 2 * POST_HEIGHT + 3 * POST_HEIGHT)))
    first = ladder.resolve('the "Like" button after the 1st "@ann"', obs).point
    second = ladder.resolve('the "Like" button after the 2nd "@ann"', obs).point
    assert icons[(0, "like")].expand(3).contains(first)
    assert icons[(2, "like")].expand(3).contains(second)
