"""A dialog the task does not mention, covering the form: dismissed only by a harmless way out
(Cancel/Close, or a lone OK), never by another button, and not when the task names it; a form's
committing button found under another name ('press login' -> "OK"). Pillow screens, two themes
and two fonts."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.actions import Click, Fail, Type
from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.queries import ScreenQueries
from gui_agent.planner.base import StepRecord
from gui_agent.planner.offline import OfflineManager, OfflineWorker
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font

TASK = 'Enter the username "ann" and the password "pw" into the text fields and press login.'
FONTS = ("dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf")


def _screen(theme: str, font_name: str, dialog: tuple[tuple[str, ...], tuple[str, ...]] | None,
            username: str = "") -> Image.Image:
    """A login form with one "OK" button (its user name typed in), and optionally a dialog
    (message lines, buttons) over it."""
    c = THEMES[theme]
    img = Image.new("RGB", (420, 420), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(17, font_name)
    for y, label in ((20, "Username"), (110, "Password")):
        d.text((10, y), label, fill=c["fg"], font=f)
        d.rectangle([14, y + 28, 300, y + 62], fill=c["field"], outline=c["border"], width=2)
    if username:
        d.text((22, 56), username, fill=c["fg"], font=f)
    d.rounded_rectangle([10, 200, 130, 246], radius=4, fill=c["face"], outline=c["border"], width=2)
    d.text((70, 223), "OK", fill=c["fg"], font=f, anchor="mm")
    if dialog is not None:
        lines, buttons = dialog
        d.rectangle([30, 60, 390, 330], fill=c["face"], outline=c["border"], width=3)
        for i, line in enumerate(lines):
            d.text((210, 100 + 40 * i), line, fill=c["fg"], font=f, anchor="mm")
        width = 110
        left = 210 - (len(buttons) * (width + 10) - 10) // 2
        for i, caption in enumerate(buttons):
            x = left + i * (width + 10)
            d.rounded_rectangle([x, 250, x + width, 292], radius=4, fill=c["bg"], outline=c["border"], width=2)
            d.text((x + width // 2, 271), caption, fill=c["fg"], font=f, anchor="mm")
    return img


def _worker(task: str = TASK) -> tuple[OfflineWorker, object]:
    ladder, parser = default_ladder()
    ladder.instruction = task
    q = ScreenQueries(ladder, parser)
    manager = OfflineManager()
    first = manager.plan(task)[0]
    worker = OfflineWorker(value_reader=q.shown_text, texts_reader=q.texts, modal_reader=q.dialog,
                           buttons_reader=q.buttons, task=lambda: task)
    return worker, first


def _after_failed_password(worker, first, img):
    obs = Observation.from_image(img)
    assert worker.next_action(first, obs, []) == first.actions[0]
    history = [StepRecord(first.actions[0], 0, True),
               StepRecord(first.actions[1], 0, False, "could not find 'the password field' on the screen")]
    return worker.next_action(first, obs, history), history


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
def test_an_unannounced_dialog_is_dismissed_by_its_harmless_way_out(theme, font_name):
    worker, first = _worker()
    img = _screen(theme, font_name, (("Your session is about", "to expire.", "Exit to home page?"), ("OK", "Cancel")))
    action, history = _after_failed_password(worker, first, img)
    assert action == Click('the "Cancel" button in the dialog')
    ladder, _ = default_ladder()
    assert ladder.resolve(action.target, Observation.from_image(img)).point.y > 240
    # once dismissed, the step the dialog made fail is tried again, and a field typed before
    # the dialog opened is typed again when its text is not there
    history.append(StepRecord(action, 0, True))
    again = worker.next_action(first, Observation.from_image(_screen(theme, font_name, None, "ann")), history)
    assert isinstance(again, Type) and again.into == "the password field"
    retyped = worker.next_action(first, Observation.from_image(_screen(theme, font_name, None)), history)
    assert isinstance(retyped, Type) and retyped.into == "the username field"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_lone_acknowledgement_is_clicked_and_other_choices_are_not(theme):
    worker, first = _worker()
    action, _ = _after_failed_password(worker, first, _screen(theme, FONTS[0], (("You have 10 new", "messages."), ("OK",))))
    assert action == Click('the "OK" button in the dialog')
    worker, first = _worker()
    action, _ = _after_failed_password(worker, first, _screen(theme, FONTS[0], (("Delete all files?",), ("Delete", "Keep"))))
    assert isinstance(action, Fail)


def test_a_dialog_the_task_names_is_not_in_the_way():
    task = 'Enter the username "ann" and the password "pw" into the text fields and press Cancel.'
    worker, first = _worker(task)
    action, _ = _after_failed_password(worker, first, _screen("light", FONTS[0], (("Exit to home page?",), ("OK", "Cancel"))))
    assert isinstance(action, Fail)


@pytest.mark.parametrize("font_name", FONTS)
def test_the_forms_one_committing_button_under_another_name(font_name):
    worker, _ = _worker()
    plan = OfflineManager().plan(TASK)
    press = plan[1]
    img = Observation.from_image(_screen("light", font_name, None))
    assert worker.next_action(press, img, []) == Click("login")
    failed = [StepRecord(Click("login"), 1, False, "could not find 'login' on the screen")]
    action = worker.next_action(press, img, failed)
    assert action == Click('the "OK" button')
    done = worker.next_action(press, img, [*failed, StepRecord(action, 1, True)])
    assert not isinstance(done, Click | Fail)
