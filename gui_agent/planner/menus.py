"""Menu paths: 'click File > Save As…', 'open Edit > Preferences', 'click Save As in the File
menu'. Each names a menu and what to click once it has opened: one click per level, every
one grounded on the screen after the one before it settled (the open menu is read again, from
the tree or the pixels), so an item is never looked for before its menu shows."""

from __future__ import annotations

from ..actions import Action, Click
from . import vocabulary as vocab
from .clauses import Clause
from .phrases import Tokens, desc, lower_word

_SEPARATOR = ">"


def menu_path(clause: Clause, toks: Tokens, *, button: str = "left", clicks: int = 1
              ) -> list[Action] | None:
    """The clicks a menu path asks for, or None when the words are no menu path."""
    parts = _split_path(clause, toks)
    if parts is not None:
        steps: list[Action] = [Click(desc(clause, p)) for p in parts[:-1]]
        return [*steps, Click(desc(clause, parts[-1]), button=button, clicks=clicks)]
    inside = _in_menu(clause, toks)
    if inside is not None:
        item, menu = inside
        return [Click(desc(clause, menu)), Click(desc(clause, item), button=button, clicks=clicks)]
    return None


def _split_path(clause: Clause, toks: Tokens) -> list[Tokens] | None:
    """'File > Save As…' -> [['File'], ['Save', 'As…']] (a '>' glued to words counts too)."""
    if not any(_SEPARATOR in t for t in toks if clause.quoted(t) is None):
        return None
    parts: list[Tokens] = [[]]
    for tok in toks:
        if clause.quoted(tok) is not None or _SEPARATOR not in tok:
            parts[-1].append(tok)
            continue
        pieces = tok.split(_SEPARATOR)
        for k, piece in enumerate(pieces):
            if piece:
                parts[-1].append(piece)
            if k < len(pieces) - 1:
                parts.append([])
    if len(parts) < 2 or any(not p for p in parts):
        return None
    return parts


def _in_menu(clause: Clause, toks: Tokens) -> tuple[Tokens, Tokens] | None:
    """'Save As in the File menu' -> (['Save', 'As'], ['the', 'File', 'menu']): an item named
    by the menu it is in (the menu needs a name: 'in the menu' says nothing to open)."""
    low = [lower_word(t) if clause.quoted(t) is None else "" for t in toks]
    if len(toks) < 4 or low[-1] not in vocab.MENU_NOUNS:
        return None
    for i in range(len(toks) - 2, 0, -1):
        if low[i] not in vocab.MENU_PREPOSITIONS:
            continue
        menu = toks[i + 1:]
        named = [t for t, w in zip(menu[:-1], low[i + 1:-1], strict=True)
                 if w not in vocab.ARTICLES]
        if named and toks[:i]:
            return toks[:i], menu
        return None
    return None
