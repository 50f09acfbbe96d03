"""'the start of "over the"' and 'the end of "over the"': points just inside the first and the
last letter of words within a longer line, where a drag that selects those words begins and
ends (Pillow, two themes, three fonts). Before, a phrase's place was estimated from its
letters' share of the line, which ended a letter short in a proportional font."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from gui_agent.grounding.default import default_ladder
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font

FONTS = ("dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf", "dejavu/DejaVuSerif.ttf")
LINE = "The quick brown fox jumps over the lazy dog"


def _letter(text: str, index: int, f, bg) -> tuple[int, int]:
    """The ink columns of ``text[index]`` drawn alone where the line has it."""
    probe = Image.new("L", (900, 80), int(np.mean(bg)))
    x = 20 + ImageDraw.Draw(probe).textlength(text[:index], font=f)
    ImageDraw.Draw(probe).text((x, 30), text[index], fill=0 if np.mean(bg) > 128 else 255, font=f)
    cols = np.flatnonzero((np.abs(np.asarray(probe, dtype=int) - int(np.mean(bg))) > 40).any(axis=0))
    return int(cols[0]), int(cols[-1])


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
@pytest.mark.parametrize("phrase", ["over the", "quick brown", "lazy dog", "jumps"])
def test_a_phrases_start_and_end_are_inside_its_first_and_last_letters(theme, font_name, phrase):
    c = THEMES[theme]
    f = font(26, font_name)
    img = Image.new("RGB", (900, 80), c["bg"])
    ImageDraw.Draw(img).text((20, 30), LINE, fill=c["fg"], font=f)
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    start = ladder.resolve(f'the start of "{phrase}"', obs).point
    end = ladder.resolve(f'the end of "{phrase}"', obs).point
    first = LINE.index(phrase)
    lo, hi = _letter(LINE, first, f, c["bg"])
    assert lo - 1 <= start.x < (lo + hi) / 2, (start, lo, hi)
    lo, hi = _letter(LINE, first + len(phrase) - 1, f, c["bg"])
    assert (lo + hi) / 2 < end.x <= hi + 1, (end, lo, hi)
    assert 30 <= start.y <= 65 and 30 <= end.y <= 65


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
def test_words_that_wrap_onto_the_next_line_start_on_one_and_end_on_the_other(theme, font_name):
    """'lazy dog' in a text area that wrapped after "lazy": its start is in "lazy" at the end of
    the first line, its end in "dog" at the start of the second; words that are on the screen
    but not one after the other across the wrap are not the phrase."""
    from gui_agent.errors import TargetNotFound

    c = THEMES[theme]
    f = font(26, font_name)
    img = Image.new("RGB", (900, 140), c["bg"])
    d = ImageDraw.Draw(img)
    first, second = "jumps over the lazy", "dog near the river"
    d.text((20, 30), first, fill=c["fg"], font=f)
    d.text((20, 75), second, fill=c["fg"], font=f)
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    start = ladder.resolve('the start of "lazy dog"', obs).point
    end = ladder.resolve('the end of "lazy dog"', obs).point
    lo, hi = _letter(first, first.index("lazy"), f, c["bg"])
    assert lo - 1 <= start.x < (lo + hi) / 2 and 30 <= start.y <= 65, (start, lo, hi)
    lo, hi = _letter(second, 2, f, c["bg"])
    assert (lo + hi) / 2 < end.x <= hi + 1 and 75 <= end.y <= 110, (end, lo, hi)
    with pytest.raises(TargetNotFound):
        ladder.resolve('the start of "over river"', obs)      # not across the wrap
