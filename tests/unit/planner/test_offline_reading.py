"""Texts read off the screen and typed: 'enter the value of Color into the text field' reads
the cell beside "Color" when the step is due (synthetic tables in two themes and fonts)."""

from __future__ import annotations

import pytest

from gui_agent.actions import Fail, Type
from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.queries import ScreenQueries
from gui_agent.parsing.elements import ElementKind
from gui_agent.planner.base import StepRecord
from gui_agent.planner.offline import OfflineManager, OfflineWorker
from gui_agent.planner.reading import read_value
from gui_agent.screen.observation import Observation
from tests.support.pillow_table import ROWS, render_table

TASK = "Enter the value of {name} into the text field and press Submit."


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", ["dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf"])
@pytest.mark.parametrize("name", ["Color", "Year of Birth"])
def test_the_value_of_a_name_is_read_and_typed(theme, font_name, name):
    img, _, _ = render_table(theme, font_name)
    ladder, parser = default_ladder()
    task = TASK.format(name=name)
    ladder.instruction = task
    queries = ScreenQueries(ladder, parser)
    worker = OfflineWorker(value_reader=queries.shown_text)
    first = OfflineManager().plan(task)[0]
    action = worker.next_action(first, Observation.from_image(img), [])
    assert action == Type(dict(ROWS)[name], into="the text field")
    # once typed, the step counts as the planned one: the subtask is done
    done = worker.next_action(first, Observation.from_image(img), [StepRecord(action, 0, True)])
    assert not isinstance(done, Type | Fail)


def test_a_value_not_on_the_screen_fails_instead_of_typing_the_words():
    img, _, _ = render_table()
    ladder, parser = default_ladder()
    worker = OfflineWorker(value_reader=ScreenQueries(ladder, parser).shown_text)
    first = OfflineManager().plan(TASK.format(name="Shoe size"))[0]
    action = worker.next_action(first, Observation.from_image(img), [])
    assert isinstance(action, Fail) and "Shoe size" in action.reason


def test_one_word_of_a_text():
    shown = {"the paragraph": "Amet gravida diam iaculis.", "the 2nd paragraph": "Lorem"}
    assert read_value("the last word of the paragraph", shown.get) == "iaculis"
    assert read_value("the first word of the paragraph", shown.get) == "Amet"
    assert read_value("the second word of the 2nd paragraph", shown.get) is None


def test_the_last_word_of_a_text_area_is_read_once_it_is_scrolled_to_its_end():
    from gui_agent.actions import Scroll

    shown = {"the text area": "Lorem ipsum dolor sit amet, consectetur adipiscing"}
    worker = OfflineWorker(value_reader=lambda description, obs: shown.get(description))
    first = OfflineManager().plan("Enter the last word of the text area into the text field")[0]
    scroll = worker.next_action(first, object(), [])
    assert scroll == Scroll("down", 100, "the text area")
    typed = worker.next_action(first, object(), [StepRecord(scroll, 0, True)])
    assert typed == Type("adipiscing", into="the text field")
    # a paragraph is read where it is: scrolling over it would move the page
    shown["the paragraph"] = "Amet gravida diam iaculis."
    other = OfflineWorker(value_reader=lambda description, obs: shown.get(description))
    first = OfflineManager().plan("Enter the last word of the paragraph into the text field")[0]
    assert other.next_action(first, object(), []) == Type("iaculis", into="the text field")


def _table_and_form(theme: str, font_name: str, labels: tuple[str, ...]):
    """The table of ROWS, and under it a form whose fields are labelled by some of its names."""
    from PIL import Image, ImageDraw

    from tests.support.pillow_form import THEMES, font

    table, _, field = render_table(theme, font_name)
    c = THEMES[theme]
    img = Image.new("RGB", (table.width, field.top + 50 * len(labels) + 60), c["bg"])
    img.paste(table.crop((0, 0, table.width, field.top - 4)), (0, 0))
    d = ImageDraw.Draw(img)
    f = font(15, font_name)
    for k, label in enumerate(labels):
        y = field.top + 50 * k
        d.text((10, y + 7), f"{label}:", fill=c["fg"], font=f)
        d.rectangle([130, y, 310, y + 30], fill=c["field"], outline=c["border"], width=2)
    return img


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", ["dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf"])
def test_each_labelled_field_is_filled_with_the_value_its_label_names(theme, font_name):
    task = "Enter the value that corresponds with each label into the form and submit when done."
    labels = ("Country", "Last name")
    img = _table_and_form(theme, font_name, labels)
    ladder, parser = default_ladder()
    ladder.instruction = task
    queries = ScreenQueries(ladder, parser)
    worker = OfflineWorker(value_reader=queries.shown_text, labels_reader=queries.field_labels)
    fill = OfflineManager().plan(task)[0]
    obs = Observation.from_image(img)
    history: list[StepRecord] = []
    for label in labels:
        action = worker.next_action(fill, obs, history)
        assert action == Type(dict(ROWS)[label], into=f'the "{label}" field', clear=True)
        assert ladder.resolve(action.into, obs).element.kind == ElementKind.TEXT_FIELD
        history.append(StepRecord(action, 0, True))
    assert not isinstance(worker.next_action(fill, obs, history), Type | Fail)   # all filled


def test_a_label_whose_value_is_not_shown_fails_the_fill():
    img = _table_and_form("light", "dejavu/DejaVuSans.ttf", ("Shoe size",))
    ladder, parser = default_ladder()
    queries = ScreenQueries(ladder, parser)
    worker = OfflineWorker(value_reader=queries.shown_text, labels_reader=queries.field_labels)
    fill = OfflineManager().plan("fill in the values for every label")[0]
    action = worker.next_action(fill, Observation.from_image(img), [])
    assert isinstance(action, Fail) and "Shoe size" in action.reason
