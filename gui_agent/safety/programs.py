"""Programs that give a command line, recognised by structure rather than by a list of spellings.

A name is classified after folding (basename of a path, lower case, ``.exe``/``.app``/
``.desktop`` dropped) and, for names of several words or reverse-DNS ids, word by word:
"GNOME Terminal", "Windows PowerShell" and "org.kde.konsole" are all terminals. Versioned
interpreter names are their interpreter: ``python3.11``, ``perl5.36``, ``ruby3.1``, ``node18``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

SHELLS = frozenset({
    "sh", "bash", "zsh", "fish", "dash", "ksh", "mksh", "pdksh", "oksh", "loksh", "csh", "tcsh",
    "ash", "yash", "rc", "es", "elvish", "nu", "nushell", "xonsh", "oil", "osh", "ysh", "posh",
    "cmd", "command prompt", "powershell", "pwsh", "busybox", "rbash", "scsh",
})
TERMINALS = frozenset({
    "st", "foot", "footclient", "alacritty", "kitty", "konsole", "gnome-terminal",
    "gnome-terminal-server", "kgx", "console", "terminator", "tilix", "wezterm", "wezterm-gui",
    "terminology", "guake", "tilda", "yakuake", "sakura", "termite", "hyper", "tabby", "ghostty",
    "contour", "blackbox", "ptyxis", "cool-retro-term", "iterm", "iterm2", "warp", "wt",
    "windowsterminal", "windows terminal", "conhost", "tmux", "screen", "byobu", "zellij",
    "x-terminal-emulator", "terminal", "termux", "extraterm", "rio", "lxterminal",
})
INTERPRETERS = frozenset({
    "python", "pythonw", "pypy", "ipython", "bpython", "jupyter-console", "perl", "ruby", "irb",
    "jruby", "node", "nodejs", "deno", "bun", "php", "lua", "luajit", "tclsh", "wish", "expect",
    "r", "rscript", "julia", "guile", "racket", "sbcl", "clisp", "ghci", "scala", "groovy",
    "jshell", "erl", "iex", "elixir", "osascript", "wscript", "cscript", "mshta", "pry", "php-cli",
})
NETWORK_TOOLS = frozenset({
    "nc", "ncat", "netcat", "socat", "ssh", "telnet", "rsh", "rlogin", "mosh", "cryptcat",
    "pwncat", "openssl-s_client",
})
PRIVILEGE_TOOLS = frozenset({
    "sudo", "su", "doas", "pkexec", "gksu", "gksudo", "kdesu", "kdesudo", "runas", "sudoedit",
})
_VERSIONED = re.compile(r"^([a-z][a-z-]*?)-?v?\d+(?:\.\d+)*[a-z]?$")
_SUFFIXES = (".exe", ".app", ".desktop", ".lnk")
_SCRIPT = re.compile(r"\.(?:sh|bash|zsh|py|pyw|pl|rb|js|mjs|php|lua|tcl|ps1|psm1|bat|cmd|vbs|"
                     r"wsf|hta|jar|command|run|bin|appimage)$")
_KINDS: tuple[tuple[frozenset[str], str], ...] = (
    (SHELLS, "a command shell"),
    (TERMINALS, "a terminal"),
    (INTERPRETERS, "a programming-language interpreter"),
    (NETWORK_TOOLS, "a remote shell or raw network connection"),
    (PRIVILEGE_TOOLS, "administrator rights"),
)


class LaunchFacts(Protocol):
    """What the application registry knows about an application it would start."""

    @property
    def argv(self) -> tuple[str, ...]: ...

    @property
    def categories(self) -> tuple[str, ...]: ...

    @property
    def terminal(self) -> bool: ...


class AppLookup(Protocol):
    """The application registry as the safety policy sees it (``control.app_registry``)."""

    def lookup(self, name: str) -> LaunchFacts | None: ...

    def allow_once(self, name: str) -> None: ...


def fold_program(name: str) -> str:
    """'/usr/bin/Python3.11' -> 'python3.11'; 'cmd.exe' -> 'cmd'; 'Foot.desktop' -> 'foot'."""
    base = name.strip().replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].strip().lower()
    for suffix in _SUFFIXES:
        if base.endswith(suffix) and len(base) > len(suffix):
            base = base[: -len(suffix)]
    return base


def _kind_of_word(word: str) -> str | None:
    for names, kind in _KINDS:
        if word in names:
            return kind
    versioned = _VERSIONED.match(word)
    if versioned and versioned.group(1) != word:
        for names, kind in _KINDS:
            if versioned.group(1) in names:
                return kind
    if re.search(r"rxvt|terminal|(?:^|[-_])term$|^.{0,5}term$", word):
        return "a terminal"
    return None


def program_kind(name: str) -> str | None:
    """What ``name`` gives, when it names a shell, terminal, interpreter, remote-shell tool or
    privilege tool ("a command shell", "a terminal", ...); None for anything else."""
    folded = fold_program(name)
    if not folded:
        return None
    if _SCRIPT.search(folded):
        return "a script or executable file"
    words = folded.split()
    candidates = [folded, "-".join(words)]
    if len(words) > 1:
        candidates += [w for w in words if len(w) >= 3]   # "GNOME Terminal", "Windows PowerShell"
    for word in list(candidates):
        parts = word.split(".")
        if len(parts) > 1 and not re.fullmatch(r"[a-z-]+\d*(?:\.\d+)+[a-z]?", word):
            candidates += [p for p in parts if len(p) >= 3]   # org.kde.konsole -> konsole
    for candidate in candidates:
        kind = _kind_of_word(candidate)
        if kind:
            return kind
    return None


def runs_code_from_input(program: str) -> bool:
    """Whether ``program`` executes what it reads (a shell or interpreter at the end of a pipe)."""
    kind = program_kind(program)
    return kind in ("a command shell", "a programming-language interpreter") or fold_program(
        program) in ("iex", "invoke-expression", "eval", "source", ".")


# -- hotkeys ---------------------------------------------------------------------------------

_KEY_FOLD = {
    "control": "ctrl", "ctl": "ctrl", "ctrlleft": "ctrl", "ctrlright": "ctrl", "lctrl": "ctrl",
    "rctrl": "ctrl", "controlleft": "ctrl", "controlright": "ctrl", "strg": "ctrl",
    "altleft": "alt", "altright": "alt", "lalt": "alt", "ralt": "alt", "option": "alt",
    "opt": "alt", "mod1": "alt", "super": "super", "win": "super", "windows": "super",
    "winleft": "super", "winright": "super", "lwin": "super", "rwin": "super", "meta": "super",
    "cmd": "super", "command": "super", "mod4": "super", "superleft": "super",
    "superright": "super", "logo": "super", "return": "enter", "ret": "enter", "kpenter": "enter",
    "numpadenter": "enter", "grave": "`", "backquote": "`", "backtick": "`",
    "shiftleft": "shift", "shiftright": "shift", "lshift": "shift", "rshift": "shift",
}
_TERMINAL_HOTKEYS: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"ctrl", "alt", "t"}), "opens a terminal (GNOME, KDE, Xfce, Cinnamon, MATE)"),
    (frozenset({"super", "enter"}), "opens a terminal (i3, sway, Hyprland, Regolith ...)"),
    (frozenset({"super", "shift", "enter"}), "opens a terminal (dwm, xmonad, awesome ...)"),
    (frozenset({"ctrl", "alt", "enter"}), "opens a terminal (several tiling setups)"),
    (frozenset({"super", "t"}), "opens a terminal (Pop!_OS, elementary OS, COSMIC)"),
    (frozenset({"super", "x"}), "opens the Windows power menu with its terminal entries"),
    (frozenset({"super", "r"}), "opens the Windows Run box, which runs commands"),
    (frozenset({"alt", "f2"}), "opens the run-a-command prompt (GNOME, KDE, Xfce)"),
    (frozenset({"ctrl", "`"}), "opens an editor's integrated terminal (VS Code ...)"),
    (frozenset({"ctrl", "shift", "`"}), "opens an editor's integrated terminal (VS Code ...)"),
)


def fold_keys(keys: Sequence[str]) -> frozenset[str]:
    """Hotkey names in any spelling ("Ctrl+Alt+T", "<super>", "Return") -> folded key set."""
    out: set[str] = set()
    for item in keys:
        text = item.strip().lower()
        parts = [text] if len(text) == 1 else re.split(r"\s*\+\s*|\s+|(?<=[a-z0-9>])-(?=[a-z<])",
                                                       text)
        for part in parts:
            if part == "" and "+" in text:
                part = "+"
            name = part if len(part) == 1 else re.sub(r"[<>_\s-]", "", part)
            name = name[4:] if name.startswith("key.") else name
            if name:
                out.add(_KEY_FOLD.get(name, name))
    return frozenset(out)


def terminal_hotkey(keys: Sequence[str]) -> str | None:
    """Why pressing ``keys`` opens a terminal or command prompt, or None."""
    folded = fold_keys(keys)
    if {"ctrl", "alt"} <= folded and len(folded) == 3 and any(
            re.fullmatch(r"f(?:[1-9]|1[0-2])", k) for k in folded):
        return "switches to a text console (a login shell)"
    for combo, why in _TERMINAL_HOTKEYS:
        if folded == combo:
            return why
    return None


_TERMINAL_TITLE = re.compile(
    r"\b(?:u?xterm|u?rxvt|gnome-terminal|konsole|terminal|terminator|tilix|alacritty|kitty|"
    r"xfce4-terminal|lxterminal|mate-terminal|qterminal|wezterm|iterm2?|bash|zsh|fish|ksh|tcsh|"
    r"cmd\.exe|cmd|command prompt|powershell|pwsh|tmux|foot|ghostty|guake|tilda|yakuake|"
    r"terminology|sakura|termite|ptyxis)\b|^st$|^\S+@[\w.-]+:\s*[~/]",
    re.IGNORECASE,
)


def is_terminal_title(title: str | None) -> bool:
    """Whether a window title looks like a terminal's (its name, or a ``user@host: ~`` prompt)."""
    return bool(title and _TERMINAL_TITLE.search(title.strip()))
