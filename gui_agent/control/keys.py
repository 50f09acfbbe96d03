"""Key names: one spelling per key, the one pyautogui understands, on every platform.

People, models and recorded skills spell keys in many ways ("Ctrl+S", "control s",
"cmd", "Return", "arrow up", "<ctrl>+<alt>+<esc>"). Everything that reaches a
controller goes through :func:`parse_hotkey` / :func:`normalize_key` first, so a
misspelt key fails here with a clear message instead of being silently ignored by
pyautogui (which drops keys it has no mapping for).

Platform rules: on macOS "cmd"/"command"/"win"/"super"/"meta" mean the Command key
and "option" the Option key; elsewhere "cmd"/"command"/"super"/"meta" mean the
Windows/Super key and "option" means Alt. "ctrl" is always Control. Use "primary"
for "the platform's shortcut modifier": Command on macOS, Control elsewhere.
"""

from __future__ import annotations

import ast
import difflib
import importlib.util
import logging
import string
import sys
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from ..errors import ControlError

log = logging.getLogger(__name__)

# Compact spelling (lower case, no spaces, underscores, hyphens or angle brackets)
# -> pyautogui name, or one of the platform-dependent tokens resolved below.
_ALIASES: dict[str, str] = {
    "control": "ctrl", "ctl": "ctrl", "strg": "ctrl", "⌃": "ctrl",
    "lctrl": "ctrlleft", "leftctrl": "ctrlleft", "leftcontrol": "ctrlleft",
    "controlleft": "ctrlleft", "ctrll": "ctrlleft",
    "rctrl": "ctrlright", "rightctrl": "ctrlright", "rightcontrol": "ctrlright",
    "controlright": "ctrlright", "ctrlr": "ctrlright",
    "⇧": "shift", "lshift": "shiftleft", "leftshift": "shiftleft", "shiftl": "shiftleft",
    "rshift": "shiftright", "rightshift": "shiftright", "shiftr": "shiftright",
    "lalt": "altleft", "leftalt": "altleft", "altl": "altleft",
    "ralt": "altright", "rightalt": "altright", "altr": "altright", "altgr": "altright",
    "return": "enter", "ret": "enter", "cr": "enter", "⏎": "enter", "↵": "enter",
    "escape": "esc", "del": "delete", "forwarddelete": "delete", "⌦": "delete",
    "bksp": "backspace", "bkspc": "backspace", "⌫": "backspace",
    "ins": "insert", "spacebar": "space",
    "pgdn": "pagedown", "pgdown": "pagedown", "pagedn": "pagedown", "next": "pagedown",
    "pgup": "pageup", "prior": "pageup",
    "arrowup": "up", "uparrow": "up", "↑": "up",
    "arrowdown": "down", "downarrow": "down", "↓": "down",
    "arrowleft": "left", "leftarrow": "left", "←": "left",
    "arrowright": "right", "rightarrow": "right", "→": "right",
    "caps": "capslock", "printscr": "printscreen", "sysrq": "printscreen",
    "menu": "apps", "contextmenu": "apps", "application": "apps",
    "plus": "+", "minus": "-", "hyphen": "-", "comma": ",", "period": ".", "dot": ".",
    "slash": "/", "backslash": "\\", "equal": "=", "equals": "=", "semicolon": ";",
    "colon": ":", "quote": "'", "apostrophe": "'", "doublequote": '"', "backquote": "`",
    "backtick": "`", "grave": "`", "tilde": "~", "bracketleft": "[", "leftbracket": "[",
    "bracketright": "]", "rightbracket": "]", "braceleft": "{", "braceright": "}",
    "exclamation": "!", "at": "@", "hash": "#", "dollar": "$", "percent": "%",
    "caret": "^", "ampersand": "&", "asterisk": "*", "star": "*", "underscore": "_",
    "pipe": "|", "question": "?", "less": "<", "greater": ">",
    "cmd": "<cmd>", "command": "<cmd>", "⌘": "<cmd>", "commandkey": "<cmd>",
    "lcmd": "<cmd>", "rcmd": "<cmd>", "cmdl": "<cmd>", "cmdr": "<cmd>",
    "win": "<super>", "windows": "<super>", "winkey": "<super>", "super": "<super>",
    "meta": "<super>", "superkey": "<super>", "lwin": "<superleft>", "leftwin": "<superleft>",
    "winleft": "<superleft>", "rwin": "<superright>", "rightwin": "<superright>",
    "winright": "<superright>",
    "option": "<option>", "opt": "<option>", "⌥": "<option>",
    "optionleft": "<option>", "optionright": "<option>",
    "primary": "<primary>", "mod": "<primary>", "cmdorctrl": "<primary>",
    "commandorcontrol": "<primary>", "ctrlorcmd": "<primary>", "controlorcommand": "<primary>",
    "accel": "<primary>",
}

_MAC = {"<cmd>": "command", "<super>": "command", "<superleft>": "command",
        "<superright>": "command", "<option>": "option", "<primary>": "command"}
_OTHER = {"<cmd>": "win", "<super>": "win", "<superleft>": "winleft",
          "<superright>": "winright", "<option>": "alt", "<primary>": "ctrl"}

MODIFIERS = frozenset({
    "ctrl", "ctrlleft", "ctrlright", "shift", "shiftleft", "shiftright", "alt", "altleft",
    "altright", "command", "option", "optionleft", "optionright", "win", "winleft",
    "winright", "fn",
})

_HINT = ("known names include ctrl, shift, alt, cmd/win, primary, enter, esc, tab, space, "
         "backspace, delete, up/down/left/right, pageup/pagedown, home, end, f1-f24 "
         "and single characters")


class UnknownKey(ControlError):
    """A key name that no spelling rule maps to a key pyautogui knows."""

    def __init__(self, key: str, combo: str | None = None, suggestions: Sequence[str] = ()) -> None:
        self.key = key
        where = f" in {combo!r}" if combo is not None and combo != key else ""
        maybe = f" (did you mean {' or '.join(repr(s) for s in suggestions)}?)" if suggestions else ""
        super().__init__(f"unknown key {key!r}{where}{maybe}; {_HINT}")


def is_mac(platform: str | None = None) -> bool:
    return (platform or sys.platform) == "darwin"


@lru_cache(maxsize=1)
def pyautogui_key_names() -> frozenset[str]:
    """pyautogui.KEYBOARD_KEYS, read without importing pyautogui.

    Importing pyautogui on Linux opens the X display, so key names are read from its
    source with ``ast.literal_eval`` when it is not imported yet (validation must work
    with no display, e.g. in dry runs and unit tests).
    """
    module = sys.modules.get("pyautogui")
    if module is not None and hasattr(module, "KEYBOARD_KEYS"):
        return frozenset(module.KEYBOARD_KEYS)
    spec = importlib.util.find_spec("pyautogui")
    if spec is None or spec.origin is None:
        raise ControlError("pyautogui is not installed: pip install pyautogui")
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "KEY_NAMES"):
            return frozenset(ast.literal_eval(node.value))
    raise ControlError(f"cannot read the key names of pyautogui from {spec.origin}")


def _compact(name: str) -> str:
    s = name.strip().lower()
    if len(s) <= 1:
        return s
    if s.startswith("key."):  # pynput's repr: Key.esc
        s = s[4:]
    stripped = s.strip("<>")
    s = stripped or s
    squeezed = "".join(ch for ch in s if ch not in " _-\t")
    return squeezed or s


def _resolve(compact: str, platform: str | None) -> str | None:
    """Compact spelling -> pyautogui name, or None when nothing matches."""
    names = pyautogui_key_names()
    target = _ALIASES.get(compact, compact)
    if target.startswith("<") and len(target) > 1:
        return (_MAC if is_mac(platform) else _OTHER)[target]
    if len(target) == 1 and target in string.ascii_uppercase:
        target = target.lower()
    return target if target in names else None


def normalize_key(name: str, platform: str | None = None, *, combo: str | None = None) -> str:
    """One key name in any common spelling -> the pyautogui name; raises UnknownKey."""
    if not isinstance(name, str) or name == "":
        raise UnknownKey(repr(name) if not isinstance(name, str) else "", combo)
    if name in (" ", "\t", "\n"):
        return {" ": "space", "\t": "tab", "\n": "enter"}[name]
    key = _resolve(_compact(name), platform)
    if key is None:
        choices = sorted(pyautogui_key_names() | set(_ALIASES))
        near = difflib.get_close_matches(_compact(name), [c for c in choices if len(c) > 1], n=2)
        raise UnknownKey(name.strip() or name, combo, near)
    return key


def _split_plus(text: str) -> list[str]:
    """'ctrl+shift+s' -> parts; a '+' with nothing before it is the plus key ('ctrl++')."""
    parts: list[str] = []
    current = ""
    for ch in text:
        if ch == "+" and current.strip():
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip() or current == "+":
        parts.append(current.strip() or current)
    return parts


def _names_one_key(parts: Sequence[str], platform: str | None) -> bool:
    """True when the parts together spell one key and are not each a key on their own.

    'page down' -> pagedown, but 'ctrl left' stays ctrl + left (not the left Ctrl key).
    """
    if not _resolve(_compact("".join(parts)), platform):
        return False
    return not all(_resolve(_compact(p), platform) for p in parts)


def _split_words(text: str, platform: str | None) -> list[str]:
    """'control page down' -> ['control', 'page down']: joins two words when they name one key."""
    words = text.split()
    out: list[str] = []
    i = 0
    while i < len(words):
        if i + 1 < len(words) and _names_one_key(words[i:i + 2], platform):
            out.append(f"{words[i]} {words[i + 1]}")
            i += 2
        else:
            out.append(words[i])
            i += 1
    return out


def _split_dashes(token: str, platform: str | None) -> list[str]:
    """'ctrl-s' -> ['ctrl', 's'] unless the whole token is a key ('page-down', '-')."""
    if len(token) <= 1 or "-" not in token:
        return [token]
    if _names_one_key([p for p in token.split("-") if p], platform):
        return [token]
    parts: list[str] = []
    current = ""
    for ch in token:
        if ch == "-" and current:
            parts.append(current)
            current = ""
        else:
            current += ch
    if current:
        parts.append(current)
    return parts


def split_combo(combo: str, platform: str | None = None) -> list[str]:
    """Split one combination string into raw key names (not yet normalised)."""
    text = combo.strip()
    if text in ("", "+", "-") or len(combo) == 1:
        return [combo if text == "" else text]
    pieces = _split_plus(text) if "+" in text else _split_words(text, platform)
    out: list[str] = []
    for piece in pieces:
        if " " in piece.strip() and not _names_one_key(piece.split(), platform):
            for word in _split_words(piece, platform):
                out.extend(_split_dashes(word, platform))
        else:
            out.extend(_split_dashes(piece, platform))
    return out


def parse_hotkey(combo: str | Sequence[str], platform: str | None = None) -> tuple[str, ...]:
    """A key combination in any common form -> pyautogui key names, in press order.

    Accepts "Ctrl+S", "control s", "ctrl-shift-t", "<ctrl>+<alt>+<esc>", "ctrl++",
    or a sequence such as ("ctrl", "shift", "t") whose items may themselves be combos.
    """
    items = [combo] if isinstance(combo, str) else list(combo)
    if not items:
        raise UnknownKey("", None)
    label = combo if isinstance(combo, str) else "+".join(str(i) for i in items)
    keys: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise UnknownKey(repr(item), label)
        for raw in split_combo(item, platform):
            key = normalize_key(raw, platform, combo=label)
            if key not in keys:
                keys.append(key)
    return tuple(keys)


def format_hotkey(keys: Sequence[str]) -> str:
    """('ctrl', 's') -> 'ctrl+s' (the form used in logs and action text)."""
    return "+".join(keys)
