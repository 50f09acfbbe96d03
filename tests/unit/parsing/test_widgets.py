"""Widget detection on synthetic Pillow screens (light and dark)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from gui_agent.parsing.elements import ElementKind
from gui_agent.parsing.widgets import detect_widgets
from tests.support.pillow_form import SANS, THEMES, draw_app_window, font, matches, render_form


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_detects_fields_checkboxes_radios_and_states(theme: str) -> None:
    img, truth = render_form(theme)
    found = detect_widgets(np.asarray(img))
    for t in truth:
        if t.kind not in (ElementKind.TEXT_FIELD, ElementKind.CHECKBOX, ElementKind.RADIO, ElementKind.COMBO):
            continue
        hits = [e for e in found if matches(e.box, t.box)]
        assert hits, f"{t.kind} {t.label!r} not found"
        assert hits[0].kind == t.kind, f"{t.label!r}: {hits[0].kind} != {t.kind}"
        assert hits[0].source == "detector"
        if t.checked is not None:
            assert hits[0].checked == t.checked, f"{t.label!r} checked state"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_buttons_are_found_as_bordered_faces(theme: str) -> None:
    img, truth = render_form(theme)
    found = detect_widgets(np.asarray(img))
    for t in truth:
        if t.kind in (ElementKind.BUTTON, ElementKind.TAB):
            assert any(matches(e.box, t.box) for e in found), f"{t.kind} {t.text!r} not found"


def test_plain_text_and_empty_screen_give_no_widgets() -> None:
    img = Image.new("RGB", (400, 200), (250, 250, 250))
    ImageDraw.Draw(img).text((20, 20), "Just a paragraph of text, no widgets at all.", fill=(0, 0, 0), font=font())
    assert detect_widgets(np.asarray(img)) == []


def test_offset_shifts_boxes() -> None:
    img, truth = render_form("light")
    crop = np.asarray(img)[240:300, 140:440]
    found = detect_widgets(crop, offset=(140, 240))
    box = next(t.box for t in truth if t.label == "Remember me" and t.kind == ElementKind.CHECKBOX)
    assert any(e.kind == ElementKind.CHECKBOX and matches(e.box, box) for e in found)


def test_close_cross_is_found_and_a_plus_is_not() -> None:
    img = Image.new("RGB", (200, 60), (236, 236, 236))
    d = ImageDraw.Draw(img)
    d.line([(20, 20), (34, 34)], fill=(25, 25, 25), width=2)
    d.line([(20, 34), (34, 20)], fill=(25, 25, 25), width=2)
    d.line([(80, 27), (94, 27)], fill=(25, 25, 25), width=2)
    d.line([(87, 20), (87, 34)], fill=(25, 25, 25), width=2)
    found = detect_widgets(np.asarray(img))
    assert [e.kind for e in found] == [ElementKind.CLOSE]
    assert found[0].box.contains(Box(20, 20, 15, 15).center)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_squares_and_circles_are_told_apart(theme: str) -> None:
    c = THEMES[theme]
    img = Image.new("RGB", (300, 60), c["bg"])
    d = ImageDraw.Draw(img)
    for i, side in enumerate((12, 14, 17, 20)):
        x = 20 + 70 * i
        d.rectangle([x, 5, x + side, 5 + side], fill=c["field"], outline=c["border"], width=2)
        d.ellipse([x, 32, x + side, 32 + side], fill=c["field"], outline=c["border"], width=2)
    kinds = sorted((e.box.top < 25, e.kind) for e in detect_widgets(np.asarray(img)))
    assert kinds == [(False, ElementKind.RADIO)] * 4 + [(True, ElementKind.CHECKBOX)] * 4


# -- browser widgets at device scale 2 (Chromium's look) ----------------------------------------

from gui_agent.parsing.fusion import fuse  # noqa: E402
from gui_agent.parsing.ocr import TextLine  # noqa: E402
from gui_agent.parsing.widgets import arrow_glyphs  # noqa: E402


def _web_page(draw_on) -> tuple[Image.Image, list[TextLine]]:
    """A white page; ``draw_on(draw)`` draws widgets and returns the text it wrote as
    ``(text, x, y)`` runs, which come back as the OCR lines a reader would give."""
    image = Image.new("RGB", (330, 420), "white")
    draw = ImageDraw.Draw(image)
    lines = []
    for text, x, y in draw_on(draw):
        draw.text((x, y), text, font=font(24, SANS), fill="black")
        left, top, right, bottom = draw.textbbox((x, y), text, font=font(24, SANS))
        lines.append(TextLine(text, Box(left - 1, top - 2, right - left + 2, bottom - top + 4), 0.99))
    return image, lines


def _fused(image: Image.Image, lines: list[TextLine]):
    rgb = np.asarray(image)
    return fuse(lines, detect_widgets(rgb), rgb)


def test_native_select_with_light_border_and_small_chevron_is_a_combo():
    def draw_select(d):
        d.rounded_rectangle([4, 112, 303, 151], radius=4, fill="white", outline=(118, 118, 118), width=2)
        d.line([(280, 127), (287, 134), (294, 127)], fill="black", width=2)   # the chevron
        return [("Amelita", 14, 118)]

    kinds = {(e.kind, e.text) for e in _fused(*_web_page(draw_select))}
    assert (ElementKind.COMBO, "Amelita") in kinds


def test_big_square_button_with_a_wrapped_caption_is_a_button():
    def draw_button(d):
        d.rounded_rectangle([102, 214, 201, 313], radius=4, fill=(239, 239, 239), outline=(118, 118, 118), width=2)
        return [("Click", 122, 234), ("Me!", 130, 266)]

    found = [(e.kind, e.text) for e in _fused(*_web_page(draw_button))]
    assert found == [(ElementKind.BUTTON, "Click Me!")]


def test_square_button_whose_caption_overflows_is_a_button():
    def draw_button(d):
        d.rounded_rectangle([150, 248, 229, 327], radius=4, fill=(239, 239, 239), outline=(118, 118, 118), width=2)
        return [("TWO", 166, 274)]

    assert [(e.kind, e.text) for e in _fused(*_web_page(draw_button))] == [(ElementKind.BUTTON, "TWO")]


def _draw_spinner(d):
    d.rectangle([10, 133, 309, 176], fill="white", outline=(170, 170, 170), width=2)
    d.rectangle([274, 133, 309, 176], fill=(246, 246, 246), outline=(200, 200, 200), width=2)
    d.polygon([(284, 148), (291, 141), (298, 148)], fill=(80, 80, 80))     # up
    d.polygon([(284, 161), (291, 168), (298, 161)], fill=(80, 80, 80))     # down
    return [("0", 20, 142)]


def test_spinner_is_a_field_with_up_and_down_arrow_icons():
    parts = {(e.kind, e.label or e.text): e.box for e in _fused(*_web_page(_draw_spinner))}
    assert (ElementKind.TEXT_FIELD, "0") in parts
    up, down = parts[(ElementKind.ICON, "up arrow")], parts[(ElementKind.ICON, "down arrow")]
    assert up.contains(up.center) and up.bottom <= down.top + 1 and 140 <= up.center.y < 155 <= down.center.y


def test_arrow_glyphs_tell_their_direction():
    image, _ = _web_page(_draw_spinner)
    gray = np.asarray(image.convert("L"))
    ways = sorted(way for _, way in arrow_glyphs(gray, Box(274, 133, 36, 44)))
    assert ways == ["down", "up"]


def test_tabs_with_a_wider_gap_at_scale_two_are_tabs():
    def draw_tabs(d):
        runs = []
        for i, x in enumerate((40, 148)):   # 8 px apart as drawn (~6 as detected), 49 px tall
            d.rounded_rectangle([x, 114, x + 100, 163], radius=4, fill=(248, 248, 248), outline=(200, 200, 200), width=2)
            caption = f"Tab #{i + 2}"
            runs.append((caption, x + (100 - round(d.textlength(caption, font=font(24, SANS)))) // 2, 126))
        return runs

    assert {e.kind for e in _fused(*_web_page(draw_tabs))} == {ElementKind.TAB}


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", ["liberation/LiberationSans-Regular.ttf", "dejavu/DejaVuSans.ttf"])
def test_an_underlined_run_of_digits_is_no_text_field(theme: str, font_name: str) -> None:
    """A link "487-625-9172" outlines a box (the digits' flat tops, its underline, the first and
    last digit's sides) without being one: a field has blank padding inside its border."""
    c = THEMES[theme]
    img = Image.new("RGB", (420, 260), c["bg"])
    d = ImageDraw.Draw(img)
    for y, size, gap in ((10, 17, 3), (50, 18, 3), (90, 19, 2), (130, 19, 3), (170, 16, 2)):
        f = font(size, font_name)
        d.text((20, y), "487-625-9172", fill=c["link"], font=f)
        left, top, right, bottom = d.textbbox((20, y), "487-625-9172", font=f)
        d.line([left, bottom + gap, right, bottom + gap], fill=c["link"], width=1)
    d.rectangle([20, 215, 200, 240], fill=c["field"], outline=c["border"])
    d.text((25, 219), "HELLO WORLD 42", fill=c["fg"], font=font(14, font_name))
    found = detect_widgets(np.asarray(img))
    fields = (ElementKind.TEXT_FIELD, ElementKind.COMBO)
    assert [e for e in found if e.box.top < 205 and e.kind in fields] == []
    assert any(e.kind == ElementKind.TEXT_FIELD and e.box.top >= 210 for e in found), found


def _large_boxes(theme: str, side: int) -> tuple[Image.Image, list[tuple[Box, ElementKind, bool | None]]]:
    """Check boxes drawn large (a page zoomed 2x): blank, ticked in white on a filled face, and
    ticked in ink on a blank face; then an icon button of the same size with a "+" on it."""
    c = THEMES[theme]
    img = Image.new("RGB", (340, 80), c["bg"])
    d = ImageDraw.Draw(img)
    truth = []
    for k, style in enumerate(("blank", "filled", "inked", "plus")):
        x, y = 20 + 70 * k, 24
        box = Box(x, y, side, side)
        face = (0, 92, 200) if style == "filled" else c["field"]
        d.rounded_rectangle([x, y, x + side - 1, y + side - 1], radius=side // 7, fill=face,
                            outline=(0, 92, 200) if style == "filled" else c["border"], width=2)
        mark = (255, 255, 255) if style == "filled" else c["mark"]
        if style in ("filled", "inked"):
            d.line([(x + side * 0.22, y + side * 0.52), (x + side * 0.42, y + side * 0.72),
                    (x + side * 0.78, y + side * 0.3)], fill=mark, width=max(2, side // 9))
        if style == "plus":
            d.line([(x + side // 2, y + 6), (x + side // 2, y + side - 7)], fill=mark, width=2)
            d.line([(x + 6, y + side // 2), (x + side - 7, y + side // 2)], fill=mark, width=2)
        kind = ElementKind.BUTTON if style == "plus" else ElementKind.CHECKBOX
        truth.append((box, kind, None if style == "plus" else style != "blank"))
    return img, truth


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("side", [28, 32])
def test_check_boxes_drawn_large_are_check_boxes_and_a_button_stays_a_button(theme: str, side: int) -> None:
    """At twice their usual size (a zoomed page) check boxes were taken for icon buttons, and
    'the 2nd checkbox' counted only the ones the pointer had changed."""
    img, truth = _large_boxes(theme, side)
    found = detect_widgets(np.asarray(img))
    for box, kind, checked in truth:
        hits = [e for e in found if matches(e.box, box)]
        assert hits and hits[0].kind == kind, (box, kind, hits)
        if checked is not None:
            assert hits[0].checked == checked, (box, hits[0])


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_square_slider_thumb_drawn_large_is_no_check_box(theme: str) -> None:
    """A blank square on a thin track is a slider's thumb: still found (as a face), never a check
    box ('the 1st checkbox' counted it)."""
    c = THEMES[theme]
    img = Image.new("RGB", (320, 80), c["bg"])
    d = ImageDraw.Draw(img)
    d.rounded_rectangle([20, 34, 280, 46], radius=3, fill=c["field"], outline=c["border"], width=2)
    d.rounded_rectangle([110, 26, 138, 54], radius=3, fill=c["face"], outline=c["border"], width=1)
    found = detect_widgets(np.asarray(img))
    thumb = [e for e in found if matches(e.box, Box(110, 26, 29, 29))]
    assert thumb and all(e.kind != ElementKind.CHECKBOX for e in thumb), thumb


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_text_view_sharing_its_window_frame_is_found_under_the_menu_bar(theme: str) -> None:
    # a borderless editor view: its left, right and bottom sides are the window's own frame,
    # its top a line under the menu bar; the window's outline overlaps it as much as two
    # outlines of one stroke do, yet they are two widgets
    c = THEMES[theme]
    image = Image.new("RGB", (1000, 700), (0, 0, 0))
    d = ImageDraw.Draw(image)
    draw_app_window(d, theme, (300, 140, 940, 640), ("File", "Edit", "Search"))
    d.rectangle([300, 210, 940, 620], fill=c["field"], outline=c["border"])
    found = [e for e in detect_widgets(np.asarray(image)) if e.kind == ElementKind.TEXT_FIELD]
    assert any(abs(e.box.top - 210) <= 4 and abs(e.box.bottom - 621) <= 4 and e.box.width > 600
               for e in found), found


CJK_FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", [27, 29, 31])
def test_a_round_glyph_of_a_script_stays_in_its_word_and_radios_stay_radios(theme: str, size: int) -> None:
    # "确" has a ring-like outline the detector takes for a radio button, but strokes cross it
    # between ring and dot: it is a letter of "确定", whose button is found by its caption
    from PIL import ImageFont

    from gui_agent.grounding.default import default_ladder
    from gui_agent.screen.observation import Observation

    c = THEMES[theme]
    image = Image.new("RGB", (420, 120), c["bg"])
    d = ImageDraw.Draw(image)
    cjk = ImageFont.truetype(CJK_FONT, size)
    button = Box(10, 20, round(d.textlength("确定", font=cjk)) + 24, size + 21)
    d.rounded_rectangle([button.left, button.top, button.right, button.bottom], 4, fill=c["face"],
                        outline=c["border"], width=2)
    d.text((button.center.x, button.center.y), "确定", fill=c["fg"], font=cjk, anchor="mm")
    radios = []
    for i, checked in enumerate((False, True)):
        x = 200 + 60 * i
        d.ellipse([x, 40, x + 16, 56], fill=c["field"], outline=c["border"], width=2)
        if checked:
            d.ellipse([x + 5, 45, x + 11, 51], fill=c["mark"])
        radios.append((Box(x, 40, 17, 17), checked))
    ladder, _ = default_ladder()
    obs = Observation.from_image(image)
    found = ladder.resolve('the "确定" button', obs)
    assert button.contains(found.point) and found.score >= 0.9, found
    parse = ladder.grounders[-1].parse(obs)
    assert not [e for e in parse.elements if e.kind == ElementKind.RADIO and button.contains(e.box.center)]
    for box, checked in radios:
        hit = [e for e in parse.elements if e.kind == ElementKind.RADIO and e.box.iou(box) > 0.5]
        assert hit and hit[0].checked == checked, (box, parse.elements)
