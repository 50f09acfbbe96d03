"""What a tree node is (its kind, its state) and which windows hide which."""

from __future__ import annotations

from gui_agent.accessibility.roles import is_checked, kind_of
from gui_agent.accessibility.stacking import Stacking, TopLevel
from gui_agent.geometry import Box, Point
from gui_agent.parsing.elements import ElementKind

K = ElementKind
NONE = frozenset()


def test_roles_become_the_kinds_the_grounder_knows():
    assert kind_of("push button", NONE) == K.BUTTON
    assert kind_of("toggle button", NONE) == K.BUTTON
    assert kind_of("check box", NONE) == K.CHECKBOX
    assert kind_of("page tab", NONE) == K.TAB
    assert kind_of("menu", NONE, "menu bar") == K.MENU
    assert kind_of("menu item", NONE, "popup menu") == K.MENU_ITEM
    # Qt shows a menu bar's menus as menu items: under a menu bar they are menus
    assert kind_of("menu item", NONE, "menu bar") == K.MENU
    # an editable text is a field; a read-only one a display (a calculator's figure)
    assert kind_of("text", frozenset({"editable"})) == K.TEXT_FIELD
    assert kind_of("text", NONE) == K.TEXT
    assert kind_of("spin button", NONE) == K.TEXT_FIELD
    # containers are no elements
    for role in ("panel", "filler", "frame", "scroll pane", "menu bar", "tool bar"):
        assert kind_of(role, NONE) is None


def test_a_state_is_kept_only_where_it_means_on_or_off():
    on = frozenset({"checked"})
    assert is_checked(K.CHECKBOX, "check box", on) is True
    assert is_checked(K.CHECKBOX, "check box", NONE) is False
    assert is_checked(K.TAB, "page tab", frozenset({"selected"})) is True
    assert is_checked(K.BUTTON, "toggle button", on) is True
    assert is_checked(K.BUTTON, "push button", on) is None       # a push button has no state
    assert is_checked(K.MENU_ITEM, "check menu item", on) is True
    assert is_checked(K.MENU_ITEM, "menu item", on) is None
    assert is_checked(K.TEXT, "label", on) is None


def test_a_window_is_matched_to_its_x_window_by_process_and_place():
    stacking = Stacking([TopLevel(Box(0, 0, 800, 600), 10), TopLevel(Box(100, 100, 300, 200), 20),
                         TopLevel(Box(100, 100, 300, 200), 30)])
    assert stacking.index_of(Box(0, 0, 800, 600), 10) == 0
    assert stacking.index_of(Box(102, 104, 296, 190), 20) == 1      # the same window, near enough
    assert stacking.index_of(Box(100, 100, 300, 200), 30) == 2      # the process tells them apart
    assert stacking.index_of(Box(500, 500, 50, 50), 10) is None     # nowhere like it


def test_a_point_is_covered_only_by_a_window_above_that_is_no_tooltip():
    stacking = Stacking([TopLevel(Box(0, 0, 800, 600), 1), TopLevel(Box(100, 100, 200, 100), 2),
                         TopLevel(Box(500, 100, 100, 40), 1, tooltip=True)])
    assert stacking.covered(Point(150, 150), 0)          # under the second window
    assert not stacking.covered(Point(50, 50), 0)
    assert not stacking.covered(Point(150, 150), 1)      # the window itself is on top
    assert not stacking.covered(Point(520, 110), 0)      # a tooltip goes when the pointer moves
    assert not stacking.covered(Point(150, 150), None)   # a window not found hides nothing


def test_an_apps_own_menu_popup_hides_its_other_elements_but_not_its_items():
    from gui_agent.accessibility.atspi import _covered
    from gui_agent.parsing.elements import Element
    from gui_agent.screen.observation import MonitorGeometry

    monitor = MonitorGeometry(0, 0, 800, 600, 1.0, 1)
    # 0: the app's window (a tree window), 1: its open menu (no tree window), 2: another app
    stacking = Stacking([TopLevel(Box(0, 0, 800, 600), 7), TopLevel(Box(0, 20, 200, 300), 7),
                         TopLevel(Box(600, 400, 200, 200), 8)])
    item = Element(K.MENU_ITEM, Box(10, 40, 180, 20), "Save As...")
    button = Element(K.BUTTON, Box(10, 100, 80, 24), "OK")
    under_other = Element(K.MENU_ITEM, Box(650, 450, 80, 20), "Quit")
    matched = {0, 2}
    assert not _covered(item, monitor, stacking, 0, matched, 7)
    assert _covered(button, monitor, stacking, 0, matched, 7)
    assert _covered(under_other, monitor, stacking, 0, matched, 7)
    assert not _covered(button, monitor, None, 0, matched, 7)       # no stacking order known
