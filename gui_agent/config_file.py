"""Writing the user config file (``<user config dir>/config.toml``) that the CLI and the app share.

Only the settings table is rewritten: the ``[agent]`` table, or the file's top level when it
keeps its settings there (``load_settings`` reads either). Each key that changes is replaced
in place, so comments, the order of keys and every other table survive. The new text is
checked before it replaces the old file: it must parse, load as valid Settings, and leave the
other tables exactly as they were; the file is then replaced atomically (temp file + rename).
The file is 0600 and the config folder 0700 (:mod:`gui_agent.private_files`).
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import private_files
from .config import Settings, load_settings, user_config_dir
from .errors import ConfigError

SECTION = "agent"
_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r'^\s*([A-Za-z0-9_-]+|"[^"\n]*")\s*=')
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
# pynput's named keys, as the stop hotkey is written: "<ctrl>+<alt>+<esc>", "<ctrl>+<shift>+q".
HOTKEY_NAMES = frozenset([
    "alt", "alt_l", "alt_r", "alt_gr", "backspace", "caps_lock", "cmd", "cmd_l", "cmd_r", "ctrl",
    "ctrl_l", "ctrl_r", "delete", "down", "end", "enter", "esc", "home", "insert", "left", "menu",
    "num_lock", "page_down", "page_up", "pause", "print_screen", "right", "scroll_lock", "shift",
    "shift_l", "shift_r", "space", "tab", "up", "media_play_pause", "media_volume_mute",
    "media_volume_down", "media_volume_up", "media_previous", "media_next",
    *(f"f{n}" for n in range(1, 21))])


def config_path() -> Path:
    """The user config file (it may not exist yet)."""
    return user_config_dir() / "config.toml"


def check_hotkey(text: str) -> str:
    """A stop hotkey in pynput's form, checked without pynput (which needs a display)."""
    parts = [p.strip() for p in text.strip().split("+")]
    if not text.strip() or any(not p for p in parts):
        raise ConfigError(f"stop_hotkey {text!r} is not a key combination; write it like "
                          "<ctrl>+<alt>+<esc>")
    for part in parts:
        name = part[1:-1].lower() if part.startswith("<") and part.endswith(">") else None
        if name is None:
            if len(part) != 1:
                raise ConfigError(f"stop_hotkey: {part!r} is neither one character nor a named key in "
                                  "angle brackets such as <ctrl>")
        elif name not in HOTKEY_NAMES and not name.isdigit():
            raise ConfigError(f"stop_hotkey: unknown key <{name}>; named keys include <ctrl>, <alt>, "
                              "<shift>, <cmd>, <esc>, <f1>…<f20>")
    if len(parts) < 2:
        raise ConfigError(f"stop_hotkey {text!r} is a single key; combine it with a modifier "
                          "(<ctrl>+<alt>+...) so that it is never pressed by accident")
    return "+".join(parts)


def toml_value(value: Any) -> str:
    """One value in TOML syntax (strings, booleans, numbers, paths, lists, flat tables)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ConfigError(f"{value!r} cannot be stored in the config file")
        return repr(value)
    if isinstance(value, Path):
        value = str(value)
    if isinstance(value, str):
        out = value.replace("\\", "\\\\").replace('"', '\\"')
        out = "".join(f"\\u{ord(c):04x}" if (c < " " and c != "\t") or c == "\x7f" else c for c in out)
        return f'"{out}"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise ConfigError(f"{value!r} ({type(value).__name__}) cannot be stored in the config file")


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else toml_value(name)


def _scan(lines: list[str]) -> list[tuple[int, int, str, str]]:
    """(start, end, kind, name) for each ``key = value`` ("key") and table header ("table",
    "array"); a value spanning several lines is one item, so its lines are never mistaken for
    headers."""
    items: list[tuple[int, int, str, str]] = []
    i = 0
    while i < len(lines):
        key = _KEY.match(lines[i])
        if key is not None:
            end = _assignment_end(lines, i, len(lines))
            items.append((i, end, "key", key.group(1).strip('"')))
            i = end
            continue
        header = _HEADER.match(lines[i])
        if header is not None:
            kind = "array" if lines[i].lstrip().startswith("[[") else "table"
            items.append((i, i + 1, kind, header.group(1).strip().strip('"')))
        i += 1
    return items


def _assignment_end(lines: list[str], start: int, stop: int) -> int:
    """The line after the end of the ``key = value`` that starts at ``start`` (values may span lines)."""
    for end in range(start + 1, stop + 1):
        try:
            tomllib.loads("\n".join(lines[start:end]))
            return end
        except tomllib.TOMLDecodeError:
            continue
    return start + 1


def _region(items: list[tuple[int, int, str, str]], size: int, data: dict[str, Any]
            ) -> tuple[int, int, bool]:
    """(first, stop, found): the lines of the settings table; found is False when it is absent."""
    headers = [(start, kind, name) for start, _end, kind, name in items if kind != "key"]
    for n, (start, kind, name) in enumerate(headers):
        if kind == "table" and name == SECTION:
            stop = headers[n + 1][0] if n + 1 < len(headers) else size
            return start + 1, stop, True
    if SECTION not in data and any(not isinstance(v, dict) for v in data.values()):
        # settings kept at the top level, before the first table
        return 0, headers[0][0] if headers else size, True
    return size, size, False


def update_text(text: str, values: Mapping[str, Any]) -> str:
    """``text`` with the settings table's keys set (a value of None removes the key)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"the config file is not valid TOML ({exc}); fix it by hand first") from exc
    lines = text.splitlines()
    items = _scan(lines)
    first, stop, found = _region(items, len(lines), data)
    starts = {start: (end, name) for start, end, kind, name in items if kind == "key"}
    pending = dict(values)
    body: list[str] = []
    i = first
    while i < stop:
        if i not in starts:
            body.append(lines[i])
            i += 1
            continue
        end, key = starts[i]
        if key in pending:
            value = pending.pop(key)
            if value is not None:
                body.append(f"{_key(key)} = {toml_value(value)}")
        else:
            body.extend(lines[i:end])
        i = end
    while body and not body[-1].strip():
        body.pop()
    body.extend(f"{_key(k)} = {toml_value(v)}" for k, v in pending.items() if v is not None)
    if not found:
        head = lines[:first]
        while head and not head[-1].strip():
            head.pop()
        return "\n".join(head + ([""] if head else []) + [f"[{SECTION}]"] + body) + "\n"
    tail = lines[stop:]
    gap = [""] if tail and body else []
    return "\n".join(lines[:first] + body + gap + tail) + "\n"


def _others(data: dict[str, Any], settings_at_top: bool) -> dict[str, Any]:
    if settings_at_top:
        return {k: v for k, v in data.items() if isinstance(v, dict)}
    return {k: v for k, v in data.items() if k != SECTION}


def save_settings(values: Mapping[str, Any], path: Path | None = None) -> Path:
    """Set these settings in the user config file (None: remove the key, back to the default).

    Nothing is written unless the result loads as valid Settings (ConfigError says why) and
    every other table of the file is kept as it was. Returns the file's path.
    """
    path = Path(path) if path is not None else config_path()
    known = {f for f in Settings.__dataclass_fields__}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ConfigError(f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    if path.is_dir():
        raise ConfigError(f"{path} is a folder, not a config file")
    try:
        old = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path} ({exc}); it was left untouched") from exc
    new = update_text(old, values)
    before, after = tomllib.loads(old), tomllib.loads(new)
    at_top = SECTION not in after
    if _others(before, SECTION not in before) != _others(after, at_top):
        raise ConfigError(f"{path}: cannot update the settings without changing other tables "
                          "(unusual layout); edit it by hand")
    fix = "set GUI_AGENT_CONFIG_DIR to a folder you can write to (or make this one writable)"
    owned = private_files.within(path.parent, user_config_dir())
    private_files.private_dir(path.parent, fix, owned=owned)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        private_files.write_text(tmp, new)   # 0600: only its user reads the settings
        try:
            load_settings(tmp, env={})
        except ConfigError as exc:
            raise ConfigError(str(exc).replace(str(tmp), str(path))) from None
        os.replace(tmp, path)
    except OSError as exc:
        if not private_files.is_write_error(exc):
            raise
        raise private_files.NotWritable(path, private_files.describe(exc), fix) from None
    finally:
        tmp.unlink(missing_ok=True)
    return path
