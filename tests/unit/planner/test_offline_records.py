"""A record named first, then acted on inside it: 'Find Cy Diaz in the contact book and click on
their phone number'. The worker looks for the name page by page (the book's "< 2 >" pager, its
chevrons underlined links), then clicks the value that follows the label "Phone:" on the same
line, in that contact's record; 'For the user @cy, click "Share"' clicks the "Share" of Cy's post,
not of the one above it; a feed without a pager is scrolled until the name shows or the lines
stop changing (Pillow screens, two themes, two fonts, real OCR)."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.actions import Click, Done, Fail, Move, Scroll
from gui_agent.errors import AmbiguousTarget
from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.queries import ScreenQueries
from gui_agent.planner.base import StepRecord
from gui_agent.planner.offline import OfflineManager, OfflineWorker
from gui_agent.planner.reveal import MENU_SCROLLS, MORE_MENU, PAGES, SCROLLS
from gui_agent.planner.screen_aids import ANCHORS_TRIED
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font

BOOK = [("Ann Lee", "555-0101", "ann@example.org"), ("Bo Park", "555-0199", "bo.park@example.net"),
        ("Cy Diaz", "555-0142", "cy@example.com")]
TASK = "Find Cy Diaz in the contact book and click on their phone number."
FONTS = ["dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf"]


def _underlined(d: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, fill, f) -> Box:
    d.text(xy, text, fill=fill, font=f)
    left, top, right, bottom = d.textbbox(xy, text, font=f)
    d.line([left, bottom + 3, right, bottom + 3], fill=fill, width=2)
    return Box.from_corners(left, top, right, bottom)


def _contact(page: int, theme: str, font_name: str) -> tuple[Image.Image, dict[str, Box]]:
    """Page ``page`` (1-based) of the book: one contact, its fields as "Label: value" lines (the
    values underlined links), and a pager "< page >" whose chevrons are links."""
    c = THEMES[theme]
    img = Image.new("RGB", (420, 360), c["bg"])
    d = ImageDraw.Draw(img)
    f, big = font(17, font_name), font(26, font_name)
    name, phone, email = BOOK[page - 1]
    d.text((16, 16), name, fill=c["fg"], font=big)
    boxes = {}
    for y, label, value in ((80, "Phone:", phone), (116, "Email:", email)):
        d.text((24, y), label, fill=c["fg"], font=f)
        x = 24 + round(d.textlength(label, font=f)) + 8
        boxes[label] = _underlined(d, (x, y), value, c["link"], f)
    pager = font(24, font_name)     # the text detector misses a lone "1 >" much smaller than this
    x = 150
    for part, shown in (("<", page > 1), (str(page), True), (">", page < len(BOOK))):
        if shown and part in "<>":
            boxes[part] = _underlined(d, (x, 300), part, c["link"], pager)
        elif shown:
            d.text((x, 300), part, fill=c["fg"], font=pager)
        x += round(d.textlength(part, font=pager)) + 6
    return img, boxes


def _worker(ladder, parser) -> OfflineWorker:
    q = ScreenQueries(ladder, parser)
    return OfflineWorker(texts_reader=q.texts, named_reader=q.named, rows_reader=q.text_rows)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
def test_a_contact_is_found_page_by_page_and_its_phone_number_clicked(theme, font_name):
    ladder, parser = default_ladder()
    ladder.instruction = TASK
    worker = _worker(ladder, parser)
    find, click = OfflineManager().plan(TASK)
    assert find.actions == (Move('"Cy Diaz"'),) and find.reveal == PAGES
    assert click.actions == (Click('right of phone after "Cy Diaz"'),)
    history: list[StepRecord] = []
    img, boxes = _contact(1, theme, font_name)
    for page in (1, 2):
        obs = Observation.from_image(img)
        move = worker.next_action(find, obs, history)
        assert move == Move('"Cy Diaz"')
        history.append(StepRecord(move, 0, False, "could not find '\"Cy Diaz\"' on the screen"))
        turn = worker.next_action(find, obs, history)
        assert isinstance(turn, Click), turn
        assert boxes[">"].expand(4).contains(ladder.resolve(turn.target, obs).point), (page, turn)
        history.append(StepRecord(turn, 0, True))
        img, boxes = _contact(page + 1, theme, font_name)
    obs = Observation.from_image(img)
    move = worker.next_action(find, obs, history)
    assert move == Move('"Cy Diaz"')
    ladder.resolve(move.target, obs)
    history.append(StepRecord(move, 0, True))
    assert isinstance(worker.next_action(find, obs, history), Done)
    target = ladder.resolve(click.actions[0].target, obs)
    assert boxes["Phone:"].expand(2).contains(target.point), target


def test_the_last_page_without_the_name_fails_saying_where_it_looked():
    ladder, parser = default_ladder()
    task = "Find Dee Vo in the contact book and click on their email."
    ladder.instruction = task
    worker = _worker(ladder, parser)
    find = OfflineManager().plan(task)[0]
    obs = Observation.from_image(_contact(3, "light", FONTS[0])[0])   # no '>' on the last page
    assert worker.next_action(find, obs, []) == Move('"Dee Vo"')
    history = [StepRecord(Move('"Dee Vo"'), 0, False, "could not find '\"Dee Vo\"' on the screen")]
    scroll = worker.next_action(find, obs, history)
    assert isinstance(scroll, Scroll)               # no next page: the list may run on below
    scrolls = []
    while isinstance(scroll, Scroll) and len(scrolls) < 20:    # the same lines after every scroll
        scrolls.append(scroll)
        history.append(StepRecord(scroll, 0, True))
        history.append(StepRecord(Move('"Dee Vo"'), 0, False, "could not find '\"Dee Vo\"' on the screen"))
        scroll = worker.next_action(find, obs, history)
    failed = scroll
    assert isinstance(failed, Fail) and "Dee Vo" in failed.reason and "looking further" in failed.reason
    # tried at the lines above the last (a list box above a button scrolls on its own), then upwards
    assert len(scrolls) <= 2 * ANCHORS_TRIED and len({s.at for s in scrolls}) > 1
    assert {s.direction for s in scrolls} == {"down", "up"}


def _feed(theme: str, font_name: str, first: int) -> tuple[Image.Image, dict[str, Box]]:
    """Posts ``first``.. of a feed, each "Name @handle" over a body and its "Reply  Share" row."""
    c = THEMES[theme]
    img = Image.new("RGB", (420, 400), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(16, font_name)
    posts = [("Ann Lee", "@ann", "Lunch at noon?"), ("Bo Park", "@bo", "New photos up."),
             ("Cy Diaz", "@cy", "Back on Monday."), ("Dee Vo", "@dee", "Who has the keys?")]
    boxes = {}
    for k, (name, handle, body) in enumerate(posts[first:first + 3]):
        y = 12 + k * 120
        d.text((16, y), f"{name} {handle}", fill=c["fg"], font=f)
        d.text((16, y + 30), body, fill=c["fg"], font=f)
        d.text((16, y + 66), "Reply", fill=c["link"], font=f)
        d.text((120, y + 66), "Share", fill=c["link"], font=f)
        boxes[handle] = Box(120, y + 66, round(d.textlength("Share", font=f)), 20)
        d.line([8, y + 104, 410, y + 104], fill=c["border"])
    return img, boxes


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_post_s_own_share_is_clicked_and_a_name_not_shown_is_looked_for_below(theme):
    task = 'For the user @cy, click on the "Share" button.'
    ladder, parser = default_ladder()
    ladder.instruction = task
    worker = _worker(ladder, parser)
    find, click = OfflineManager().plan(task)
    assert click.actions == (Click('the "Share" button after "@cy"'),)
    img, _ = _feed(theme, FONTS[0], 1)          # Bo, Cy, Dee: Cy's post is not the first
    obs = Observation.from_image(img)
    target = ladder.resolve(click.actions[0].target, obs)
    assert _feed(theme, FONTS[0], 1)[1]["@cy"].expand(2).contains(target.point), target
    img, _ = _feed(theme, FONTS[0], 3)          # Dee only: the feed may run on below
    obs = Observation.from_image(img)
    assert worker.next_action(find, obs, []) == Move('"@cy"')
    history = [StepRecord(Move('"@cy"'), 0, False, "could not find '\"@cy\"' on the screen")]
    scroll = worker.next_action(find, obs, history)
    assert isinstance(scroll, Scroll) and scroll.direction == "down"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_name_found_by_scrolling_is_scrolled_further_only_when_its_post_is_cut_off(theme):
    """Found at the bottom edge: one more wheel click shows its parts, also where it showed at
    the first look. Found with its body and buttons under it: no more (the extra scroll hid the
    name under a header before)."""
    ladder, parser = default_ladder()
    find = OfflineManager().plan('For the user @cy, click on the "Share" button.')[0]
    before = Observation.from_image(_feed(theme, FONTS[0], 0)[0].crop((0, 0, 420, 230)))  # Ann, Bo
    whole = _feed(theme, FONTS[0], 2)[0]                           # Cy's post, then Dee's
    cut = _feed(theme, FONTS[0], 1)[0].crop((0, 0, 420, 160))      # Bo's post, then Cy's name only
    # ... then Cy's name and a body line at the edge whose words are read as two texts
    halved = _feed(theme, FONTS[0], 1)[0]
    d = ImageDraw.Draw(halved)
    d.rectangle([8, 160, 410, 190], fill=THEMES[theme]["bg"])
    for x, word in ((16, "Back"), (220, "Monday")):
        d.text((x, 162), word, fill=THEMES[theme]["fg"], font=font(16, FONTS[0]))
    halved = halved.crop((0, 0, 420, 178))
    for found, more in ((whole, False), (cut, True), (halved, True)):
        worker = _worker(ladder, parser)
        history: list[StepRecord] = []
        assert worker.next_action(find, before, history) == Move('"@cy"')
        history.append(StepRecord(Move('"@cy"'), 0, False, "could not find '\"@cy\"' on the screen"))
        scroll = worker.next_action(find, before, history)
        assert isinstance(scroll, Scroll)
        history.append(StepRecord(scroll, 0, True))
        assert worker.next_action(find, Observation.from_image(found), history) == Move('"@cy"')
        history.append(StepRecord(Move('"@cy"'), 0, True))
        after = worker.next_action(find, Observation.from_image(found), history)
        assert (after == Scroll("down", 1, '"@cy"')) is more, after
    for found, more in ((whole, False), (cut, True)):      # found at the first look
        worker = _worker(ladder, parser)
        obs = Observation.from_image(found)
        assert worker.next_action(find, obs, []) == Move('"@cy"')
        after = worker.next_action(find, obs, [StepRecord(Move('"@cy"'), 0, True)])
        assert (after == Scroll("down", 1, '"@cy"')) is more, after


def _posts_with_menus(theme: str, open_for: str | None) -> tuple[Image.Image, dict[str, Box]]:
    """Three posts, each with a "⋯" menu button; the menu of ``open_for`` open under its button."""
    c = THEMES[theme]
    img = Image.new("RGB", (420, 480), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(16, FONTS[0])
    boxes = {}
    for k, (name, handle) in enumerate((("Ann Lee", "@ann"), ("Cy Diaz", "@cy"), ("Dee Vo", "@dee"))):
        y = 12 + k * 130
        d.text((16, y), f"{name} {handle}", fill=c["fg"], font=f)
        d.text((16, y + 30), "Lorem ipsum dolor.", fill=c["fg"], font=f)
        for j in range(3):
            d.ellipse([300 + 9 * j, y + 72, 304 + 9 * j, y + 76], fill=c["border"])
        boxes[f"more {handle}"] = Box(300, y + 72, 23, 5)
        if handle == open_for:
            d.rectangle([200, y + 86, 360, y + 150], fill=c["field"], outline=c["border"])
            d.text((208, y + 92), "Copy link", fill=c["fg"], font=f)
            d.text((208, y + 120), f"Block {handle}", fill=c["fg"], font=f)
            boxes["Block"] = Box(208, y + 120, 60, 20)
    return img, boxes


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_an_item_of_a_record_s_menu_is_looked_for_in_the_menu_its_more_icon_opens(theme):
    task = 'For the user @cy, click on the "Block" button.'
    ladder, parser = default_ladder()
    ladder.instruction = task
    worker = _worker(ladder, parser)
    _, click = OfflineManager().plan(task)
    assert click.reveal == MORE_MENU
    img, boxes = _posts_with_menus(theme, None)
    obs = Observation.from_image(img)
    first = worker.next_action(click, obs, [])
    history = [StepRecord(first, 1, False, f"could not find {first.target!r} on the screen")]
    opener = worker.next_action(click, obs, history)
    assert opener == Click('the more icon after "@cy"')
    assert boxes["more @cy"].expand(3).contains(ladder.resolve(opener.target, obs).point)
    history.append(StepRecord(opener, 1, True))
    img, boxes = _posts_with_menus(theme, "@cy")
    obs = Observation.from_image(img)
    again = worker.next_action(click, obs, history)
    assert again == first
    assert boxes["Block"].expand(3).contains(ladder.resolve(again.target, obs).point)
    history.append(StepRecord(again, 1, False, f"could not find {again.target!r} on the screen"))
    # The menu may run on below the list's edge: the list is scrolled under the pointer, which
    # rests on the icon that opened it; twice at most, then the item is not there. After a
    # scroll the record's name may be gone above the menu: the item is looked for alone.
    alone = Click('the "Block" button')
    for _ in range(MENU_SCROLLS):
        scroll = worker.next_action(click, obs, history)
        assert scroll == Scroll("down", 1)
        history.append(StepRecord(scroll, 1, True))
        assert worker.next_action(click, obs, history) == alone      # looked for after each scroll
        history.append(StepRecord(alone, 1, False, f"could not find {alone.target!r} on the screen"))
    assert isinstance(worker.next_action(click, obs, history), Fail)   # opened once, not toggled shut
    menu_only = img.crop((0, boxes["Block"].top - 40, 420, boxes["Block"].bottom + 20))
    hit = ladder.resolve(alone.target, Observation.from_image(menu_only))  # the name scrolled away
    assert hit.element is not None and "Block" in hit.element.text, hit


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_an_item_above_the_menu_line_that_names_the_record_is_after_the_record(theme):
    """The open menu's "Block @cy" reads the record's name better than its header does; the
    item "Copy link", above that line, is still after the record (it was not found before)."""
    c = THEMES[theme]
    img = Image.new("RGB", (420, 300), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(16, FONTS[0])
    d.text((16, 12), "Tally Ray @malesuada · 18h ago", fill=c["fg"], font=f)
    d.text((16, 40), "Lorem ipsum dolor sit amet.", fill=c["fg"], font=f)
    d.rectangle([180, 80, 400, 230], fill=c["field"], outline=c["border"])
    for k, item in enumerate(("Share via DM", "Copy link to post", "Mute @malesuada", "Block @malesuada")):
        d.text((188, 86 + 36 * k), item, fill=c["fg"], font=f)
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    for item in ("Share via DM", "Copy link to post"):
        hit = ladder.resolve(f'the "{item}" button after "@malesuada"', obs)
        assert hit.element is not None and hit.element.text == item, hit


def test_a_look_further_that_fails_ends_the_find_saying_why():
    """A scroll down the list that could not be made (its place not found) ends the attempt with
    the reason; it raised IndexError before (a reveal test on an empty stand-in subtask)."""
    find = OfflineManager().plan("Find Dee Vo in the contact book")[0]
    worker = OfflineWorker()
    obs = Observation.from_image(_contact(3, "light", FONTS[0])[0])
    assert worker.next_action(find, obs, []) == Move('"Dee Vo"')
    scroll = Scroll("down", 1, '"Email: cy@example.com"')
    history = [StepRecord(Move('"Dee Vo"'), 0, False, "could not find '\"Dee Vo\"' on the screen"),
               StepRecord(scroll, 0, False, "could not find '\"Email: cy@example.com\"' on the screen")]
    failed = worker.next_action(find, obs, history)
    assert isinstance(failed, Fail) and "scroll" in failed.reason


def test_items_of_a_list_box_are_each_looked_for_and_added_with_ctrl():
    """'select Ilise, Rachael from the scroll list': a list box shows its items (nothing to open),
    each is looked for by scrolling the list while it does not show, and the second is added to
    the selection (Ctrl held), not put in the first one's place; the list scrolled, so Submit
    may be further down too."""
    plan = OfflineManager().plan("Select Ilise, Rachael from the scroll list and click Submit.")
    assert [(s.actions, s.reveal) for s in plan] == [
        ((Click('"Ilise"'),), PAGES), ((Click('"Rachael"', hold="ctrl"),), PAGES), ((Click("Submit"),), SCROLLS)]
    dropdown = OfflineManager().plan('select "Green" from the Color dropdown')
    assert [s.actions for s in dropdown] == [(Click("the Color dropdown"), Click('"Green"'))]


def test_an_item_below_an_open_list_s_edge_is_looked_for_by_scrolling_the_list():
    """'Select Karlen from the list': the list opened with Karlen cut off at its bottom edge;
    clicking the list's box again (the retry) closed it. The list is scrolled at its last line,
    the item looked for after each scroll, LIST_SCROLLS times at most."""
    from gui_agent.planner.reveal import LIST_SCROLLS

    worker = OfflineWorker(texts_reader=lambda obs: ["Select Karlen from the list", "Lib", "Lurline"])
    select = OfflineManager().plan("Select Karlen from the list and click Submit.")[0]
    opener, item = select.actions
    obs = Observation.from_image(Image.new("RGB", (200, 200), "white"))
    missed = StepRecord(item, 0, False, f"could not find {item.target!r} on the screen")
    history: list[StepRecord] = []
    assert worker.next_action(select, obs, history) == opener
    history.append(StepRecord(opener, 0, True))
    assert worker.next_action(select, obs, history) == item
    history.append(missed)
    for _ in range(LIST_SCROLLS):
        scroll = worker.next_action(select, obs, history)
        assert scroll == Scroll("down", 1, '"Lurline"')
        history.append(StepRecord(scroll, 0, True))
        assert worker.next_action(select, obs, history) == item      # looked for again
        history.append(missed)
    assert isinstance(worker.next_action(select, obs, history), Fail)
    # a click that failed before the list was opened is no reason to scroll
    fresh = OfflineWorker(texts_reader=lambda obs: ["Lib"])
    assert fresh.next_action(select, obs, []) == opener
    lost = StepRecord(opener, 0, False, f"could not find {opener.target!r} on the screen")
    assert isinstance(fresh.next_action(select, obs, [lost]), Fail)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_an_item_that_is_also_the_box_s_current_value_is_the_open_list_s_item(theme):
    """'Select Karlen from the list' where the box already shows "Karlen": the name is on the
    box and in the list it opened; the box's value is not the item's name, and where the two tie
    all the same the click is made again on the list's item."""
    c = THEMES[theme]
    img = Image.new("RGB", (320, 260), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(16, FONTS[0])
    d.rectangle([20, 20, 220, 52], fill=c["field"], outline=c["border"], width=2)
    d.text((30, 27), "Karlen", fill=c["fg"], font=f)
    d.polygon([(196, 32), (208, 32), (202, 40)], fill=c["fg"])
    d.rectangle([20, 54, 220, 170], fill=c["field"], outline=c["border"])
    for k, name in enumerate(("Lib", "Karlen", "Lurline")):
        d.text((30, 62 + 34 * k), name, fill=c["fg"], font=f)
    task = "Select Karlen from the list and click Submit."
    ladder, parser = default_ladder()
    ladder.instruction = task
    obs = Observation.from_image(img)
    worker = _worker(ladder, parser)
    select = OfflineManager().plan(task)[0]
    opener, item = select.actions
    assert worker.next_action(select, obs, []) == opener
    history = [StepRecord(opener, 0, True)]
    assert worker.next_action(select, obs, history) == item
    hit = ladder.resolve(item.target, obs)      # the box's value is not the item's name
    assert 90 <= hit.point.y <= 120, hit
    # where the two still tie (a box that reads like a list's line), the list's item is asked for
    note = str(AmbiguousTarget(item.target, []))
    history.append(StepRecord(item, 0, False, note))
    again = worker.next_action(select, obs, history)
    assert again == Click('the "Karlen" item'), again
    hit = ladder.resolve(again.target, obs)
    assert 90 <= hit.point.y <= 120, hit                 # the list's item, not the box
    history.append(StepRecord(again, 0, True))
    assert isinstance(worker.next_action(select, obs, history), Done)


def test_an_item_still_ambiguous_as_the_list_s_item_fails():
    worker = OfflineWorker()
    select = OfflineManager().plan("Select Karlen from the list")[0]
    opener, item = select.actions
    obs = Observation.from_image(Image.new("RGB", (200, 200), "white"))
    assert worker.next_action(select, obs, []) == opener
    history = [StepRecord(opener, 0, True), StepRecord(item, 0, False, "'\"Karlen\"' is ambiguous: 2 ...")]
    again = worker.next_action(select, obs, history)
    assert again == Click('the "Karlen" item')
    history.append(StepRecord(again, 0, False, "'the \"Karlen\" item' is ambiguous: 2 ..."))
    assert isinstance(worker.next_action(select, obs, history), Fail)     # tried once, not looped
