"""The effect rules on synthetic frames: what counts as a change, a caret, typed text read back."""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from gui_agent.actions import Click, Hotkey, Move, Scroll
from gui_agent.geometry import Box
from gui_agent.parsing.elements import Element, ElementKind
from gui_agent.verify.effect import (
    action_effect,
    has_caret,
    holds_text,
    typed_effect,
    visible_change,
)

FONT = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 16)
FIELD = Box(100, 50, 240, 32)


def frame(text: str = "", caret: bool = False, extra: str = "") -> Image.Image:
    image = Image.new("RGB", (400, 200), (245, 245, 245))
    draw = ImageDraw.Draw(image)
    draw.rectangle(FIELD.corners, fill="white", outline=(120, 120, 120))
    draw.text((FIELD.left + 6, FIELD.top + 7), text, fill="black", font=FONT)
    if caret:
        x = FIELD.left + 7 + round(draw.textlength(text, font=FONT))
        draw.line([(x, FIELD.top + 6), (x, FIELD.bottom - 7)], fill="black")
    if extra:
        draw.text((100, 140), extra, fill="black", font=FONT)
    return image


def test_a_blinking_caret_is_no_change_but_text_is():
    assert visible_change(frame(), frame(caret=True)) is None
    assert visible_change(frame(), frame("Ann")) is not None
    assert visible_change(frame(), frame(extra="Saved")) is not None


def test_a_change_is_looked_for_only_inside_the_region():
    assert visible_change(frame(), frame(extra="Saved"), FIELD) is None


def test_a_caret_is_seen_in_a_field_and_plain_text_is_no_caret():
    assert has_caret(frame(caret=True), FIELD)
    assert not has_caret(frame(), FIELD)
    assert not has_caret(frame("wmo"), FIELD)


def test_typed_text_is_held_folded_and_in_part():
    assert holds_text("Log in", "login")
    assert holds_text("O1l", "01I")                          # OCR look-alikes
    assert holds_text("a very long sentence typed here", "...tence typed here")
    assert not holds_text("Paris", "Berlin")


def test_typing_into_a_field_that_changed_is_seen_without_reading_it():
    field = Element(ElementKind.TEXT_FIELD, FIELD)
    effect = typed_effect("Ann", secret=False, target=field, target_box=FIELD, before=frame(),
                          after=frame("Ann"), reader=None)
    assert effect.seen and "changed" in effect.observed


def test_a_secret_typed_into_a_field_that_did_not_change_is_not_seen():
    field = Element(ElementKind.TEXT_FIELD, FIELD)
    effect = typed_effect("Hunter3", secret=True, target=field, target_box=FIELD, before=frame(),
                          after=frame(caret=True), reader=None)
    assert not effect.seen and "Hunter3" not in effect.describe()


def test_clicks_keys_and_drags_must_change_the_screen():
    before, after = frame(), frame(extra="Saved")
    assert action_effect(Click("OK"), before, after).seen
    assert not action_effect(Click("OK"), before, before).seen
    assert not action_effect(Hotkey(("ctrl", "s")), before, before).seen
    assert action_effect(Hotkey(("ctrl", "s")), before, after).seen


def test_a_click_into_a_field_is_seen_by_its_focus():
    field = Element(ElementKind.TEXT_FIELD, FIELD)
    effect = action_effect(Click("the Name field"), frame(), frame(caret=True), target=field,
                           target_box=FIELD)
    assert effect.seen


def test_scroll_and_hover_are_not_judged():
    for action in (Scroll("down"), Move("OK")):
        effect = action_effect(action, frame(), frame())
        assert effect.seen and not effect.judged


def test_typing_is_not_seen_where_a_dialog_popped_up_over_the_field():
    # a page's "Exit to home page?" popup came up over the form while a password was typed: the
    # field's pixels changed (the dialog), the keys went nowhere, and the step passed as seen
    from gui_agent.parsing.screen_parser import ScreenParser

    field = Element(ElementKind.TEXT_FIELD, FIELD)
    after = frame()
    draw = ImageDraw.Draw(after)
    draw.rectangle([60, 20, 380, 190], fill=(236, 236, 236), outline=(120, 120, 120), width=3)
    draw.text((100, 45), "Please do not panic.", fill="black", font=FONT)
    draw.text((100, 85), "Exit to home page?", fill="black", font=FONT)
    for x, caption in ((120, "OK"), (230, "Cancel")):
        draw.rectangle([x, 135, x + 90, 170], fill=(240, 240, 240), outline=(100, 100, 100), width=2)
        draw.text((x + 45, 152), caption, fill="black", font=FONT, anchor="mm")
    parser = ScreenParser()
    effect = typed_effect("Hunter3", secret=True, target=field, target_box=FIELD, before=frame(),
                          after=after, reader=parser)
    assert not effect.seen and "dialog" in effect.observed, effect
    typed = typed_effect("Hunter3", secret=True, target=field, target_box=FIELD, before=frame(),
                         after=frame("*******"), reader=parser)
    assert typed.seen, typed
