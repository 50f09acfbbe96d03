"""An open menu, seen from its pixels, is what a name is looked for in first: the same word in
the document beneath it is no rival. Its separators cut its frame into sections; the menu is
found whole all the same, and a framed form is no menu."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.open_menus import open_menu
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, draw_app_window, font

FONTS = ("dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf")
SECTIONS = (("Undo", "Redo"), ("Cut", "Copy", "Paste"), ("Delete",), ("Select All",))
SHORTCUTS = {"Undo": "Ctrl+Z", "Redo": "Ctrl+Y", "Cut": "Ctrl+X", "Copy": "Ctrl+C", "Paste": "Ctrl+V",
             "Select All": "Ctrl+A"}
MENU = (150, 60, 420, 0)     # left, top, right (bottom follows from the rows)
ROW = 25


def _editor_with_open_menu(theme: str, font_name: str, menu: tuple[int, int, int, int] = MENU,
                           row: int = ROW, screen: int = 800) -> tuple[Image.Image, dict[str, tuple[int, int]]]:
    """An editor window whose document reads "copy" and "paste" (also menu items' names), with
    its Edit menu open over it; returns the image and each item's row (top, bottom)."""
    c = THEMES[theme]
    f = font(14, font_name)
    mono = font(15, "dejavu/DejaVuSansMono.ttf")
    img = Image.new("RGB", (screen, 520), (0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rectangle([40, 20, 760, 500], fill=c["bg"], outline=c["border"])
    for x, word in ((50, "File"), (100, "Edit"), (150, "View"), (205, "Help")):
        d.text((x, 28), word, fill=c["fg"], font=f)
    d.rectangle([40, 52, 760, 500], fill=c["field"], outline=c["border"])
    d.text((46, 60), "copy", fill=c["fg"], font=mono)              # the document, beneath
    d.text((46, 330), "paste", fill=c["fg"], font=mono)
    left, top, right, _ = menu
    rows, y = {}, top + 4
    lines = []
    for i, section in enumerate(SECTIONS):
        if i:
            lines.append(y + 3)
            y += 7
        for item in section:
            rows[item] = (y, y + row)
            y += row
    bottom = y + 4
    d.rectangle([left, top, right, bottom], fill=c["field"], outline=c["border"])
    for ly in lines:
        d.line([left + 1, ly, right - 1, ly], fill=c["border"])
    for item, (y0, _) in rows.items():
        d.text((left + 26, y0 + row // 5), item, fill=c["fg"], font=f)
        if item in SHORTCUTS:
            d.text((right - 14 - d.textlength(SHORTCUTS[item], font=f), y0 + row // 5), SHORTCUTS[item],
                   fill=c["fg"], font=f)
    return img, rows


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
def test_an_item_of_the_open_menu_beats_the_same_word_beneath_it(theme: str, font_name: str) -> None:
    img, rows = _editor_with_open_menu(theme, font_name)
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    for item in ("Copy", "Paste"):
        found = ladder.resolve(item, obs)
        top, bottom = rows[item]
        assert MENU[0] <= found.point.x <= MENU[2] and top <= found.point.y <= bottom, (item, found)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_menu_is_found_whole_across_its_separators(theme: str) -> None:
    img, rows = _editor_with_open_menu(theme, FONTS[0])
    ladder, _ = default_ladder()
    parse = ladder.grounders[-1].parse(Observation.from_image(img))
    menu = open_menu(parse, img)
    assert menu is not None
    assert abs(menu.top - MENU[1]) <= 4 and abs(menu.bottom - (rows["Select All"][1] + 4)) <= 4, menu
    assert abs(menu.left - MENU[0]) <= 4 and abs(menu.right - MENU[2]) <= 4, menu


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_framed_form_is_no_menu(theme: str) -> None:
    c = THEMES[theme]
    f = font(14)
    img = Image.new("RGB", (640, 400), c["bg"])
    d = ImageDraw.Draw(img)
    d.rectangle([100, 50, 460, 250], outline=c["border"])
    for i, label in enumerate(("Name", "Email", "Phone", "City")):
        y = 70 + 42 * i
        d.text((120, y + 4), label, fill=c["fg"], font=f)
        d.rectangle([220, y, 440, y + 26], fill=c["field"], outline=c["border"])
    ladder, _ = default_ladder()
    parse = ladder.grounders[-1].parse(Observation.from_image(img))
    assert open_menu(parse, img) is None


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_large_menu_over_most_of_its_window_is_the_menu_not_the_window(theme: str) -> None:
    # in a large font the menu covers most of its window, from the menu bar down past the
    # window's bottom: the window's frame then reads as a menu too (mostly the menu's rows);
    # the menu is its sections' whole frame
    from gui_agent.geometry import Box
    from gui_agent.parsing.elements import Element, ElementKind, ScreenParse

    c = THEMES[theme]
    img = Image.new("RGB", (1280, 560), (0, 0, 0))
    d = ImageDraw.Draw(img)
    draw_app_window(d, theme, (40, 20, 700, 500), bar_line=52)
    texts = [Element(ElementKind.TEXT, Box(50 + 50 * k, 28, 30, 18), word) for k, word in enumerate(("File", "Edit", "View"))]
    d.rectangle([100, 52, 560, 540], fill=c["field"], outline=c["border"])
    y = 60
    items = ("Undo", "Redo", "Cut", "Copy", "Paste", "Delete", "Find", "Replace", "Select All", "Options")
    for i, item in enumerate(items):
        if i in (2, 6, 9):
            d.line([101, y - 4, 559, y - 4], fill=c["border"])
            y += 4
        d.text((126, y + 8), item, fill=c["fg"], font=font(14))
        texts.append(Element(ElementKind.TEXT, Box(126, y + 8, 60, 18), item))
        y += 46
    menu = open_menu(ScreenParse(tuple(texts), 1280, 560), img)
    assert menu is not None and abs(menu.left - 100) <= 4 and abs(menu.right - 560) <= 4, menu
