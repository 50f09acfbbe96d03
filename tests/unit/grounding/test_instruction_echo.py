"""The task's own words shown on the screen (a page's instruction bar, the agent's task box) are
never a target: synthetic screens in two themes and three fonts."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.errors import TargetNotFound
from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.instruction_echo import echoes, letters
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font

FONTS = ("dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf", "dejavu/DejaVuSerif.ttf")
TASK = "Select the first day of the month as the date and hit submit."


def _screen(theme: str, font_name: str, lines: list[str], button: str | None = None,
            paragraph: str | None = None) -> Image.Image:
    """An instruction bar holding ``lines`` (the task as it wraps), and under it a form with an
    optional button and an optional paragraph."""
    c = THEMES[theme]
    img = Image.new("RGB", (560, 420), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(20, font_name)
    d.rectangle([0, 0, 559, 30 * len(lines) + 16], fill=(250, 240, 120) if theme == "light" else (70, 64, 20))
    for i, line in enumerate(lines):
        d.text((10, 8 + 30 * i), line, fill=c["fg"], font=f)
    if paragraph:
        d.text((30, 160), paragraph, fill=c["fg"], font=f)
    if button:
        d.rounded_rectangle([30, 300, 210, 350], radius=5, fill=c["face"], outline=c["border"], width=2)
        d.text((80, 312), button, fill=c["fg"], font=f)
    return img


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
def test_a_word_of_the_instruction_is_not_the_target(theme, font_name):
    lines = ["Select the first day of the month as the", "date and hit submit."]
    ladder, _ = default_ladder()
    ladder.instruction = TASK
    obs = Observation.from_image(_screen(theme, font_name, lines))
    with pytest.raises(TargetNotFound):
        ladder.resolve("submit", obs)          # only the instruction says "submit"
    obs = Observation.from_image(_screen(theme, font_name, lines, button="Submit"))
    cand = ladder.resolve("submit", obs)
    assert 300 <= cand.point.y <= 350, cand


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
def test_the_paragraph_is_not_the_instruction(theme, font_name):
    task = "Highlight the text in the paragraph below and click submit."
    lines = ["Highlight the text in the paragraph below and", "click submit."]
    ladder, _ = default_ladder()
    ladder.instruction = task
    obs = Observation.from_image(_screen(theme, font_name, lines, button="Submit",
                                         paragraph="Amet gravida diam iaculis"))
    cand = ladder.resolve("the paragraph", obs)
    assert 150 <= cand.point.y <= 200, cand


def test_a_label_that_is_the_target_itself_is_kept():
    # 'click Terms and Conditions': the link reads what the task names; it is no echo
    img = _screen("light", FONTS[0], ["Read and accept the terms below."], paragraph="Terms and Conditions")
    ladder, _ = default_ladder()
    ladder.instruction = "click Terms and Conditions"
    cand = ladder.resolve("Terms and Conditions", Observation.from_image(img))
    assert 150 <= cand.point.y <= 200, cand


def test_glued_ocr_words_still_read_as_the_echo():
    assert letters("EnterthevalueofYear of Birth") == letters("Enter the value of Year of Birth")
    from gui_agent.geometry import Box
    from gui_agent.parsing.elements import Element, ElementKind, ScreenParse

    lines = (Element(ElementKind.TEXT, Box(6, 6, 280, 20), "EnterthevalueofYearofBirth"),
             Element(ElementKind.TEXT, Box(3, 27, 245, 25), "into the text field and press"),
             Element(ElementKind.TEXT, Box(4, 51, 72, 24), "Submit."),
             Element(ElementKind.TEXT, Box(20, 200, 120, 24), "Year of Birth"))
    found = echoes(ScreenParse(lines, 320, 400),
                   "Enter the value of Year of Birth into the text field and press Submit.", "Submit")
    assert len(found) == 1 and len(found[0].lines) == 3


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_instruction_is_left_out_where_the_page_s_lines_run_on_under_it(theme):
    """A list scrolled up against the instruction bar: its first lines lie as close under the
    instruction as its own lines lie to each other, and the two read as one paragraph."""
    task = "Click the Like button on all posts by @ann and then click Submit."
    lines = ["Click the Like button on all posts by @ann", "and then click Submit.",
             "Ann Lee @ann", "Rain again today."]
    img = _screen(theme, FONTS[0], lines)
    ladder, _ = default_ladder()
    ladder.instruction = task
    cand = ladder.resolve('the 1st "@ann"', Observation.from_image(img))
    assert 60 <= cand.point.y <= 90, cand          # the post's name, not the instruction's


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_labels_that_are_words_of_the_task_are_not_its_echo(theme):
    """Check boxes labelled with the task's own words, right under the instruction: the echo
    ends where the task ends (a label after it is no next line of the task), and what lies
    beside the labels stays (the whole column was taken in, and a label beside it was lost)."""
    task = "Select Ann, Bo, Cy, Dee, Eve, Flo, Gus, Hal, Ivy and click Submit."
    lines = ["Select Ann, Bo, Cy, Dee, Eve, Flo,", "Gus, Hal, Ivy and click Submit.", "Eve", "Bo"]
    img = _screen(theme, FONTS[0], lines)
    d = ImageDraw.Draw(img)
    d.text((300, 68), "Cy", fill=THEMES[theme]["fg"], font=font(20, FONTS[0]))
    ladder, _ = default_ladder()
    ladder.instruction = task
    obs = Observation.from_image(img)
    assert 90 <= ladder.resolve('"Bo"', obs).point.y <= 120
    assert ladder.resolve('"Cy"', obs).point.x >= 290


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
def test_a_line_holding_the_named_words_among_others_is_not_the_short_tasks_echo(theme, font_name):
    # 'bold "near the river"': the line "dog near the river" is mostly the task's letters, but
    # what it says besides the name ("dog") the task does not say: it is the text, not the echo
    ladder, _ = default_ladder()
    ladder.instruction = 'bold "near the river"'
    img = _screen(theme, font_name, ["Notes"], paragraph="dog near the river")
    cand = ladder.resolve('"near the river"', Observation.from_image(img))
    assert 150 <= cand.point.y <= 200, cand
    # the task's echo itself is still left out
    img = _screen(theme, font_name, ['bold "near the river"'])
    with pytest.raises(TargetNotFound):
        ladder.resolve('"near the river"', Observation.from_image(img))
