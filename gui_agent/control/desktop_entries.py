"""The freedesktop.org desktop entry format: where ``.desktop`` files live, their
``[Desktop Entry]`` keys, and an ``Exec`` line split into argv as the specification says."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from pathlib import Path

_FIELD_CODE = re.compile(r"%[fFuUdDnNickvm]")


def xdg_application_dirs(env: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """$XDG_DATA_HOME/applications, then each of $XDG_DATA_DIRS/applications (spec defaults)."""
    env = os.environ if env is None else env
    home = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME") or Path.home()) / ".local/share")
    dirs = env.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share"
    out: list[Path] = []
    for d in [home, *dirs.split(":")]:
        if d.strip() and Path(d, "applications") not in out:
            out.append(Path(d, "applications"))
    return tuple(out)


def _unescape(value: str) -> str:
    table = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}
    return re.sub(r"\\(.)", lambda m: table.get(m.group(1), m.group(0)), value)


def read_desktop_entry(text: str) -> dict[str, str]:
    """The keys of the ``[Desktop Entry]`` group (``Name[de]`` kept as written), unescaped."""
    keys: dict[str, str] = {}
    group = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line[1:-1]
            continue
        if group == "Desktop Entry" and "=" in line:
            key, _, value = line.partition("=")
            keys.setdefault(key.strip(), _unescape(value.strip()))
    return keys


def exec_argv(exec_line: str) -> tuple[str, ...]:
    """An Exec value -> argv: quoting per the spec, field codes removed ('%%' is '%')."""
    try:
        words = shlex.split(exec_line, posix=True)
    except ValueError:
        return ()
    out: list[str] = []
    for word in words:
        if _FIELD_CODE.fullmatch(word):
            continue
        word = re.sub(r"%%|%[A-Za-z]", lambda m: "%" if m.group(0) == "%%" else "", word)
        if word:
            out.append(word)
    return tuple(out)


def entry_true(value: str | None) -> bool:
    """A boolean key's value ("true", any case)."""
    return (value or "").strip().lower() == "true"


def entry_list(value: str | None) -> tuple[str, ...]:
    """A list key's value, its ";"-separated items."""
    return tuple(v.strip() for v in (value or "").split(";") if v.strip())
