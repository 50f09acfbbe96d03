"""'Click the 8th search result' on a list shown three at a time: turning its pages.

When a planned click on "the Nth X" finds no Nth X, the worker counts the Xs the screen shows
(k of them, fewer than N; the pager's own controls, which may read as Xs too, are not counted:
``targets.pager_words`` and page numbers), clicks the list's next-page control (a text reading
one of ``targets.next_page_words``: Next, >, ›, ...) and looks for the (N-k)th X on the next
page, and so on, at most MAX_PAGES pages. A page that shows no X, a list with no
next-page control, or a control that changes nothing ends the attempt as before (the target
was not found).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..actions import Action, Click
from ..grounding.description import ordinal_word
from . import vocabulary as vocab
from .base import Subtask

MAX_PAGES = 10
MAX_PAGER_CHARS = 16     # a line this short ending in a next-page symbol is a pager
_NTH = re.compile(r"^the (\d+)(?:st|nd|rd|th) (.+)$")
_WORD = re.compile(r"[^\W\d_]{2}")    # two letters in a row: a word, not page numbers


def paged_target(subtask: Subtask) -> tuple[int, str] | None:
    """(N, what) when the subtask is one click on "the Nth <what>", N > 1."""
    if len(subtask.actions) != 1 or not isinstance(subtask.actions[0], Click):
        return None
    target = subtask.actions[0].target
    m = _NTH.match(target) if isinstance(target, str) else None
    if m is None or int(m.group(1)) < 2:
        return None
    return int(m.group(1)), m.group(2)


def next_page_word(lines: Sequence[str]) -> str | None:
    """The caption of the next-page control among the screen's text lines: a line or a word
    reading one of the next-page words ('Next'), or the arrow that ends a short line of page
    numbers ('1 2 3 >', read without its spaces as '123>')."""
    for line in lines:
        short = line.strip()
        if short.lower() in vocab.NEXT_PAGE_WORDS:
            return short
        if len(short) <= MAX_PAGER_CHARS and _WORD.search(short) is None:
            symbol = next((c for c in reversed(short) if c in vocab.NEXT_PAGE_WORDS), None)
            if symbol is not None:
                return symbol
        for token in short.split():
            if _WORD.search(token) and token.lower() in vocab.NEXT_PAGE_WORDS:
                return token
    return None


def list_items(texts: Sequence[str]) -> int:
    """How many of the texts an item description named are items, not the pager's controls."""
    pager = set(vocab.NEXT_PAGE_WORDS) | set(vocab.PAGER_WORDS)
    return sum(1 for t in texts if t.strip().lower() not in pager and not t.strip().isdigit())


@dataclass
class PagingRun:
    """The pages one attempt has turned: how many items they held, the last page click."""

    passed: int = 0
    pages: int = 0
    click: Click | None = None

    def retarget(self, planned: Click, paged: tuple[int, str]) -> Click:
        """The planned click, counted from the first item of the page now shown."""
        if not self.passed:
            return planned
        n, what = paged
        return Click(f"the {ordinal_word(n - self.passed)} {what}", planned.button, planned.clicks)

    def turn(self, paged: tuple[int, str], named: Sequence[str], lines: Sequence[str]) -> Action | None:
        """The click to the next page when the items this page shows (``named``: the texts of
        what the item description names) are too few to hold the one wanted; None when paging
        does not apply (or has gone on long enough)."""
        n, _ = paged
        shown = list_items(named)
        if shown <= 0 or shown >= n - self.passed or self.pages >= MAX_PAGES:
            return None
        word = next_page_word(lines)
        if word is None:
            return None
        self.passed += shown
        self.pages += 1
        self.click = Click(f'"{word}"')
        return self.click
