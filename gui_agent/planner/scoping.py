"""Tasks that name a record first and then act inside it: 'Find Vern in the contact book and
click on their phone number', 'For the user @ann, click on the "Share" button', 'Find the email
by Ann and click Reply'.

The first clause (``find`` in ``language.yaml``: find/locate/look for X, 'for [the <noun>] X')
becomes a hover over X's name, looked for page by page when it is not on the screen, or further
down the list (the worker: planner/reveal.py). Every target of the clauses after it is then
looked for *after* X in reading order (the description grammar's 'after' relation): the parts
of a record, a post or a row follow its name. A possessive names a part of that record:
'their "Share" button' is the element so named; a bare noun is a field of the record, the value
shown right of its label ('their phone number' -> right of phone after "Vern": a last word of
``targets.record_field_tails`` is one the label leaves out).
"""

from __future__ import annotations

from dataclasses import replace

from ..actions import Action, Move, Type, target_fields
from ..errors import PlanningError
from ..grounding.description import ROLE_NOUNS
from . import vocabulary as vocab
from .clauses import Clause, match_verb, render, split_clauses
from .phrases import Tokens, fail, lower_word, quote
from .reading import reading_of

FIND = "find"               # the verb kind of a scope clause


def read_find(clause: Clause, toks: Tokens) -> list[Action]:
    """'find Vern in the contact book' -> hover over "Vern" (the record's name); 'find the 5th
    word in the paragraph' is a text to read for the clause after it ('type that into ...'):
    no step of its own."""
    if reading_of(clause, toks) is not None:
        return []
    return [Move(quote(record_name(clause, toks)))]


def found_reading(clause: Clause) -> str | None:
    """The text a find clause names to be read ('find the 5th word in the paragraph')."""
    found = match_verb(clause.tokens)
    if found is None or found[0] != FIND:
        return None
    return reading_of(clause, list(clause.tokens[found[1]:]))


def with_reading(action: Action, reading: str) -> Action:
    """'type that into the box' after 'find the 5th word ...': the typed text is read off the
    screen when the step is due."""
    if isinstance(action, Type) and action.read_from is None and action.text.strip().lower() in vocab.READ_PRONOUNS:
        return replace(action, text="", read_from=reading)
    return action


def record_name(clause: Clause, toks: Tokens) -> str:
    """The name a scope clause gives: its quoted text, the words after 'by'/'from'/'named' ('the
    email by Ann'), or the words left once the place ('in the contact book'), the articles and
    a leading lower-case noun ('the user @ann') are dropped."""
    low = [lower_word(t) for t in toks]
    if "and" in low[1:]:      # 'find the email by Ann and reply to her': a step it cannot read
        rest = toks[low.index("and", 1):]
        raise fail(clause, f"could not place {render(list(rest), clause)!r} after what to find: "
                           "say each step with a verb I know ('find Ann in the list, then click "
                           "her Reply button')")
    quoted = [clause.quoted(t) for t in toks if clause.quoted(t) is not None]
    if len(quoted) == 1:
        return quoted[0] or ""
    marks = [i for i, w in enumerate(low) if w in vocab.RECORD_MARKS]
    words = list(toks[marks[-1] + 1:] if marks else toks)
    low = [lower_word(t) for t in words]
    place = next((i for i, w in enumerate(low) if w in vocab.RECORD_PLACES), len(words))
    words, low = words[:place], low[:place]
    described = bool(words) and low[0] in vocab.ARTICLES
    while words and low[0] in vocab.ARTICLES:
        words, low = words[1:], low[1:]
    if not words:
        raise fail(clause, "it does not say what to find: 'find Ann Lee in the contact book'")
    if words[0].islower() and words[0].isalpha() and (len(words) > 1 or described):
        if len(words) == 1 or not _is_name(words[1:]):
            raise fail(clause, "say whose record to find with its name: 'find Ann Lee in the "
                               "list', 'for the user @ann'")
        words = words[1:]
    return " ".join(words).strip(" ,.")


def _is_name(words: Tokens) -> bool:
    """A name starts with a capital, a digit or a handle sign ('Ann', '@ann', '#42')."""
    first = words[0]
    return first[:1].isupper() or first[:1].isdigit() or first[:1] in "@#"


def scoped(action: Action, name: str) -> Action:
    """``action`` with each of its target descriptions looked for after the record ``name``."""
    changes = {}
    for field_name, value in target_fields(action).items():
        if isinstance(value, str) and value:
            changes["target_" if field_name == "target" else field_name] = in_record(value, name)
    return replace(action, **changes) if changes else action


def in_record(description: str, name: str) -> str:
    """'their phone number' -> 'right of phone after "Vern"'; 'the "Share" button' ->
    'the "Share" button after "Vern"'."""
    words = description.split()
    after = f"after {quote(name)}"
    if not words or lower_word(words[0]) not in vocab.POSSESSIVES:
        return f"{description} {after}"
    part = words[1:]
    if not part:
        return f"{quote(name)}"
    named = any(w.startswith(('"', "'")) for w in part) or \
        any(lower_word(w).rstrip("s") in ROLE_NOUNS for w in part)
    if named:
        return f"the {' '.join(part)} {after}"
    if len(part) > 1 and lower_word(part[-1]) in vocab.RECORD_FIELD_TAILS:
        part = part[:-1]
    return f"right of {' '.join(part)} {after}"


def finds_record(instruction: str) -> bool:
    """Whether an instruction is a scope clause ('Find Vern in the contact book')."""
    try:
        clauses = split_clauses(instruction)
    except PlanningError:
        return False
    found = match_verb(clauses[0].tokens) if len(clauses) == 1 else None
    return found is not None and found[0] == FIND


def found_record(clause: Clause) -> str | None:
    """The record a scope clause names ('find Vern in the book' -> 'Vern'); None for any other."""
    found = match_verb(clause.tokens)
    if found is None or found[0] != FIND or found_reading(clause) is not None:
        return None
    return record_name(clause, list(clause.tokens[found[1]:]))
