"""Read one clause (verb phrase + the rest) into actions: one small reader per verb kind of
``language.yaml`` (:data:`VERB_KINDS`). Each reader either returns the actions or raises
PlanningError naming the words it could not place; none guesses. How targets are described:
:mod:`.phrases`; typing clauses: :mod:`.text_entry`; select/check: :mod:`.choices`; close,
navigate through, copy from, highlight and the 'X by clicking Y' / 'use X to type Y'
rewrites: :mod:`.more_verbs`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..actions import Action, Click, Drag, Hotkey, Move, OpenApp, Scroll, Type, Wait
from ..errors import ActionParseError
from . import vocabulary as vocab
from .choices import read_select, read_toggle
from .clauses import Clause, match_verb, render
from .each_record import each_record_target
from .menus import menu_path
from .more_verbs import (
    drop_object,
    instrument_only,
    read_browse,
    read_close,
    read_copy,
    read_highlight,
    rewrite,
)
from .phrases import (
    Tokens,
    desc,
    expect_text,
    fail,
    is_combo,
    lower_word,
    number,
    parse_keys,
    seconds,
    split_at,
    take_repeat,
    text_of,
    vague,
    with_role,
    words_of,
)
from .resizing import read_resize
from .scoping import read_find
from .styling import read_style
from .text_entry import read_enter, read_fill, read_set, read_type

# -- readers -------------------------------------------------------------------------------

def _click(button: str = "left", clicks: int = 1) -> Callable[[Clause, Tokens], list[Action]]:
    def read(clause: Clause, toks: Tokens) -> list[Action]:
        count, toks = take_repeat(clause, toks)
        if not toks:
            raise fail(clause, "it does not say what to click")
        records = each_record_target(clause, toks) if count == 1 else None
        if records is not None:     # 'click the "Share" button on 3 posts by @ann'
            return [Click(records, button=button, clicks=clicks)]
        path = menu_path(clause, toks, button=button, clicks=clicks) if count == 1 else None
        if path is not None:
            return path
        return [Click(desc(clause, toks), button=button, clicks=clicks)] * count
    return read


def _press(clause: Clause, toks: Tokens) -> list[Action]:
    count, toks = take_repeat(clause, toks)
    if not toks:
        raise fail(clause, "it does not say which key or button to press")
    low = [lower_word(t) for t in toks]
    lone_quote = len(toks) == 1 and clause.quoted(toks[0]) is not None
    says_key = low[-1] in vocab.KEY_SUFFIXES
    if "button" not in low and (not lone_quote or "+" in (clause.quoted(toks[0]) or "")):
        plain = " ".join(clause.quoted(t) or t for t in toks)
        keys = parse_keys(plain)
        if keys is not None:
            if not is_combo(keys):
                raise fail(clause, f"{' '.join(keys)!r} is not one key combination; press one "
                                   "combination per step ('press Tab twice', 'press Ctrl+S')")
            return [Hotkey(keys)] * count
        if says_key:
            unknown = [w for w in plain.split() if lower_word(w) not in vocab.ARTICLES
                       and lower_word(w) not in vocab.KEY_SUFFIXES and parse_keys(w) is None]
            raise fail(clause, f"{' '.join(unknown) or plain!r} is not a key name I know "
                               "(Enter, Tab, Escape, Ctrl+S, F5 ...)")
        if any(parse_keys(t) and len(parse_keys(t) or ()) > 1 for t in low if "+" in t):
            raise fail(clause, "press one key combination per step ('press Ctrl+C, then press Ctrl+V')")
    return [Click(desc(clause, toks))] * count


def _plain_click(clause: Clause, toks: Tokens) -> list[Action]:
    if not toks:
        raise fail(clause, "it does not say what")
    return [Click(desc(clause, toks))]


def _clear(clause: Clause, toks: Tokens) -> list[Action]:
    return [Type("", into=with_role(clause, toks, "field"), clear=True)]


def _app_name(clause: Clause, toks: Tokens) -> tuple[str, bool]:
    """Strip 'the app', 'application' ... -> (name, whether an app word was there)."""
    said_app = False
    k = next((len(p.split()) for p in vocab.APP_WORDS
              if [lower_word(t) for t in toks[:len(p.split())]] == p.split()), 0)
    if k and len(toks) > k:
        toks, said_app = toks[k:], True
    if len(toks) > 1 and lower_word(toks[-1]) in ("app", "application", "program"):
        toks, said_app = toks[:-1], True
    if len(toks) > 1 and lower_word(toks[0]) in vocab.ARTICLES:
        toks = toks[1:]
    return words_of(clause, toks), said_app


def _open(clause: Clause, toks: Tokens) -> list[Action]:
    """An application unless it reads as something on the screen.

    A click when the words name an on-screen thing (menu, tab, dialog, window, settings,
    panel, page, list, folder, ...; see ``OPEN_ON_SCREEN_WORDS``) or the target is a quoted
    on-screen text; ``open_app`` when it says "app"/"application"/"program", or is a bare
    unquoted name ('open gedit'). A file name is refused: say 'double-click "report.txt"';
    'open the file named "report.txt"' double-clicks it (it names a file on the screen).
    """
    if not toks:
        raise fail(clause, "it does not say what to open")
    path = menu_path(clause, toks)
    if path is not None:
        return path
    name, said_app = _app_name(clause, toks)
    if said_app:
        return [OpenApp(name)]
    plain = [lower_word(t) for t in toks if clause.quoted(t) is None]
    if any(w in vocab.NAMING_WORDS for w in plain):  # 'open the file named "a.txt"': on the screen
        files = any(w.rstrip("s") in ("file", "document", "folder", "icon") for w in plain)
        return [Click(desc(clause, toks), clicks=2 if files else 1)]
    if any(w in vocab.OPEN_ON_SCREEN_WORDS for w in plain) or (len(toks) == 1 and clause.quoted(toks[0])):
        return [Click(desc(clause, toks))]
    if re.search(r"[/\\]|\.\w{1,5}$", name):
        raise fail(clause, f"{name!r} looks like a file; to open a file on the screen say "
                           f"'double-click \"{name}\"'")
    return [OpenApp(name)]


def _launch(clause: Clause, toks: Tokens) -> list[Action]:
    if not toks:
        raise fail(clause, "it does not say which application")
    return [OpenApp(_app_name(clause, toks)[0])]


def _scroll_to_end(clause: Clause, toks: Tokens) -> list[Action] | None:
    """'scroll to the bottom of the text area', 'scroll the list to the top', 'scroll down to the
    end': as far as it goes
    (the language file's ``targets.scroll_ends`` and ``numbers.scroll_amounts['to the end']``)."""
    low = [lower_word(t) for t in toks]
    for i in range(len(low) - 2):
        if low[i:i + 2] != ["to", "the"] or low[i + 2] not in vocab.SCROLL_ENDS:
            continue
        direction = vocab.SCROLL_ENDS[low[i + 2]]
        place = [t for t, w in zip(toks[:i], low[:i], strict=True)
                 if w.rstrip("s").removesuffix("ward") not in ("up", "down", "left", "right")]
        at = toks[i + 4:] if i + 3 < len(low) and low[i + 3] in ("of", "in") else []
        if i + 3 < len(low) and not at:
            return None
        if place and at:       # 'scroll the text area to the bottom of the text': its own text
            if " ".join(low[i + 4:]) not in vocab.EMPTY_OBJECTS:
                return None
            at = []
        where = at or place
        return [Scroll(direction, vocab.SCROLL_AMOUNT_WORDS["to the end"], desc(clause, where) if where else None)]
    return None


def _scroll(clause: Clause, toks: Tokens) -> list[Action]:
    to_end = _scroll_to_end(clause, toks)
    if to_end is not None:
        return to_end
    low = [lower_word(t) for t in toks]
    dirs = [i for i, w in enumerate(low) if w.rstrip("s").removesuffix("ward") in ("up", "down", "left", "right")]
    if not dirs:
        raise fail(clause, "scroll needs a direction: up, down, left or right")
    d = 0 if dirs[0] == 0 else dirs[-1]  # 'scroll down in the left panel', 'scroll the list up'
    direction = low[d].rstrip("s").removesuffix("ward")
    at = toks[:d]
    after = toks[d + 1:]
    where = split_at(["_", *after, "_"], ("in", "on", "over", "inside", "within"), last=False)
    if where is not None:
        if at:
            raise fail(clause, "it names two places to scroll")
        amount_toks, at = where[0][1:], where[1][:-1]
    else:
        amount_toks = after
    words = [lower_word(t) for t in amount_toks if lower_word(t) not in
             ("by", "times", "time", "clicks", "click", "steps", "step", "notches", "lines", "more")]
    amount = 3
    if words:
        phrase = " ".join(words)
        value = vocab.SCROLL_AMOUNT_WORDS.get(phrase) or number(words)
        if value is None or value != int(value) or not 1 <= value <= 100:
            raise fail(clause, f"could not place {render(amount_toks, clause)!r}: scroll takes a "
                               "direction, an amount from 1 to 100 ('5 times') and 'in <where>'")
        amount = int(value)
    if at and lower_word(at[0]) in ("the", "this") and len(at) == 1:
        at = []
    return [Scroll(direction, amount, desc(clause, at) if at else None)]


def _drag(clause: Clause, toks: Tokens) -> list[Action]:
    split = split_at(toks, ("to", "onto", "into")) or split_at(toks, ("on", "over"))
    if split is None:
        raise fail(clause, "drag needs a source and a destination: 'drag \"a.txt\" to \"Trash\"'")
    where = " ".join(lower_word(t) for t in split[1])
    if where in vocab.DIRECTIONS:
        raise fail(clause, f"{where!r} is a direction, not a place on the screen; drag needs a "
                           "destination element: 'drag \"a.txt\" to \"Trash\"'")
    return [Drag(desc(clause, split[0]), desc(clause, split[1]))]


def _go_to(clause: Clause, toks: Tokens) -> list[Action]:
    """'go to the Contacts tab', 'switch to Settings': a click on something on the screen.

    A web address is refused plainly: there is no browser address bar the offline planner knows.
    """
    if not toks:
        raise fail(clause, "it does not say where to go")
    name = words_of(clause, toks)
    if re.search(r"://|^www\.|\.(com|org|net|io|de|uk)(/|$)", name.lower()):
        raise fail(clause, f"{name!r} is a web address; say the steps instead, e.g. "
                           "'click the address bar, type \"example.com\" and press Enter'")
    return [Click(desc(clause, toks))]


def _hover(clause: Clause, toks: Tokens) -> list[Action]:
    if not toks:
        raise fail(clause, "it does not say where to move the mouse")
    return [Move(desc(clause, toks))]


def _wait(clause: Clause, toks: Tokens) -> tuple[list[Action], str | None]:
    if not toks:
        return [Wait(1.0)], None
    duration = seconds([lower_word(t) for t in toks])
    if duration is not None:
        if not 0 <= duration <= 3600:
            raise fail(clause, "I wait between 0 seconds and one hour")
        return [Wait(duration)], None
    expect = expect_text(clause, toks)
    if expect:
        return [Wait(1.0)], expect
    raise fail(clause, f"could not place {render(toks, clause, original=True)!r}: say 'wait 2 seconds' "
                       "or 'wait for \"Saved\" to appear'")


def _verify(clause: Clause, toks: Tokens) -> tuple[list[Action], str | None]:
    expect = expect_text(clause, toks)
    if not expect:
        raise fail(clause, "say what should be seen: 'check that \"Saved\" appears'")
    return [], expect


_LOGIN_BUTTONS = {"log in": "Log in", "login": "Login", "log on": "Log on", "sign in": "Sign in"}


def _login(clause: Clause, toks: Tokens, verb: str) -> list[Action]:
    split = split_at(toks, ("password", "pass", "pw", "passwd"))
    usage = "say 'log in as <user> with password <password>'"
    if split is None:
        raise fail(clause, usage)
    head, secret = split
    while head and lower_word(head[-1]) in ("with", "using", "and", "the", "my", "a"):
        head = head[:-1]
    marks = [i for i, t in enumerate(head[:-1]) if lower_word(t) in ("as", "username", "user", "email", "name")]
    user = marks[-1] if marks else None
    if user is None:
        raise fail(clause, usage)
    leftover = [t for t in head[:user] if lower_word(t) not in ("with", "using", "the", "user", "as")]
    if leftover:
        raise fail(clause, f"could not place {render(leftover, clause)!r}; {usage}")
    return [
        Type(text_of(clause, head[user + 1:], "the user name"), into="the Username field", clear=True),
        Type(text_of(clause, secret, "the password"), into="the Password field", clear=True),
        Click(f"the {_LOGIN_BUTTONS.get(verb, 'Log in')} button"),
    ]


def _shortcut(keys: tuple[str, ...]) -> Callable[[Clause, Tokens], list[Action]]:
    def read(clause: Clause, toks: Tokens) -> list[Action]:
        rest = " ".join(lower_word(t) for t in toks)
        if keys == ("ctrl", "v"):
            toks = drop_object(toks)
            if toks and lower_word(toks[0]) in ("into", "in", "inside") and len(toks) > 1:
                return [Click(with_role(clause, toks[1:], "field")), Hotkey(keys)]
            rest = " ".join(lower_word(t) for t in toks)
        if rest not in vocab.EMPTY_OBJECTS:
            raise fail(clause, f"could not place {render(toks, clause, original=True)!r}; this verb "
                               "works on what is selected: select it first, then say it alone")
        return [Hotkey(keys)]
    return read


def _submit(clause: Clause, toks: Tokens) -> list[Action]:
    if " ".join(lower_word(t) for t in toks) not in vocab.EMPTY_OBJECTS:
        raise fail(clause, f"could not place {render(toks, clause, original=True)!r}; say 'submit' "
                           "or 'click \"Send\"'")
    return [Click("Submit")]


def _done(clause: Clause, toks: Tokens) -> list[Action]:
    if toks:
        raise fail(clause, f"could not place {render(toks, clause, original=True)!r} after 'done'")
    return []


_READERS: dict[str, Callable[[Clause, Tokens], list[Action]]] = {
    "click": _click(), "double_click": _click(clicks=2), "triple_click": _click(clicks=3),
    "right_click": _click("right"), "middle_click": _click("middle"),
    "press": _press, "select": read_select, "select_all": lambda c, t: read_select(c, ["all", *t]),
    "check": read_toggle, "uncheck": read_toggle,
    "expand": _plain_click, "collapse": _plain_click, "focus": _plain_click,
    "type": read_type, "enter": read_enter, "fill": read_fill, "clear": _clear, "set": read_set,
    "open": _open, "launch": _launch, "scroll": _scroll, "drag": _drag, "hover": _hover,
    "resize": lambda c, t: read_resize(lower_word(c.tokens[0]), c, t),
    "submit": _submit, "done": _done, "go_to": _go_to, "close": read_close, "browse": read_browse,
    "highlight": read_highlight, "find": read_find, "style": read_style,
    "copy": read_copy, "paste": _shortcut(("ctrl", "v")),
    "cut": _shortcut(("ctrl", "x")), "undo": _shortcut(("ctrl", "z")),
    "redo": _shortcut(("ctrl", "y")),
}
# Every verb kind read here; each verb of the language file must be one of them.
VERB_KINDS: frozenset[str] = frozenset({*_READERS, "wait", "verify", "login"})


def read_clause(clause: Clause) -> tuple[list[Action], str | None]:
    """The actions one clause asks for, and a text expected on screen afterwards (or None)."""
    clause = rewrite(clause)
    toks = list(clause.tokens)
    low = [lower_word(t) for t in toks]
    if low[:2] == ["check", "out"]:
        raise vague(clause, " ".join(toks[:2]))
    found = match_verb(toks)
    if found is None and instrument_only(clause):
        return [], None
    if found is None:
        if low[0] in vocab.VAGUE_VERBS:
            raise vague(clause, toks[0])
        first = clause.quoted(toks[0]) or toks[0]
        raise fail(clause, f"no known action verb ({first!r} is not one). I understand: {vocab.VERB_SUMMARY}.")
    kind, n = found
    rest = toks[n:]
    try:
        if kind == "wait":
            return _wait(clause, rest)
        if kind == "verify":
            return _verify(clause, rest)
        if kind == "login":
            return _login(clause, rest, " ".join(low[:n])), None
        return _READERS[kind](clause, rest), None
    except ActionParseError as exc:
        raise fail(clause, str(exc)) from exc
