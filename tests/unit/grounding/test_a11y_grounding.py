"""Grounding with the accessibility tree: the tree's rung first, then one list with the pixels."""

from __future__ import annotations

import pytest

from gui_agent.errors import AmbiguousTarget, TargetNotFound
from gui_agent.geometry import Box
from gui_agent.grounding.a11y_grounder import AccessibilityGrounder
from gui_agent.grounding.description import parse_description
from gui_agent.grounding.ladder import GroundingLadder
from gui_agent.grounding.ocr_grounder import OcrGrounder, candidates_on
from gui_agent.grounding.queries import ScreenQueries
from gui_agent.parsing.elements import Element, ElementKind, ScreenParse, Window
from tests.support.a11y_fakes import FixedTree, ScriptedHandle, node, observation, tree

K = ElementKind
KEYS = [node(K.BUTTON, (100 + 60 * i, 200, 56, 34), name, role="toggle button")
        for i, name in enumerate(("7", "8", "9", "*", "-", "+", "=", "<-"))]
DISPLAY = node(K.TEXT, (100, 100, 400, 50), "3", role="text")


def ground(parse: ScreenParse, description: str, pixels: ScreenParse | None = None):
    """The ladder (tree rung, then the fused list) on an observation carrying ``parse``."""
    obs = observation(FixedTree(parse))
    screen = OcrGrounder(parser=None)
    screen._cache = [(obs.image, _fused(pixels, parse) if pixels is not None else parse)]
    return GroundingLadder([AccessibilityGrounder(), screen], parser=screen).resolve(description, obs)


def _fused(pixels: ScreenParse, parse: ScreenParse) -> ScreenParse:
    from gui_agent.parsing.tree_fusion import fuse_tree

    return fuse_tree(pixels, parse)


def test_symbol_keys_are_found_by_their_names_and_any_spelling_of_them():
    keys = tree(*KEYS)
    assert ground(keys, '"="').box == KEYS[6].box
    assert ground(keys, '"×"').box == KEYS[3].box             # the "*" key
    assert ground(keys, '"←"').box == KEYS[7].box             # the "<-" key
    assert ground(keys, '"+"').source == "a11y"
    with pytest.raises(TargetNotFound):
        ground(keys, '"÷"')


def test_a_key_wins_over_the_same_figure_on_a_display():
    found = ground(tree(DISPLAY, node(K.BUTTON, (100, 300, 56, 34), "3")), '"3"')
    assert found.element.kind == K.BUTTON
    # the display is found when it is the only one
    assert ground(tree(DISPLAY), '"3"').element is DISPLAY


def test_a_part_of_a_controls_name_is_weak_evidence_its_start_a_little_less():
    path_button = node(K.BUTTON, (300, 80, 150, 30), "011-report-save-file", role="toggle button")
    with pytest.raises(TargetNotFound):
        ground(tree(path_button), '"Save"')
    copy = node(K.MENU_ITEM, (10, 40, 200, 24), "Copy Display Value", role="menu item")
    assert ground(tree(copy), "Copy").element is copy
    exact = node(K.BUTTON, (300, 300, 80, 30), "Save")
    assert ground(tree(path_button, exact), '"Save"').element is exact


def test_the_dialog_with_the_focus_wins_a_tie_and_a_disabled_control_loses_one():
    main_save = node(K.BUTTON, (10, 10, 60, 30), "Save", window="notes.txt - Editor", active=False)
    dialog_save = node(K.BUTTON, (500, 500, 80, 30), "Save", window="Save As", active=True)
    windows = (Window("notes.txt - Editor", "frame", Box(0, 0, 800, 600)),
               Window("Save As", "dialog", Box(300, 200, 400, 350), active=True))
    assert ground(tree(main_save, dialog_save, windows=windows), '"Save"').element is dialog_save
    off = node(K.BUTTON, (10, 10, 60, 30), "OK", states=frozenset())
    on = node(K.BUTTON, (500, 500, 80, 30), "OK")
    assert ground(tree(off, on), '"OK"').element is on
    twin = node(K.BUTTON, (10, 300, 80, 30), "OK")
    with pytest.raises(AmbiguousTarget):       # two equal, enabled OKs in one window: a real tie
        ground(tree(on, twin), '"OK"')


def test_a_container_is_the_window_the_tree_names():
    windows = (Window("Preferences", "dialog", Box(400, 100, 300, 300), True),
               Window("Editor", "frame", Box(0, 0, 800, 600)))
    inside = node(K.BUTTON, (450, 350, 80, 30), "Close", window="Preferences")
    outside = node(K.BUTTON, (10, 10, 80, 30), "Close", window="Editor")
    found = ground(tree(outside, inside, windows=windows), "the Close button in the Preferences dialog")
    assert found.element is inside


def test_a_weak_match_in_the_tree_is_left_to_the_fused_list_where_pixels_count_too():
    save_as = node(K.MENU_ITEM, (10, 40, 200, 24), "Save As...", role="menu item")
    parse = tree(save_as)
    obs = observation(FixedTree(parse))
    assert AccessibilityGrounder().candidates("Save", obs) == []        # a partial: not sure
    canvas_word = Element(K.TEXT, Box(400, 400, 60, 20), "Save", 0.9, "ocr")
    found = ground(parse, "Save", pixels=ScreenParse((canvas_word,), 800, 600))
    assert found.element is canvas_word and found.source == "ocr"


def test_without_a_tree_the_tree_rung_has_nothing_to_say():
    obs = observation(None)
    assert AccessibilityGrounder().candidates('"OK"', obs) == []
    assert AccessibilityGrounder().candidates('"OK"', observation(FixedTree(None))) == []


def test_fused_candidates_say_which_source_found_them():
    parse = ScreenParse((KEYS[0], Element(K.TEXT, Box(10, 500, 40, 20), "Total", 0.9, "ocr")), 800, 600)
    sources = {c.element.text: c.source for c in candidates_on(parse_description("7"), parse, None, "ocr")}
    assert sources == {"7": "a11y"}
    assert candidates_on(parse_description("Total"), parse, None, "ocr")[0].source == "ocr"


def test_a_fields_value_and_its_dialog_come_from_the_tree():
    handle = ScriptedHandle(value_answers=["42"])
    field = node(K.TEXT_FIELD, (450, 150, 200, 30), "", label="Amount", handle=handle,
                 window="Transfer")
    label = node(K.TEXT, (380, 150, 60, 30), "Amount", role="label", window="Transfer")
    windows = (Window("Editor", "frame", Box(0, 0, 800, 600)),
               Window("Transfer", "dialog", Box(350, 100, 350, 300), True))
    parse = tree(label, field, windows=windows)
    obs = observation(FixedTree(parse))
    screen = OcrGrounder(parser=None)
    screen._cache = [(obs.image, parse)]
    queries = ScreenQueries(GroundingLadder([AccessibilityGrounder(), screen], parser=screen))
    assert queries.shown_text("the Amount field", obs) == "42"
    assert queries.dialog_of("the Amount field", obs) == "Transfer"
    outside = node(K.BUTTON, (10, 10, 80, 30), "Back", window="Editor")
    parse2 = tree(label, field, outside, windows=windows)
    obs2 = observation(FixedTree(parse2))
    screen._cache = [(obs2.image, parse2)]
    assert queries.dialog_of('"Back"', obs2) is None


def test_while_a_dialog_has_the_focus_what_lies_outside_it_is_seldom_meant():
    editor = Window("notes.txt - Editor", "frame", Box(0, 0, 800, 600))
    dialog = Window("Save As", "dialog", Box(300, 200, 400, 300), active=True)
    editor_word = Element(K.TEXT, Box(20, 60, 40, 16), "save", 0.9, "ocr")       # the document
    name_field = node(K.TEXT_FIELD, (350, 250, 300, 30), "", label="File name", window="Save As")
    words = ScreenParse((editor_word,), 800, 600)
    with pytest.raises(TargetNotFound):   # the dialog's button now reads "Open": not clicked
        ground(tree(name_field, windows=(editor, dialog)), '"Save"', pixels=words)
    # the same word with the editor in front is found
    front = (Window("Save As", "dialog", Box(300, 200, 400, 300)),
             Window("notes.txt - Editor", "frame", Box(0, 0, 800, 600), active=True))
    assert ground(tree(name_field, windows=front), '"Save"', pixels=words).element is editor_word
    # an exact, unique control outside the dialog is still found; a menu may reach beyond it
    bold = node(K.BUTTON, (20, 20, 30, 30), "Bold", window="notes.txt - Editor", active=False)
    item = node(K.MENU_ITEM, (650, 480, 200, 24), "UTF-16", window="Save As")
    parse = tree(name_field, bold, item, windows=(editor, dialog))
    assert ground(parse, "the Bold button").element is bold
    assert ground(parse, '"UTF-16"').element is item


def _instructed(parse: ScreenParse, task: str, description: str, pixels: ScreenParse | None = None):
    obs = observation(FixedTree(parse))
    screen = OcrGrounder(parser=None)
    screen._cache = [(obs.image, _fused(pixels, parse) if pixels is not None else parse)]
    ladder = GroundingLadder([AccessibilityGrounder(), screen], parser=screen)
    ladder.instruction = task
    return ladder.resolve(description, obs)


def test_the_tasks_own_words_in_the_tree_are_no_target():
    """A web page's instruction is a text of its tree: 'Focus into the textbox.' named "the
    textbox" outright, and the tree rung clicked the instruction; the field (which the tree
    did not list) is the pixels'."""
    task = "Focus into the textbox."
    said = node(K.TEXT, (6, 6, 202, 22), task, role="text")
    field = Element(K.TEXT_FIELD, Box(32, 272, 257, 44), "", 0.9, "detector")
    found = _instructed(tree(said), task, "the textbox", pixels=ScreenParse((field,), 328, 560))
    assert found.box == field.box
    dialog = tree(node(K.TEXT, (6, 6, 280, 45), 'Close the dialog box by clicking the "x".', role="text"),
                  node(K.BUTTON, (192, 142, 40, 40), "Close"))
    found = _instructed(dialog, 'Close the dialog box by clicking the "x".', '"x"')
    assert found.box == Box(192, 142, 40, 40) and found.source == "a11y"   # the tree's "Close" button
