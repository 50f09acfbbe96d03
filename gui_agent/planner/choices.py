"""Readers of choosing clauses: select / choose / pick and check / uncheck / tick / untick.

Besides one target they read:

- a list of short items: 'select 81jioM, aPV, Tr3' / 'tick "Red" and "Blue"' clicks each one;
- no item: 'select nothing' / 'select none' plans nothing;
- a menu path: 'choose File > Save As' (also written without spaces: 'File>Save As');
- a drop-down: 'select "Blue" from the Color dropdown' opens it, then clicks the item;
- a number input: 'select 4 with the spinner' types 4 into the spinner; 'select 37 with the
  slider' likewise plans the number for the slider, which the worker sets with its keys;
- 'select 11/03/2016 as the date' types the value into the Date field.

An item that is one plain word is quoted ('select Harriette' -> click('"Harriette"')) so
that the grounder matches the item's text literally and never reads it as a role word.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from ..actions import Action, Click, Hotkey, Type
from . import vocabulary as vocab
from .clauses import Clause, match_verb, render
from .phrases import (
    Tokens,
    desc,
    fail,
    has_role,
    is_number,
    lower_word,
    quote,
    split_at,
    text_of,
    with_role,
)

_PATH_MARKS = ("->", ">", "\u2192", "\u25b8")
_PATH_SPLIT = re.compile("(->|>|\u2192|\u25b8)")
MAX_ITEM_WORDS = 3


def read_select(clause: Clause, toks: Tokens) -> list[Action]:
    if not toks:
        raise fail(clause, "it does not say what to select")
    phrase = " ".join(lower_word(t) for t in toks)
    if phrase in ("all", "all text", "all the text", "everything"):
        return [Hotkey(("ctrl", "a"))]
    if phrase in vocab.NOTHING_WORDS:
        return []
    toks = _split_path_marks(clause, toks)
    if any(t in _PATH_MARKS for t in toks):  # a menu path: File > Save As
        items: list[Tokens] = [[]]
        for t in toks:
            if t in _PATH_MARKS:
                items.append([])
            else:
                items[-1].append(t)
        if any(not item for item in items):
            raise fail(clause, "a menu path needs a name on each side of '>'")
        return [Click(desc(clause, item)) for item in items]
    widget = _with_widget(clause, toks)
    if widget is not None:
        return widget
    split = split_at(toks, ("as",))
    if split is not None and lower_word(split[1][0]) in vocab.ARTICLES and 2 <= len(split[1]) <= 4:
        value, role = split
        return [Type(text_of(clause, value, "the value"), into=with_role(clause, role, "field"), clear=True)]
    split = split_at(toks, ("from",))
    if split is None:
        split = split_at(toks, ("in", "within"))
        if split is not None:
            box = [lower_word(t) for t in split[1]]
            dropdown = any(w in vocab.DROPDOWN_WORDS for w in box)
            if not dropdown and has_role(clause, split[1]):
                split = None  # 'the 2nd item in the list': one description
    if split is None:
        return [Click(item_desc(clause, item)) for item in items_of(clause, toks)]
    item, container = split
    items = [Click(item_desc(clause, one)) for one in items_of(clause, item)]
    if is_list_box(" ".join(lower_word(t) for t in container)):
        # a list box shows its items (no click opens it); the ones after the first are added to
        # the selection, not put in its place
        return [items[0], *(replace(c, hold="ctrl") for c in items[1:])]
    if len(items) > 1 and not any(lower_word(t) in vocab.DROPDOWN_WORDS for t in container):
        return items  # several items of a list box: a drop-down would hold only one
    return [Click(with_role(clause, container, "dropdown")), *items]


def is_list_box(words: str) -> bool:
    """Whether ``words`` name a list box ('the scroll list', 'the list box')."""
    padded = f" {words.lower()} "
    return any(f" {phrase} " in padded for phrase in vocab.LIST_BOX_WORDS)


def read_toggle(clause: Clause, toks: Tokens) -> list[Action]:
    if toks and " ".join(lower_word(t) for t in toks) in vocab.NOTHING_WORDS:
        return []
    if not toks:
        raise fail(clause, "it does not say which checkbox")
    return [Click(with_role(clause, item, "checkbox")) for item in items_of(clause, toks)]


def item_desc(clause: Clause, toks: Tokens) -> str:
    """One item: a lone plain word quoted (it is the item's text), anything else via desc."""
    if len(toks) == 1 and clause.quoted(toks[0]) is None:
        word = toks[0].strip(",:")
        low = word.lower()
        if word and low not in vocab.ROLE_WORDS and low not in vocab.ARTICLES and low not in (
                "it", "this", "that", "them", "one"):
            return quote(word)
    return desc(clause, toks)


def items_of(clause: Clause, toks: Tokens) -> list[Tokens]:
    """'81jioM, aPV, Tr3' / 'Red and Blue' -> one token list per item; else [toks].

    With a comma every part must be a short item (at most three words, no verb), else the
    clause is refused. Without a comma, 'and' separates items only when each is quoted.
    """
    parts = _cut(toks, lambda t: t == ",")
    if len(parts) > 1:
        items: list[Tokens] = []
        for k, part in enumerate(parts):
            sub = _cut(part, _is_and)
            if k and len(sub) > 1 and not sub[0]:
                sub = sub[1:]  # 'A, B, and C'
            items.extend(sub)
        long = [item for item in items if len(item) > MAX_ITEM_WORDS or match_verb(item) is not None]
        if long or any(not item for item in items):
            what = render(long[0], clause, original=True) if long else "an empty item"
            raise fail(clause, f"I read a list of items here, but {what!r} is not a short item "
                               "name; select one item per step ('select \"A\", then select \"B\"')")
        return items
    items = _cut(toks, _is_and)
    if len(items) > 1 and all(len(item) == 1 and clause.quoted(item[0]) is not None for item in items):
        return items  # '"Red" and "Blue"'; 'Terms and Conditions' stays one name
    return [toks]


def _is_and(tok: str) -> bool:
    return lower_word(tok) in ("and", "&")


def _cut(toks: Tokens, is_mark: Callable[[str], bool]) -> list[Tokens]:
    parts: list[Tokens] = [[]]
    for t in toks:
        if is_mark(t):
            parts.append([])
        else:
            parts[-1].append(t)
    return parts


def _split_path_marks(clause: Clause, toks: Tokens) -> Tokens:
    """'Leigh>Maddie' -> ['Leigh', '>', 'Maddie']; quoted texts are left alone."""
    out: Tokens = []
    for t in toks:
        if clause.quoted(t) is None and t not in _PATH_MARKS and _PATH_SPLIT.search(t):
            out.extend(p for p in _PATH_SPLIT.split(t) if p)
        else:
            out.append(t)
    return out


def _with_widget(clause: Clause, toks: Tokens) -> list[Action] | None:
    """'4 with the spinner' or '37 with the slider' -> type the number into it (the worker sets
    a slider with its keys: slider.py); a slider takes a number only; else None."""
    split = split_at(toks, ("with", "using", "on", "in", "via"))
    if split is None:
        return None
    value, widget = split
    low = f" {' '.join(lower_word(t) for t in widget)} "
    if any(f" {w} " in low or f" {w}s " in low for w in vocab.DRAG_WIDGETS):
        text = text_of(clause, value, "the value")
        if not is_number(text):
            raise fail(clause, f"a slider is set to a number, not to {text!r}")
        return [Type(text, into=desc(clause, widget), clear=True)]
    if any(f" {w} " in low for w in vocab.SPINNER_WORDS):
        return [Type(text_of(clause, value, "the value"), into=desc(clause, widget), clear=True)]
    return None
