"""The accessibility tree and the pixels make one element list."""

from __future__ import annotations

from gui_agent.geometry import Box
from gui_agent.parsing.elements import Accessible, Element, ElementKind, ScreenParse, Window
from gui_agent.parsing.tree_fusion import fuse_tree

K = ElementKind
INFO = Accessible("push button", frozenset({"enabled"}))


def tree_el(kind, box, text="", label=""):
    return Element(kind, Box(*box), text, 1.0, "a11y", None, label, INFO)


def px(kind, box, text="", source="ocr"):
    return Element(kind, Box(*box), text, 0.9, source)


def fused(tree_elements, pixel_elements, windows=()):
    tree = ScreenParse(tuple(tree_elements), 800, 600, tuple(windows))
    return fuse_tree(ScreenParse(tuple(pixel_elements), 800, 600), tree)


def test_a_caption_the_tree_names_is_the_controls_and_a_pixel_twin_goes():
    ok = tree_el(K.BUTTON, (100, 100, 80, 30), "OK")
    out = fused([ok], [px(K.TEXT, (125, 107, 30, 16), "OK"),
                       px(K.BUTTON, (101, 99, 79, 31), "OK", "detector")])
    assert out.elements == (ok,)


def test_a_menu_bar_read_as_one_line_goes_when_the_tree_has_its_menus():
    menus = [tree_el(K.MENU, (10 + 50 * i, 20, 48, 24), name)
             for i, name in enumerate(("File", "Edit", "View", "Help"))]
    bar = px(K.TEXT_FIELD, (8, 20, 200, 24), "Edit File Help View", "detector")
    line = px(K.TEXT, (12, 24, 190, 16), "Edit File Help View")
    out = fused(menus, [bar, line])
    assert [e.text for e in out.elements] == ["File", "Edit", "View", "Help"]


def test_an_unnamed_control_takes_the_text_written_inside_it():
    icon_button = tree_el(K.BUTTON, (300, 100, 40, 30))
    out = fused([icon_button], [px(K.TEXT, (308, 106, 24, 16), "B")])
    assert [(e.kind, e.text, e.source) for e in out.elements] == [(K.BUTTON, "B", "a11y")]


def test_text_in_a_field_stays_clickable_and_what_the_tree_lacks_stays():
    area = Element(K.TEXT_FIELD, Box(0, 50, 800, 400), "Hello world", 1.0, "a11y", None, "",
                   Accessible("text", frozenset({"editable"})))
    word = px(K.TEXT, (10, 60, 80, 16), "Hello world")
    canvas_text = px(K.TEXT, (100, 500, 60, 16), "Score: 3")
    canvas_button = px(K.BUTTON, (300, 500, 60, 30), "Go", "detector")
    out = fused([area], [word, canvas_text, canvas_button])
    assert set(out.elements) == {area, word, canvas_text, canvas_button}


def test_a_window_title_in_its_title_bar_is_decoration_and_goes():
    windows = (Window("Find and Replace", "dialog", Box(420, 270, 440, 300), True),)
    button = tree_el(K.BUTTON, (650, 530, 100, 34), "Replace")
    title = px(K.TEXT, (580, 272, 150, 18), "Find and Replace")
    framed = px(K.BUTTON, (421, 269, 439, 22), "000 Find and Replace", "detector")
    same_words_inside = px(K.TEXT, (440, 400, 150, 18), "Find and Replace")
    out = fused([button], [title, framed, same_words_inside], windows)
    assert set(out.elements) == {button, same_words_inside}
    assert out.windows == windows


def test_the_list_is_in_reading_order():
    a = tree_el(K.BUTTON, (300, 10, 50, 20), "B")
    b = px(K.TEXT, (10, 12, 50, 16), "A")
    c = tree_el(K.BUTTON, (10, 200, 50, 20), "C")
    assert [e.text for e in fused([a, c], [b]).elements] == ["A", "B", "C"]
