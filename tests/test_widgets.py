"""Widget detection on synthetic Pillow screens (light and dark), plus the shared form renderer."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from gui_agent.geometry import Box
from gui_agent.parsing.elements import ElementKind
from gui_agent.parsing.widgets import detect_widgets

FONT_DIR = Path("/usr/share/fonts/truetype")
THEMES = {
    "light": dict(bg=(240, 240, 240), fg=(25, 25, 25), field=(255, 255, 255), border=(140, 140, 140),
                  face=(222, 222, 226), mark=(30, 30, 30), link=(20, 70, 200), tab_on=(255, 255, 255)),
    "dark": dict(bg=(32, 33, 36), fg=(232, 232, 232), field=(22, 22, 24), border=(120, 120, 128),
                 face=(66, 68, 74), mark=(235, 235, 235), link=(110, 160, 255), tab_on=(50, 52, 58)),
}


@dataclass(frozen=True)
class Truth:
    kind: ElementKind
    box: Box
    text: str = ""
    checked: bool | None = None
    label: str = ""


def font(size: int = 15, name: str = "dejavu/DejaVuSans.ttf") -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_DIR / name), size)


def render_form(theme: str = "light", size: tuple[int, int] = (1280, 800), name_value: str = "",
                remember: bool = True, font_name: str = "dejavu/DejaVuSans.ttf") -> tuple[Image.Image, list[Truth]]:
    """A settings-like form drawn with Pillow; returns the image and its ground truth."""
    c = THEMES[theme]
    img = Image.new("RGB", size, c["bg"])
    d = ImageDraw.Draw(img)
    f = font(15, font_name)
    truth: list[Truth] = []

    def text(x: int, y: int, s: str, fill=c["fg"]) -> Box:
        d.text((x, y), s, fill=fill, font=f)
        left, top, right, bottom = d.textbbox((x, y), s, font=f)
        return Box.from_corners(left, top, right, bottom)

    def field(x: int, y: int, w: int, label: str, value: str = "") -> None:
        text(x - 110, y + 7, label)
        d.rectangle([x, y, x + w - 1, y + 29], fill=c["field"], outline=c["border"])
        if value:
            text(x + 6, y + 7, value)
        truth.append(Truth(ElementKind.TEXT_FIELD, Box(x, y, w, 30), value, label=label))

    def button(x: int, y: int, caption: str) -> None:
        tw = int(d.textlength(caption, font=f))
        d.rounded_rectangle([x, y, x + tw + 39, y + 31], 5, fill=c["face"], outline=c["border"])
        text(x + 20, y + 8, caption)
        truth.append(Truth(ElementKind.BUTTON, Box(x, y, tw + 40, 32), caption))

    def checkbox(x: int, y: int, label: str, on: bool) -> None:
        d.rectangle([x, y, x + 15, y + 15], fill=c["field"], outline=c["border"])
        if on:
            d.line([(x + 3, y + 8), (x + 6, y + 12), (x + 12, y + 3)], fill=c["mark"], width=2)
        text(x + 24, y, label)
        truth.append(Truth(ElementKind.CHECKBOX, Box(x, y, 16, 16), checked=on, label=label))

    def radio(x: int, y: int, label: str, on: bool) -> None:
        d.ellipse([x, y, x + 15, y + 15], fill=c["field"], outline=c["border"])
        if on:
            d.ellipse([x + 4, y + 4, x + 11, y + 11], fill=c["mark"])
        text(x + 24, y, label)
        truth.append(Truth(ElementKind.RADIO, Box(x, y, 16, 16), checked=on, label=label))

    # tab bar
    x = 40
    for i, tab in enumerate(["General", "Network", "Advanced"]):
        tw = int(d.textlength(tab, font=f)) + 36
        d.rectangle([x, 30, x + tw - 1, 61], fill=c["tab_on"] if i == 0 else c["face"], outline=c["border"])
        text(x + 18, 38, tab)
        truth.append(Truth(ElementKind.TAB, Box(x, 30, tw, 32), tab, checked=i == 0))
        x += tw
    d.text((1230, 34), "×", fill=c["fg"], font=font(20))
    field(160, 100, 260, "Name", name_value)
    field(160, 150, 260, "Email", "ann@example.com")
    # combo box with a chevron
    text(50, 207, "Colour")
    d.rectangle([160, 200, 419, 229], fill=c["field"], outline=c["border"])
    text(166, 207, "Blue")
    d.line([(398, 211), (404, 217), (410, 211)], fill=c["fg"], width=2)
    truth.append(Truth(ElementKind.COMBO, Box(160, 200, 260, 30), "Blue", label="Colour"))
    checkbox(160, 260, "Remember me", remember)
    checkbox(160, 290, "Send newsletter", not remember)
    radio(160, 330, "Small", False)
    radio(160, 360, "Large", True)
    link_box = text(160, 410, "Forgot password?", fill=c["link"])
    d.line([(link_box.left, link_box.bottom + 2), (link_box.right, link_box.bottom + 2)], fill=c["link"])
    truth.append(Truth(ElementKind.LINK, link_box, "Forgot password?"))
    button(160, 460, "Cancel")
    button(300, 460, "Save settings")
    para = text(600, 110, "Settings are stored on this computer only.")
    truth.append(Truth(ElementKind.TEXT, para, "Settings are stored on this computer only."))
    return img, truth


def matches(found_box: Box, truth_box: Box) -> bool:
    return found_box.iou(truth_box) > 0.5 or (truth_box.contains(found_box.center) and found_box.contains(truth_box.center))


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

SANS = "liberation/LiberationSans-Regular.ttf"


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
