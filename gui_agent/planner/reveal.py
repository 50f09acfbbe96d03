"""Clauses that say *how* to look for the thing a task then names.

'Switch between the tabs to find and click on the link "nibh"', 'Expand the sections below,
to find and click on "massa"': the first clause is no step of its own but the way to search
for the quoted target; the plural noun says what to open, one at a time, until it shows.
"""

from __future__ import annotations

import re

_REVEAL_RE = re.compile(
    r"^(?:please\s+)?(?:switch|move|go|click|cycle|flip|navigate|look|browse|search)\s+"
    r"(?:between|through|across|among)\s+(?:all\s+)?(?:of\s+)?(?:the\s+)?(?P<a>[a-z]+)\s*$"
    r"|^(?:please\s+)?(?:expand|open|unfold|check)\s+(?:all\s+)?(?:of\s+)?(?:the\s+)?"
    r"(?P<b>[a-z]+)(?:\s+(?:below|above|here|on\s+the\s+page))?\s*$",
    re.IGNORECASE,
)


def reveal_noun(clause: str) -> str | None:
    """The singular noun of what a search clause opens one by one ("tab" for 'switch between
    the tabs'), or None when the clause is not one (a plural is required: 'expand the section'
    is a step of its own)."""
    match = _REVEAL_RE.match(clause.strip().rstrip(".,;"))
    if match is None:
        return None
    word = (match.group("a") or match.group("b")).lower()
    if len(word) < 4 or not word.endswith("s") or word.endswith("ss"):
        return None
    if word.endswith(("xes", "ches", "shes", "sses")):
        return word[:-2]
    return word[:-1]
