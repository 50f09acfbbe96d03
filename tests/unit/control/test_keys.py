"""Key-name normalisation across spellings and platforms."""

from __future__ import annotations

import pytest

from gui_agent.control.keys import (
    UnknownKey,
    format_hotkey,
    normalize_key,
    parse_hotkey,
    pyautogui_key_names,
)
from gui_agent.errors import ControlError


@pytest.mark.parametrize(("combo", "linux", "mac"), [
    ("Ctrl+S", ("ctrl", "s"), ("ctrl", "s")),
    ("control s", ("ctrl", "s"), ("ctrl", "s")),
    ("ctrl + shift + Z", ("ctrl", "shift", "z"), ("ctrl", "shift", "z")),
    ("ctrl-shift-t", ("ctrl", "shift", "t"), ("ctrl", "shift", "t")),
    ("<ctrl>+<alt>+<esc>", ("ctrl", "alt", "esc"), ("ctrl", "alt", "esc")),
    ("cmd+c", ("win", "c"), ("command", "c")),
    ("command+q", ("win", "q"), ("command", "q")),
    ("win", ("win",), ("command",)),
    ("super", ("win",), ("command",)),
    ("meta", ("win",), ("command",)),
    ("option", ("alt",), ("option",)),
    ("primary+a", ("ctrl", "a"), ("command", "a")),
    ("return", ("enter",), ("enter",)),
    ("Enter", ("enter",), ("enter",)),
    ("esc", ("esc",), ("esc",)),
    ("Escape", ("esc",), ("esc",)),
    ("del", ("delete",), ("delete",)),
    ("pgdn", ("pagedown",), ("pagedown",)),
    ("Page Down", ("pagedown",), ("pagedown",)),
    ("page-up", ("pageup",), ("pageup",)),
    ("arrow up", ("up",), ("up",)),
    ("Up Arrow", ("up",), ("up",)),
    ("F5", ("f5",), ("f5",)),
    ("alt+F4", ("alt", "f4"), ("alt", "f4")),
    ("control page down", ("ctrl", "pagedown"), ("ctrl", "pagedown")),
    ("ctrl left", ("ctrl", "left"), ("ctrl", "left")),
    ("alt-left", ("alt", "left"), ("alt", "left")),
    ("left ctrl", ("left", "ctrl"), ("left", "ctrl")),
    ("lctrl", ("ctrlleft",), ("ctrlleft",)),
    ("Key.ctrl_l", ("ctrlleft",), ("ctrlleft",)),
    ("ctrl++", ("ctrl", "+"), ("ctrl", "+")),
    ("ctrl+-", ("ctrl", "-"), ("ctrl", "-")),
    ("ctrl+plus", ("ctrl", "+"), ("ctrl", "+")),
    ("+", ("+",), ("+",)),
    ("print screen", ("printscreen",), ("printscreen",)),
    ("caps lock", ("capslock",), ("capslock",)),
    ("spacebar", ("space",), ("space",)),
    ("ctrl+ctrl+s", ("ctrl", "s"), ("ctrl", "s")),
])
def test_parse_hotkey_spellings(combo: str, linux: tuple[str, ...], mac: tuple[str, ...]) -> None:
    assert parse_hotkey(combo, "linux") == linux
    assert parse_hotkey(combo, "win32") == linux
    assert parse_hotkey(combo, "darwin") == mac


def test_sequence_items_may_be_names_or_combos() -> None:
    assert parse_hotkey(("Control", "Shift", "T"), "linux") == ("ctrl", "shift", "t")
    assert parse_hotkey(["ctrl+a"], "linux") == ("ctrl", "a")
    assert parse_hotkey(("primary", "v"), "darwin") == ("command", "v")


def test_every_result_is_a_pyautogui_key() -> None:
    names = pyautogui_key_names()
    for combo in ("cmd+option+esc", "super+tab", "shift+insert", "ctrl+alt+delete", "f24"):
        for platform in ("linux", "darwin", "win32"):
            assert set(parse_hotkey(combo, platform)) <= names


def test_key_names_read_without_importing_pyautogui() -> None:
    names = pyautogui_key_names()
    assert {"ctrl", "enter", "esc", "command", "option", "win", "f12", "a", "+"} <= names
    assert "cmd" not in names and "super" not in names


def test_normalize_single_keys() -> None:
    assert normalize_key("S") == "s"
    assert normalize_key(" ") == "space"
    assert normalize_key("\n") == "enter"
    assert normalize_key("TAB") == "tab"
    assert normalize_key("ctrl", "darwin") == "ctrl"  # ctrl stays Control on macOS


def test_unknown_key_names_the_key_and_suggests() -> None:
    with pytest.raises(UnknownKey) as info:
        parse_hotkey("contrl+s", "linux")
    err = info.value
    assert isinstance(err, ControlError)
    assert err.key == "contrl"
    assert "'contrl'" in str(err) and "'contrl+s'" in str(err)
    assert "ctrl" in str(err).split(";")[0]  # suggestion before the general hint


@pytest.mark.parametrize("bad", ["ctrl+foo", "", "hyperkey", "ctrl+shift+banana"])
def test_unknown_keys_raise(bad: str) -> None:
    with pytest.raises(UnknownKey):
        parse_hotkey(bad, "linux")


def test_non_string_item_raises() -> None:
    with pytest.raises(UnknownKey):
        parse_hotkey(("ctrl", 5), "linux")  # type: ignore[arg-type]
    with pytest.raises(UnknownKey):
        parse_hotkey((), "linux")


def test_format_hotkey() -> None:
    assert format_hotkey(parse_hotkey("Ctrl+Shift+S", "linux")) == "ctrl+shift+s"
