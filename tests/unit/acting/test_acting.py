"""Performing a grounded step and judging its effect, on a simulated form app read with real OCR.

The faults are the false successes found on real desktops: typed keys lost, text typed into
another field than the one clicked, an Enter or a button that did nothing. Before the effect
check every one of them was reported as done.
"""

from __future__ import annotations

import pytest

from gui_agent import Engine
from gui_agent.acting import Actor, resize_drag
from gui_agent.actions import Click, Hotkey, Resize, Scroll, Type
from gui_agent.config import Settings
from gui_agent.geometry import Box, Point
from gui_agent.grounding.default import default_ladder
from gui_agent.parsing.elements import ElementKind
from gui_agent.planner import offline_planner
from gui_agent.verify import settle_after
from tests.support.synthetic.form_app import Faults, FormApp, FormDesktop


@pytest.fixture(scope="module")
def ladder_and_parser():
    return default_ladder()


FAST = Settings(settle_timeout=0.3, settle_interval=0.01, settle_change_grace=0.2)


def _actor(desktop: FormDesktop, parser) -> Actor:
    def settle(before):
        return settle_after(desktop.observe, before, FAST)

    return Actor(desktop.controller, desktop.observe, settle, reader=parser, settle_interval=0.01)


def _grounded(ladder, desktop, description):
    obs = desktop.observe()
    return obs, ladder.resolve(description, obs)


def test_typed_text_read_back_in_the_field(ladder_and_parser):
    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp())
    obs, city = _grounded(ladder, desktop, "the City field")
    assert city.element is not None and city.element.kind == ElementKind.TEXT_FIELD
    acted = _actor(desktop, parser).act(Type("Paris", into="the City field"), {"into": city}, obs)
    assert acted.effect.seen and acted.attempts == 1
    assert "changed" in acted.effect.observed
    assert desktop.app.values["City"] == "Paris"


def test_lost_keys_are_retried_once_then_fail_with_what_was_seen(ladder_and_parser):
    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp(Faults(lose_keys=True)))
    obs, city = _grounded(ladder, desktop, "the City field")
    acted = _actor(desktop, parser).act(Type("Paris", into="the City field"), {"into": city}, obs)
    assert not acted.effect.seen and acted.attempts == 2
    assert "'Paris' in the field" in acted.effect.describe()
    assert sum(p.startswith("type") for p in desktop.app.presses) == 2


def test_text_a_slow_application_shows_late_is_typed_once(ladder_and_parser):
    """Under load the text appeared after the first look, and typing it again doubled it."""
    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp(Faults(lag=4)))
    obs, city = _grounded(ladder, desktop, "the City field")
    acted = _actor(desktop, parser).act(Type("Paris", into="the City field"), {"into": city}, obs)
    assert acted.effect.seen and acted.attempts == 1
    assert desktop.app.values["City"] == "Paris"


def test_text_that_went_into_another_field_is_not_a_success(ladder_and_parser):
    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp(Faults(sticky_focus=True)))   # the focus stays on Name
    obs, city = _grounded(ladder, desktop, "the City field")
    acted = _actor(desktop, parser).act(Type("Paris", into="the City field"), {"into": city}, obs)
    assert not acted.effect.seen
    assert "instead" in acted.effect.describe()    # it says where the text went


def test_an_enter_that_changes_nothing_fails_after_the_text_was_seen(ladder_and_parser):
    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp(Faults(ignore_enter=True)))
    obs, name = _grounded(ladder, desktop, "the Name field")
    acted = _actor(desktop, parser).act(Type("Ann", into="the Name field", enter=True), {"into": name}, obs)
    assert not acted.effect.seen
    assert "Enter" in acted.effect.describe()
    assert desktop.app.presses.count("press enter") == 1    # never again: it may have submitted


def test_a_working_enter_is_seen(ladder_and_parser):
    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp())
    obs, name = _grounded(ladder, desktop, "the Name field")
    acted = _actor(desktop, parser).act(Type("Ann", into="the Name field", enter=True), {"into": name}, obs)
    assert acted.effect.seen, acted.effect.describe()
    assert desktop.app.status.startswith("Saved Ann")


def test_a_dead_button_is_clicked_twice_then_fails(ladder_and_parser):
    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp(Faults(dead_button=True)))
    obs, button = _grounded(ladder, desktop, '"Submit"')
    acted = _actor(desktop, parser).act(Click('"Submit"'), {"target": button}, obs)
    assert not acted.effect.seen and acted.attempts == 2
    assert "the screen stayed the same" in acted.effect.describe()


def test_a_click_into_a_focused_field_is_seen_by_its_caret(ladder_and_parser):
    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp(focus="Name"))     # already focused: the click changes nothing
    obs, name = _grounded(ladder, desktop, "the Name field")
    acted = _actor(desktop, parser).act(Click("the Name field"), {"target": name}, obs)
    assert acted.effect.seen and acted.attempts == 1, acted.effect.describe()


def test_scrolling_is_not_judged_and_says_so(ladder_and_parser):
    _, parser = ladder_and_parser
    desktop = FormDesktop(FormApp())
    acted = _actor(desktop, parser).act(Scroll("down"), {}, desktop.observe())
    assert acted.effect.seen and not acted.effect.judged
    assert acted.effect.describe().startswith("not checked")


def test_a_copy_is_judged_by_the_clipboard(ladder_and_parser):
    _, parser = ladder_and_parser
    desktop = FormDesktop(FormApp())
    actor = _actor(desktop, parser)
    actor.clipboard = lambda: ""
    assert not actor.act(Hotkey(("ctrl", "c")), {}, desktop.observe()).effect.seen
    actor.clipboard = lambda: "copied"
    assert actor.act(Hotkey(("ctrl", "c")), {}, desktop.observe()).effect.seen


def test_a_secret_is_never_read_back(ladder_and_parser, monkeypatch):
    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp())
    obs, city = _grounded(ladder, desktop, "the City field")
    monkeypatch.setattr(parser, "read_text", lambda *a, **k: pytest.fail("a secret was read back"))
    acted = _actor(desktop, parser).act(Type("Hunter3", into="the City field"), {"into": city}, obs,
                                        secret=True)
    assert acted.effect.seen and "Hunter3" not in acted.effect.describe()


def _run(app: FormApp, task: str, tmp_path, ladder_and_parser):
    ladder, parser = ladder_and_parser
    settings = Settings(runs_dir=tmp_path, settle_timeout=0.3, settle_interval=0.01,
                        settle_change_grace=0.05, safety="refuse")
    agent = Engine(FormDesktop(app), offline_planner(), settings=settings, ladder=ladder, parser=parser)
    return agent.run(task)


@pytest.mark.parametrize("faults, why", [
    (Faults(lose_keys=True), "in the field"),
    (Faults(sticky_focus=True), "instead"),
    (Faults(ignore_enter=True), "Enter"),
])
def test_a_run_never_reports_done_when_the_effect_was_not_seen(faults, why, tmp_path, ladder_and_parser):
    result = _run(FormApp(faults), 'type "Paris" into the City field and press Enter', tmp_path,
                  ladder_and_parser)
    assert result.outcome == "failed", result
    assert why in result.reason


def test_the_same_run_on_a_working_app_is_done(tmp_path, ladder_and_parser):
    app = FormApp()
    result = _run(app, 'type "Paris" into the City field and press Enter', tmp_path, ladder_and_parser)
    assert result.outcome == "done", result.reason
    assert app.values["City"] == "Paris" and app.status.startswith("Saved")


def test_a_run_never_ends_on_a_click_that_changed_nothing(tmp_path, ladder_and_parser):
    result = _run(FormApp(Faults(dead_button=True)), 'type "Ann" into the Name field, then click "Submit"',
                  tmp_path, ladder_and_parser)
    assert result.outcome == "failed"
    assert "changed nothing" in result.reason and "Submit" in result.reason


def test_a_click_that_rightly_changes_nothing_midway_does_not_fail_the_run(tmp_path, ladder_and_parser):
    """A click on what is already in place (the tab already open) may change nothing; the run
    goes on, and it is judged by the steps after it."""
    app = FormApp(Faults(dead_button=True))
    result = _run(app, 'click "Submit", then type "Paris" into the City field', tmp_path, ladder_and_parser)
    assert result.outcome == "done", result.reason
    assert app.values["City"] == "Paris"
    assert "stayed the same" in result.steps[0].why


# -- resizing an element by its corner ---------------------------------------------------------

NOTES = Box(140, 290, 200, 70)


def test_resize_drags_from_just_inside_the_corner_to_the_size_asked() -> None:
    grip, to = resize_drag(Box(100, 100, 200, 80), 1.5, 1.0, (1000, 800))
    assert grip == Point(297, 177)                       # 3 px inside the bottom-right corner
    assert to == Point(397, 177)                         # half as wide again, as tall as it was
    grip, to = resize_drag(Box(100, 100, 200, 80), 0.5, 0.5, (1000, 800))
    assert to == Point(197, 137)
    _, to = resize_drag(Box(600, 500, 300, 200), 2.0, 2.0, (1000, 800))
    assert to == Point(997, 797)                         # kept on the screen


def test_a_resize_grows_the_area_and_is_seen(ladder_and_parser):
    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp(notes=NOTES))
    obs, notes = _grounded(ladder, desktop, "the Notes field")
    assert notes.box.contains(NOTES.center)
    acted = _actor(desktop, parser).act(Resize("the Notes field", width=1.5), {"target": notes}, obs)
    assert acted.effect.seen and acted.attempts == 1
    assert abs(desktop.app.notes.width - 300) <= 8 and desktop.app.notes.height == NOTES.height


def test_a_resize_that_changes_nothing_is_not_a_success(ladder_and_parser):
    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp(Faults(fixed_size=True), notes=NOTES))
    obs, notes = _grounded(ladder, desktop, "the Notes field")
    acted = _actor(desktop, parser).act(Resize("the Notes field", height=1.4), {"target": notes}, obs)
    assert not acted.effect.seen and acted.attempts == 2
    assert "resize" in acted.effect.describe()


def test_a_run_resizes_a_text_area_as_the_task_says(tmp_path, ladder_and_parser):
    app = FormApp(notes=NOTES)
    result = _run(app, "resize the Notes field so that its width is larger, then click Submit",
                  tmp_path, ladder_and_parser)
    assert result.outcome == "done", result.reason
    assert app.notes.width > NOTES.width + 50 and app.notes.height == NOTES.height


def test_enter_waits_for_a_completion_list_to_close(ladder_and_parser):
    """Under load a save dialog's completer still showed when Enter was pressed: it took the
    Enter (opening a folder), the screen changed, and the run reported done without saving."""
    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp(Faults(completer=3)))
    obs, city = _grounded(ladder, desktop, "the City field")
    acted = _actor(desktop, parser).act(Type("Paris", into="the City field", enter=True), {"into": city}, obs)
    assert desktop.app.values["City"] == "Paris" and desktop.app.status.startswith("Saved")
    assert acted.effect.seen


def test_a_date_or_time_input_is_typed_without_spaces(ladder_and_parser):
    """A browser's time input takes "6:38 PM" part by part; a space would open its picker over
    the page (and the keys after it went to the picker)."""
    from dataclasses import replace

    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp())
    obs, city = _grounded(ladder, desktop, "the City field")
    acted = _actor(desktop, parser).act(Type("6:38 PM", into="the City field"),
                                        {"into": replace(city, segmented=True)}, obs)
    assert acted.effect.seen and desktop.app.values["City"] == "6:38PM"
    plain = FormDesktop(FormApp())
    obs, city = _grounded(ladder, plain, "the City field")
    _actor(plain, parser).act(Type("6:38 PM", into="the City field"), {"into": city}, obs)
    assert plain.app.values["City"] == "6:38 PM"


def _enter_in_dialog(ladder_and_parser, faults: Faults, *, finds: bool = False, secret: bool = False):
    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp(faults, dialog=True, finds=finds))
    obs, city = _grounded(ladder, desktop, "the City field")
    action = Type("Paris", into="the City field", enter=True)
    return desktop.app, _actor(desktop, parser).act(action, {"into": city}, obs, secret=secret)


def test_an_enter_a_dialog_gave_to_its_own_list_is_pressed_again(ladder_and_parser):
    """A Qt save dialog opened the folder its list had selected while the path was typed: the
    screen changed, the dialog stayed open with the path in its field, and the run said done
    without saving. The dialog did not take the Enter, so it is pressed again."""
    app, acted = _enter_in_dialog(ladder_and_parser, Faults(own_list=1))
    assert app.presses.count("press enter") == 2
    assert app.closed and app.status == "Saved  from Paris"
    assert acted.effect.seen, acted.effect.describe()
    assert "second Enter" in acted.effect.observed


def test_a_dialog_that_never_takes_the_enter_fails_the_step(ladder_and_parser):
    app, acted = _enter_in_dialog(ladder_and_parser, Faults(own_list=5))
    assert app.presses.count("press enter") == 2 and not app.closed
    assert not acted.effect.seen
    assert "'Save as' is still open" in acted.effect.describe()


def test_a_dialog_that_takes_the_enter_at_once_gets_one(ladder_and_parser):
    app, acted = _enter_in_dialog(ladder_and_parser, Faults())
    assert app.presses.count("press enter") == 1 and app.closed
    assert acted.effect.seen, acted.effect.describe()


def test_a_find_dialog_that_stays_open_is_not_pressed_twice(ladder_and_parser):
    """A find dialog stays after Enter; what it found changes outside it."""
    app, acted = _enter_in_dialog(ladder_and_parser, Faults(), finds=True)
    assert app.presses.count("press enter") == 1 and not app.closed
    assert acted.effect.seen, acted.effect.describe()


def test_a_secret_is_never_submitted_twice(ladder_and_parser):
    app, acted = _enter_in_dialog(ladder_and_parser, Faults(own_list=1), secret=True)
    assert app.presses.count("press enter") == 1
    assert not acted.effect.seen


def test_a_click_rests_the_pointer_on_its_target_first(ladder_and_parser):
    """A web page's icon swapped for its hover image lost the press that came with the pointer:
    its menu never opened, and the hover image passed for the click's effect."""
    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp(Faults(hover_swap=True)))
    obs, button = _grounded(ladder, desktop, '"Submit"')
    acted = _actor(desktop, parser).act(Click('"Submit"'), {"target": button}, obs)
    assert desktop.app.status.startswith("Saved"), desktop.app.presses
    assert acted.effect.seen and acted.attempts == 1
    assert [p.split()[0] for p in desktop.app.presses] == ["move", "click"]


def test_a_hover_look_alone_is_no_effect_of_a_click(ladder_and_parser):
    """The button redraws under the pointer but does nothing: the redraw is not the click's,
    and the click is not repeated (a live button may rightly show nothing: a second click on
    the first button of a sequence failed it)."""
    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp(Faults(hover_swap=True, dead_button=True)))
    obs, button = _grounded(ladder, desktop, '"Submit"')
    acted = _actor(desktop, parser).act(Click('"Submit"'), {"target": button}, obs)
    assert not acted.effect.seen and acted.attempts == 1
    assert sum(p.startswith("click") for p in desktop.app.presses) == 1


def test_a_change_away_from_the_target_while_the_pointer_moves_is_no_hover_of_it(ladder_and_parser):
    """The pointer leaves a field whose hover outline goes out: that change is not the button
    taking the hover, so a click on it that shows nothing is made once more and reported unseen
    (a calculator's display clicked for its "3" key passed, and the run ended done)."""
    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp(Faults(hover_fields=True, dead_button=True)))
    desktop.controller.move(FormApp.fields["City"].center)
    obs, button = _grounded(ladder, desktop, '"Submit"')
    acted = _actor(desktop, parser).act(Click('"Submit"'), {"target": button}, obs)
    assert not acted.effect.seen and acted.attempts == 2


def test_a_wait_counts_from_the_last_input(ladder_and_parser):
    """'click ONE, wait 3 seconds, then click TWO' clicked TWO late by the time the click on ONE
    spent settling and being checked: the wait counts from the click."""
    import time

    from gui_agent.actions import Wait

    ladder, parser = ladder_and_parser
    desktop = FormDesktop(FormApp())
    actor = _actor(desktop, parser)
    obs, button = _grounded(ladder, desktop, '"Submit"')
    actor.act(Click('"Submit"'), {"target": button}, obs)
    time.sleep(0.4)                       # the step after the click: settling, checking, planning
    start = time.monotonic()
    acted = actor.act(Wait(1.0), {}, desktop.observe())
    assert 0.45 <= time.monotonic() - start <= 0.75
    assert not acted.effect.judged
    fresh = _actor(desktop, parser)       # nothing sent yet: the whole wait
    start = time.monotonic()
    fresh.act(Wait(0.3), {}, desktop.observe())
    assert time.monotonic() - start >= 0.3
