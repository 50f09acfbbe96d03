"""'Resize the text area so that its width is larger': a resize of one element by its corner.

The element comes first, then (after a link such as "so that" or "to be") how: which way its
size goes (larger, smaller, wider, ...) and which size (width, height, or both when neither is
named). A verb may say how itself ('enlarge', 'widen'). A size that grows becomes GROW times as
large, one that shrinks SHRINK times: enough for a page or an app to see it changed, not so
much that it runs off the screen. The words are the language file's (``sizes``).
"""

from __future__ import annotations

from ..actions import Action, Resize
from . import vocabulary as vocab
from .clauses import Clause
from .phrases import Tokens, desc, fail, lower_word

GROW = 1.5
SHRINK = 0.67


def read_resize(verb: str, clause: Clause, toks: Tokens) -> list[Action]:
    """The resize a clause asks for (``verb``: the verb as written, lower case)."""
    low = [lower_word(t) if clause.quoted(t) is None else "" for t in toks]
    cut = _link_at(low)
    target, how = (toks[:cut[0]], low[cut[0] + cut[1]:]) if cut else _trailing_how(toks, low)
    said = vocab.SIZE_VERBS.get(verb)
    if said:
        how = [said, *how]
    if not target:
        raise fail(clause, "which element? say 'resize the text area so that it is wider'")
    width, height = _factors(how)
    if width == 1.0 and height == 1.0:
        raise fail(clause, "say how to resize it: wider, narrower, taller, shorter, larger or "
                           "smaller ('resize the text area so that its width is larger')")
    return [Resize(desc(clause, target), width=width, height=height)]


def _link_at(low: list[str]) -> tuple[int, int] | None:
    """(where, how many words) of the first link between the element and how."""
    for i in range(len(low)):
        for link in sorted(vocab.SIZE_LINKS, key=len, reverse=True):
            words = link.split()
            if low[i:i + len(words)] == words:
                return i, len(words)
    return None


def _trailing_how(toks: Tokens, low: list[str]) -> tuple[Tokens, list[str]]:
    """'shrink the window vertically': size words at the end say how; the rest is the element."""
    size_words = vocab.GROW_WORDS | vocab.SHRINK_WORDS | vocab.WIDTH_WORDS | vocab.HEIGHT_WORDS
    end = len(low)
    while end > 0 and (low[end - 1] in size_words or low[end - 1] == "and"):
        end -= 1
    return toks[:end], low[end:]


def _factors(how: list[str]) -> tuple[float, float]:
    """(width factor, height factor) the words ask for; 1.0 for a size they leave alone."""
    width = height = 1.0
    ways = vocab.GROW_WORDS | vocab.SHRINK_WORDS
    named = {"width" for w in how if w in vocab.WIDTH_WORDS and w not in ways} | \
        {"height" for w in how if w in vocab.HEIGHT_WORDS and w not in ways}   # 'its width'
    for word in how:
        if word in vocab.GROW_WORDS:
            factor = GROW
        elif word in vocab.SHRINK_WORDS:
            factor = SHRINK
        else:
            continue
        is_width, is_height = word in vocab.WIDTH_WORDS, word in vocab.HEIGHT_WORDS
        if not (is_width or is_height):   # 'larger': the size named, else both
            is_width = "width" in named or not named
            is_height = "height" in named or not named
        if is_width:
            width = factor
        if is_height:
            height = factor
    return width, height
