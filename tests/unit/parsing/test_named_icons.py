"""Caption-less icons named by the icon-font glyph they look like: a list of posts whose action
rows are icons only (reply, retweet, heart, trash), light and dark, at several sizes and text
fonts; found by the words people use for them; a read caption still wins; an icon that is not
on screen is not found; a form of text and controls gets no icon names."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from gui_agent.errors import TargetNotFound
from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.parsing.icon_fonts import FONTS, words_for
from gui_agent.parsing.screen_parser import ScreenParser
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font, render_form
from tests.support.requirements import require_icon_fonts

AWESOME, MATERIAL = (str(f.font) for f in FONTS)
# (name, font, code point): the glyphs the action rows are drawn with, at the screen's size
ACTIONS = (("reply", AWESOME, "\uf112"), ("retweet", AWESOME, "\uf079"),
           ("like", MATERIAL, "\ue87d"), ("trash", MATERIAL, "\ue872"))
HANDLES = ("@ann", "@bo", "@cy")


@pytest.fixture(autouse=True)
def _fonts():
    require_icon_fonts()


def _posts(theme: str, size: int, text_font: str = "dejavu/DejaVuSans.ttf",
           caption: bool = False) -> tuple[Image.Image, dict[tuple[str, str], Box]]:
    """Three posts, each with a row of icon buttons; the truth: (handle, action) -> icon box."""
    c = THEMES[theme]
    img = Image.new("RGB", (420, 300), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(15, text_font)
    truth: dict[tuple[str, str], Box] = {}
    for k, (name, handle) in enumerate(zip(("Ann Lee", "Bo Chen", "Cy Ray"), HANDLES, strict=True)):
        y = 20 + 90 * k
        d.text((20, y), f"{name} {handle} · 2h ago", fill=c["fg"], font=f)
        d.text((20, y + 24), "Lorem ipsum dolor sit amet.", fill=c["fg"], font=f)
        for j, (action, path, glyph) in enumerate(ACTIONS):
            x = 30 + 70 * j
            d.text((x, y + 54), glyph, font=ImageFont.truetype(path, size), fill=c["border"])
            left, top, right, bottom = d.textbbox((x, y + 54), glyph, font=ImageFont.truetype(path, size))
            truth[(handle, action)] = Box(left, top, right - left, bottom - top)
        if caption and k == 1:
            d.text((30 + 70 * len(ACTIONS), y + 54), "Reply", fill=c["fg"], font=f)
    return img, truth


def _named(img: Image.Image, word: str) -> list[Box]:
    return [e.box for e in ScreenParser().parse(np.asarray(img)).elements if word in e.looks_like]


def _at(boxes: list[Box], want: Box) -> bool:
    return any(b.expand(3).contains(want.center) and want.expand(3).contains(b.center) for b in boxes)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", [14, 18, 22])
@pytest.mark.parametrize("text_font", ["dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf"])
def test_icon_buttons_are_named_by_the_glyph_they_look_like(theme, size, text_font):
    img, truth = _posts(theme, size, text_font)
    shown = [a for a, *_ in ACTIONS if a != "trash" or size == 18]   # a small bin reads as a chip
    for action in shown:
        boxes = _named(img, action)
        assert len(boxes) == len(HANDLES) or action == "reply", (action, boxes)
        hits = sum(_at(boxes, truth[(h, action)]) for h in HANDLES)
        assert hits >= (2 if action == "reply" else 3), (action, boxes)   # OCR may read one arrow as a letter


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_an_icon_is_found_by_the_words_people_use_for_it(theme):
    img, truth = _posts(theme, 18)
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    for description, want in (('the "Like" button after "@bo"', truth[("@bo", "like")]),
                              ("the heart icon after @cy", truth[("@cy", "like")]),
                              ("the retweet icon after @ann", truth[("@ann", "retweet")]),
                              ("the trash icon after @bo", truth[("@bo", "trash")]),
                              ('the "Delete" button after "@cy"', truth[("@cy", "trash")])):
        hit = ladder.resolve(description, obs)
        assert want.expand(3).contains(hit.point), (description, hit, want)


def test_a_read_caption_wins_over_an_icon_that_looks_like_it():
    img, _ = _posts("light", 18, caption=True)     # one post has a "Reply" caption, all an arrow
    ladder, _ = default_ladder()
    hit = ladder.resolve('the "Reply" button', Observation.from_image(img))
    assert hit.element is not None and hit.element.text == "Reply", hit


def test_an_icon_not_on_screen_is_not_found():
    img, _ = _posts("dark", 18)
    ladder, _ = default_ladder()
    with pytest.raises(TargetNotFound):
        ladder.resolve("the star icon", Observation.from_image(img))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_form_of_text_and_controls_gets_no_icon_names_beyond_its_close_button(theme):
    img, _ = render_form(theme)
    named = [e for e in ScreenParser().parse(np.asarray(img)).elements if e.looks_like]
    assert all("close" in e.looks_like for e in named), [(str(e), e.looks_like) for e in named]


def test_the_words_for_a_glyph_drop_style_words_and_add_what_people_call_it():
    words = words_for(("trash o",))
    assert words[:2] == ("trash o", "trash") and "delete" in words
    assert "like" in words_for(("favorite border",))


def _badged_rows(theme: str) -> tuple[Image.Image, dict[str, Box]]:
    """Three mail rows, each with a star and a trash can whose corner a round badge covers (the
    badge spoils its likeness to any glyph)."""
    c = THEMES[theme]
    img = Image.new("RGB", (360, 260), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(16)
    star, bin_ = ImageFont.truetype(AWESOME, 20), ImageFont.truetype(AWESOME, 20)
    truth = {}
    for k, name in enumerate(("Ann Lee", "Bo Chen", "Cy Ray")):
        y = 20 + 80 * k
        d.text((16, y), name, fill=c["fg"], font=f)
        d.text((16, y + 24), "Lorem ipsum dolor.", fill=c["fg"], font=f)
        d.text((250, y), "\uf006", font=star, fill=c["border"])
        d.text((290, y), "\uf1f8", font=bin_, fill=c["border"])
        ink = np.abs(np.asarray(img.convert("L"), np.int16)[y - 4:y + 30, 285:330] - np.int16(
            np.asarray(Image.new("L", (1, 1), c["bg"][0]))[0, 0]))
        ys, xs = np.nonzero(ink > 40)
        right, bottom = 285 + int(xs.max()), y - 4 + int(ys.max())
        d.ellipse([right - 4, bottom - 4, right + 2, bottom + 2], fill=c["border"], outline=c["bg"])
        truth[name] = Box(285 + int(xs.min()), y - 4 + int(ys.min()), right + 3 - 285 - int(xs.min()),
                          bottom + 3 - (y - 4 + int(ys.min())))
    return img, truth


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_an_icon_asked_for_by_name_is_found_where_a_badge_spoils_its_likeness(theme):
    """No glyph names a trash can with a badge on its corner on its own; asked for, it is the
    shape on the screen most like a trash can. A name no shape looks like is still not found."""
    img, truth = _badged_rows(theme)
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    for description, name in (("the trash icon after Bo Chen", "Bo Chen"),
                              ('the "Delete" button after "Cy Ray"', "Cy Ray")):
        hit = ladder.resolve(description, obs)
        assert truth[name].expand(3).contains(hit.point), (description, hit)
    with pytest.raises(TargetNotFound):
        ladder.resolve("the pencil icon after Ann Lee", obs)
