"""Clause rewrites and the readers of close / navigate-through / highlight / copy-from.

Rewrites (the clause keeps its text as written, for messages and the plan):

- 'close the dialog box by clicking the "x"' -> 'clicking the "x"' read as 'click the "x"':
  the step after "by" is what to do, the words before it say why;
- 'use the textbox to enter "xyz"' -> 'enter "xyz" into the textbox'; with any other verb the
  instrument is dropped ('use the mouse to click OK' -> 'click OK').
"""

from __future__ import annotations

from dataclasses import replace

from ..actions import Action, Click, Hotkey
from . import vocabulary as vocab
from .clauses import Clause, match_verb, render
from .phrases import Tokens, desc, drop_unanchored, fail, lower_word

_TYPE_KINDS = ("type", "enter", "fill")
_SELF = frozenset({"it", "this", "that", "them", "the text", "the value", "the selection"})
_TEXT_HEAD = frozenset({"all", "the", "text", "contents", "content", "value", "whole", "entire",
                        "words", "of"})
_FROM = ("in", "from", "of", "inside", "within")


def rewrite(clause: Clause) -> Clause:
    """The clause with 'X by clicking Y' and 'use X to <verb> Y' read as the step they name."""
    toks = list(clause.tokens)
    low = [lower_word(t) if clause.quoted(t) is None else "" for t in toks]
    new: Tokens | None = None
    for k in range(1, len(toks) - 1):
        if low[k] != "by":
            continue
        for n in (2, 1):
            base = vocab.ING_VERBS.get(" ".join(low[k + 1:k + 1 + n]))
            if base and len(low) > k + n:
                new = [*base.split(), *toks[k + 1 + n:]]
                break
        if new:
            break
    if new is None and low and low[0] in ("use", "using"):
        for j in range(2, len(toks) - 1):
            found = match_verb(toks[j + 1:]) if low[j] == "to" else None
            if found is None:
                continue
            instrument, step = toks[1:j], toks[j + 1:]
            says_where = any(w in ("into", "in", "inside") for w in low[j + 1:])
            if found[0] in _TYPE_KINDS and not says_where:
                new = [*step, "into", *instrument]
            else:
                new = step
            break
    if new is None:
        return clause
    return replace(clause, tokens=tuple(new), as_written=clause.text)


def instrument_only(clause: Clause) -> bool:
    """'Using the text editor, bold "cat"': a clause that only names the tool the next step
    uses (no verb of its own, at most four words after 'using'/'with'); it plans nothing."""
    low = [lower_word(t) for t in clause.tokens]
    return 2 <= len(low) <= 5 and low[0] in ("using", "with") and match_verb(clause.tokens[1:]) is None \
        and not any(clause.quoted(t) is not None for t in clause.tokens)


def drop_object(toks: Tokens) -> Tokens:
    """'it into the box' -> 'into the box': a pronoun for what is at hand says nothing."""
    for n in (2, 1):
        if len(toks) > n and " ".join(lower_word(t) for t in toks[:n]) in _SELF:
            return toks[n:]
    return toks


def read_close(clause: Clause, toks: Tokens) -> list[Action]:
    """'close the dialog' -> click the close button (of the named dialog, when it has a title).

    The grounder resolves 'the close button' to a close glyph or a button reading Close/x.
    """
    words = [t for t in toks if lower_word(t) not in vocab.ARTICLES | {"this", "that", "current"}]
    low = [lower_word(t) for t in words]
    if not words or low == ["it"]:
        return [Click("the close button")]
    if low[-2:] in (["dialog", "box"], ["dialogue", "box"], ["popup", "window"], ["pop-up", "window"]):
        words, low = words[:-1], low[:-1]
        if low[-1] in ("popup", "pop-up"):
            low[-1] = "window"
    noun = low[-1]
    if noun in vocab.CLOSABLE_CONTAINERS:
        title = words[:-1]
        if not title:
            return [Click("the close button")]
        return [Click(f"the close button in the {render(title, clause)} {noun}")]
    if noun in vocab.CLOSABLE_OTHERS or " ".join(low[-2:]) in vocab.CLOSABLE_OTHERS:
        return [Click("the close button")]
    what = render(toks, clause, original=True)
    raise fail(clause, f"I close dialogs and windows by clicking their close button; to close "
                       f"{what!r} say how: 'click \"Close\"', 'press Ctrl+W' or 'press Alt+F4'")


def read_browse(clause: Clause, toks: Tokens) -> list[Action]:
    """'navigate through the file tree': looking around plans no action of its own.

    Only a place may follow; a goal ('... to find "Myron"') is refused, since finding needs
    the screen: name the thing to click instead.
    """
    low = [lower_word(t) for t in toks]
    goal = [w for w in low if w in ("to", "for", "until", "and", "so", "then", "find", "looking")]
    if goal or len(toks) > 6 or any(clause.quoted(t) is not None for t in toks):
        raise fail(clause, "looking through something for a thing is a goal, not a step; name "
                           "what to click ('click \"Myron\"') or use a model-backed planner")
    return []


def _text_source(clause: Clause, toks: Tokens) -> Tokens | None:
    """'the text from the area below' -> ['the', 'area']; None if it does not read so."""
    low = [lower_word(t) for t in toks]
    i = next((k for k, w in enumerate(low) if w in _FROM and k > 0), None)
    if i is None or i + 1 >= len(toks) or not all(w in _TEXT_HEAD for w in low[:i]):
        return None
    source = drop_unanchored(toks[i + 1:])
    return source or None


def read_copy(clause: Clause, toks: Tokens) -> list[Action]:
    """'copy' copies the selection; 'copy the text from/in X' selects X's text first.

    An editable X (a text area or field) is clicked and its text selected with Ctrl+A; once
    copied, the selection is dropped again (Right), since a field's highlighted text hides the
    borders the next step may look for. Any other X (a paragraph, a label) is triple-clicked,
    which selects its paragraph.
    """
    if " ".join(lower_word(t) for t in toks) in vocab.EMPTY_OBJECTS:
        return [Hotkey(("ctrl", "c"))]
    source = _text_source(clause, toks)
    if source is None:
        raise fail(clause, f"could not place {render(toks, clause, original=True)!r}; say 'copy' "
                           "alone for the selection, or 'copy the text from the text area'")
    selected = _select_text(clause, source)
    tidy = [Hotkey(("right",))] if Hotkey(("ctrl", "a")) in selected else []
    return [*selected, Hotkey(("ctrl", "c")), *tidy]


def read_highlight(clause: Clause, toks: Tokens) -> list[Action]:
    """'highlight the text in the paragraph below' -> triple-click the paragraph; a lone quoted
    word ('highlight the word "foo"') -> double-click it."""
    if not toks:
        raise fail(clause, "it does not say what to highlight")
    source = _text_source(clause, toks)
    if source is not None:
        return _select_text(clause, source)
    core = [t for t in toks if lower_word(t) not in ("the", "word", "text", "phrase")]
    if len(core) == 1 and clause.quoted(core[0]) is not None and " " not in (clause.quoted(core[0]) or " "):
        return [Click(desc(clause, core), clicks=2)]
    return [Click(desc(clause, toks), clicks=3)]


def _select_text(clause: Clause, source: Tokens) -> list[Action]:
    low = [lower_word(t) for t in source]
    if any(w in vocab.EDITABLE_WORDS or w.rstrip("s") in vocab.EDITABLE_WORDS for w in low):
        return [Click(desc(clause, source)), Hotkey(("ctrl", "a"))]
    return [Click(desc(clause, source), clicks=3)]
