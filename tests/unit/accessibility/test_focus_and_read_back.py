"""With the tree, typing waits for the field's focus and its text is read back from the field's
accessible value, not guessed from pixels."""

from __future__ import annotations

import threading

from PIL import Image

from gui_agent.accessibility.live import wait_for_focus
from gui_agent.acting import Actor
from gui_agent.actions import Type
from gui_agent.control.dry_run import DryRunController
from gui_agent.geometry import Box
from gui_agent.grounding.candidate import Candidate
from gui_agent.parsing.elements import ElementKind
from gui_agent.screen.observation import Observation
from gui_agent.verify.effect import typed_effect
from tests.support.a11y_fakes import ScriptedHandle, node

K = ElementKind
BLANK = Image.new("RGB", (200, 100), "white")
FOCUSED = frozenset({"focused", "enabled"})


def _field(handle: ScriptedHandle, value: str | None = "") -> object:
    return node(K.TEXT_FIELD, (10, 10, 150, 24), value or "", handle=handle, value=value)


def test_the_focus_is_awaited_until_the_field_says_so():
    handle = ScriptedHandle(state_answers=[frozenset(), frozenset(), FOCUSED])
    assert wait_for_focus(handle, timeout=2.0)
    assert handle.asked == 3
    gone = ScriptedHandle(state_answers=[None])
    assert not wait_for_focus(gone, timeout=2.0)                  # the field went away
    never = ScriptedHandle(state_answers=[frozenset()])
    assert not wait_for_focus(never, timeout=0.1)
    stopped = threading.Event()
    stopped.set()
    assert not wait_for_focus(ScriptedHandle(state_answers=[frozenset()]), 5.0, stopped)


def test_typed_text_is_read_back_from_the_field_not_from_pixels():
    # the pixels did not change at all, but the field holds the text: seen
    holds = ScriptedHandle(value_answers=["Ada Lovelace"])
    effect = typed_effect("Ada Lovelace", secret=False, target=_field(holds), target_box=Box(10, 10, 150, 24),
                          before=BLANK, after=BLANK, reader=None)
    assert effect.seen and "accessible value" in effect.observed
    # the pixels changed, but the field holds something else (the keys went elsewhere, or a
    # completion ate them): not seen, whatever the pixels say
    cut = ScriptedHandle(value_answers=["/tmp/a11"])
    after = BLANK.copy()
    after.paste((0, 0, 0), (20, 14, 120, 30))
    effect = typed_effect("/tmp/a11y/report.txt", secret=False, target=_field(cut),
                          target_box=Box(10, 10, 150, 24), before=BLANK, after=after, reader=None)
    assert not effect.seen and "'/tmp/a11'" in effect.observed


def test_a_value_that_already_held_the_text_must_change_unless_the_field_was_filled():
    same = ScriptedHandle(value_answers=["banana"])
    kept = typed_effect("an", secret=False, target=_field(same, "banana"), target_box=Box(10, 10, 150, 24),
                        before=BLANK, after=BLANK, reader=None)
    assert not kept.seen and "stayed" in kept.observed
    filled = typed_effect("banana", secret=False, target=_field(ScriptedHandle(value_answers=["banana"]), "banana"),
                          target_box=Box(10, 10, 150, 24), before=BLANK, after=BLANK, reader=None,
                          cleared=True)
    assert filled.seen


def test_clearing_is_read_back_and_a_secret_never_is():
    emptied = typed_effect("", secret=False, target=_field(ScriptedHandle(value_answers=[""]), "x"),
                           target_box=Box(10, 10, 150, 24), before=BLANK, after=BLANK, reader=None,
                           cleared=True)
    assert emptied.seen and "empty" in emptied.observed
    left = typed_effect("", secret=False, target=_field(ScriptedHandle(value_answers=["x"]), "x"),
                        target_box=Box(10, 10, 150, 24), before=BLANK, after=BLANK, reader=None,
                        cleared=True)
    assert not left.seen
    secret_handle = ScriptedHandle(value_answers=["hunter2"])
    secret = typed_effect("hunter2", secret=True, target=_field(secret_handle),
                          target_box=Box(10, 10, 150, 24), before=BLANK, after=BLANK, reader=None)
    assert not secret.seen and "read back" not in secret.observed   # judged by pixels alone


def test_typing_into_a_tree_field_waits_for_its_focus_then_reads_the_text_back():
    handle = ScriptedHandle(state_answers=[frozenset(), FOCUSED], value_answers=["hello"])
    field = _field(handle)
    obs = Observation.from_image(BLANK)
    controller = DryRunController()
    actor = Actor(controller, lambda: Observation.from_image(BLANK), lambda before: Observation.from_image(BLANK))
    cand = Candidate(field.box, 1.0, "a11y", field)
    acted = actor.act(Type("hello", into="the field"), {"into": cand}, obs)
    assert acted.effect.seen and acted.attempts == 1
    assert [e.method for e in controller.log] == ["click", "type_text"]
    assert handle.asked == 2                 # asked until the field said it had the focus


def _button(handle: ScriptedHandle) -> Candidate:
    save = node(K.BUTTON, (100, 70, 60, 24), "Save", role="push button", states=frozenset(),
                handle=handle)
    return Candidate(save.box, 1.0, "a11y", save)


def test_a_disabled_button_is_given_time_to_turn_on_then_clicked():
    """A dialog's Save button turns sensitive once its field holds the name: the click waits
    for that (the tree says so), instead of landing on a button that ignores it."""
    from gui_agent.actions import Click

    handle = ScriptedHandle(state_answers=[frozenset(), frozenset({"enabled"})])
    controller = DryRunController()
    frames = iter([BLANK, BLANK.copy()])
    changed = BLANK.copy()
    changed.paste((0, 0, 0), (0, 0, 200, 50))
    actor = Actor(controller, lambda: Observation.from_image(next(frames, changed)),
                  lambda before: Observation.from_image(changed))
    acted = actor.act(Click('"Save"'), {"target": _button(handle)}, Observation.from_image(BLANK))
    assert [e.method for e in controller.log] == ["move", "click"] and acted.effect.seen
    assert handle.asked == 2


def test_a_button_that_stays_disabled_is_not_clicked_and_the_step_fails(monkeypatch):
    """Clicking it would change at most its own pixels (a press highlight), which passed for the
    step's effect: a task reported done whose file was never saved."""
    from gui_agent import acting
    from gui_agent.actions import Click

    handle = ScriptedHandle(state_answers=[frozenset()])
    controller = DryRunController()
    actor = Actor(controller, lambda: Observation.from_image(BLANK),
                  lambda before: Observation.from_image(BLANK))
    monkeypatch.setattr(acting, "ENABLED_WAIT_S", 0.1)
    acted = actor.act(Click('"Save"'), {"target": _button(handle)}, Observation.from_image(BLANK))
    assert controller.log == []
    assert not acted.effect.seen and acted.effect.required
    assert "says 'Save' is disabled; not clicked" in acted.effect.observed


def test_a_fill_whose_old_text_stayed_before_the_new_is_not_seen():
    """A save dialog's name field kept 'Untitle' before the typed path (the select-all was
    lost): the path was "in" the value, and the dialog saved somewhere else."""
    box = Box(10, 10, 150, 24)
    kept = typed_effect("/tmp/menu.txt", secret=False,
                        target=_field(ScriptedHandle(value_answers=["Untitle/tmp/menu.txt"]), "Untitled"),
                        target_box=box, before=BLANK, after=BLANK, reader=None, cleared=True)
    assert not kept.seen and "old text stayed" in kept.observed
    completed = typed_effect("Par", secret=False,
                             target=_field(ScriptedHandle(value_answers=["Paris"]), "Untitled"),
                             target_box=box, before=BLANK, after=BLANK, reader=None, cleared=True)
    assert completed.seen      # a completion after the typed text is the field's own
    added = typed_effect("/tmp/menu.txt", secret=False,
                         target=_field(ScriptedHandle(value_answers=["Untitle/tmp/menu.txt"]), "Untitle"),
                         target_box=box, before=BLANK, after=BLANK, reader=None)
    assert added.seen          # typed without clearing: appended to what was there


def test_a_fill_whose_old_text_stayed_is_done_again():
    handle = ScriptedHandle(state_answers=[FOCUSED],
                            value_answers=["Untitle/tmp/menu.txt"] * 2 + ["/tmp/menu.txt"])
    field = _field(handle, "Untitled")
    controller = DryRunController()
    actor = Actor(controller, lambda: Observation.from_image(BLANK), lambda before: Observation.from_image(BLANK))
    acted = actor.act(Type("/tmp/menu.txt", into="the field", clear=True),
                      {"into": Candidate(field.box, 1.0, "a11y", field)}, Observation.from_image(BLANK))
    assert acted.effect.seen and acted.attempts == 2, acted.effect.describe()
    assert [e.method for e in controller.log].count("type_text") == 2


class FieldPixels:
    """Reads a field's box as OCR would: what the field shows on the screen."""

    def __init__(self, shows: str) -> None:
        self.shows = shows

    def parse(self, image):  # pragma: no cover - not asked by the read-back check
        raise AssertionError("the whole screen is not parsed for a field's read-back")

    def read_text(self, image, box, inset: int = 2):
        return self.shows


def test_a_tree_value_that_lags_the_field_is_checked_against_its_pixels():
    """A browser's spin box reports its number to the tree only when it loses the focus: the
    tree still said '0' while the field showed the typed 4. What the field shows is seen; a
    field showing something else stays not seen."""
    box = Box(10, 10, 150, 24)
    lagging = typed_effect("4", secret=False, target=_field(ScriptedHandle(value_answers=["0"]), "0"),
                           target_box=box, before=BLANK, after=BLANK, reader=FieldPixels("4"), cleared=True)
    assert lagging.seen and "'4' read in the field's pixels" in lagging.observed
    kept = typed_effect("4", secret=False, target=_field(ScriptedHandle(value_answers=["0"]), "0"),
                        target_box=box, before=BLANK, after=BLANK, reader=FieldPixels("04"), cleared=True)
    assert not kept.seen and "accessible value is '0'" in kept.observed
    secret = typed_effect("4", secret=True, target=_field(ScriptedHandle(value_answers=["0"]), "0"),
                          target_box=box, before=BLANK, after=BLANK, reader=FieldPixels("4"))
    assert not secret.seen
