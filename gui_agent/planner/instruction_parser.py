"""Turn explicit imperative instructions into actions: the offline planner's driver.

A task is cut into clauses (:mod:`.clauses`); each clause starts with a verb phrase and
:mod:`.verbs` reads the rest. A clause it cannot read raises :class:`PlanningError` naming the
clause and the words it could not place. Nothing is ever guessed. "type X" followed by a
clause that is just "press Enter" becomes ``type(X, enter=True)``. The verbs, the words and
the phrasings they read, with an example of each, are data: ``language.yaml``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..actions import Action, Hotkey, Type, target_fields
from ..errors import PlanningError
from ..grounding.target_forms import point_of
from . import vocabulary as vocab
from .clauses import Clause, mask_quotes, match_verb, render, split_clauses
from .more_verbs import instrument_only
from .scoping import found_reading, found_record, scoped, with_reading
from .verbs import read_clause

__all__ = ["Clause", "ParsedInstruction", "mask_quotes", "match_verb", "parse_instructions",
           "render", "spelled_points", "split_clauses", "wanted_state"]


@dataclass(frozen=True)
class ParsedInstruction:
    """What one clause asks for: its actions and an optional text expected afterwards."""

    text: str
    actions: tuple[Action, ...]
    expect: str | None = None


def parse_instructions(task: str) -> list[ParsedInstruction]:
    """Read a whole task; raises :class:`PlanningError` for anything it cannot place."""
    clauses = split_clauses(task)
    if not clauses:
        raise PlanningError(
            "the task is empty: tell me what to do, for example 'click \"OK\"' or "
            f"'type \"Ann\" into the Name field, then press Enter'. I understand: {vocab.VERB_SUMMARY}."
        )
    parsed: list[ParsedInstruction] = []
    record: str | None = None          # the record a scope clause named ('find Ann ...')
    reading: str | None = None         # a text a find clause named to read ('find the 5th word')
    for clause, (actions, expect) in ((c, r) for whole in clauses for c, r in _read(whole)):
        if instrument_only(clause):
            continue                   # 'Using the text editor, ...': the tool, no step
        named = found_record(clause)
        if named is None and record is not None:
            actions = [scoped(a, record) for a in actions]
        if reading is not None:
            actions = [with_reading(a, reading) for a in actions]
        record = named or record
        reading = found_reading(clause) or reading
        item = ParsedInstruction(clause.text, tuple(spelled_points(a) for a in actions), expect)
        prev = parsed[-1] if parsed else None
        if prev is not None and _is_plain_enter(item) and prev.actions and prev.expect is None:
            last = prev.actions[-1]
            if isinstance(last, Type) and not last.enter:
                joined = _joined_text(prev.text, item.text)
                parsed[-1] = ParsedInstruction(joined, (*prev.actions[:-1], replace(last, enter=True)))
                continue
        parsed.append(item)
    return parsed


def _read(clause: Clause) -> list[tuple[Clause, tuple[list[Action], str | None]]]:
    """The clause read; one that cannot be read whole may be two run together without a comma or
    an 'and' ('scroll the list to the bottom hit submit'): read as the two clauses when a verb
    inside it starts a clause that can be read and the words before it can be read too."""
    try:
        return [(clause, read_clause(clause))]
    except PlanningError as whole:
        for k in range(2, len(clause.tokens) - 1):
            if match_verb(clause.tokens[k:]) is None:
                continue
            head, tail = replace(clause, tokens=clause.tokens[:k]), replace(clause, tokens=clause.tokens[k:])
            try:
                return [(head, read_clause(head)), *_read(tail)]
            except PlanningError:
                continue
        raise whole


def spelled_points(action: Action) -> Action:
    """A target written as coordinates ('click (725, 418)', 'click at 725,418') becomes a point."""
    changes = {}
    for name, value in target_fields(action).items():
        point = point_of(value) if isinstance(value, str) else None
        if point is not None:
            changes["target_" if name == "target" else name] = point
    return replace(action, **changes) if changes else action


def _is_plain_enter(item: ParsedInstruction) -> bool:
    return item.expect is None and item.actions == (Hotkey(("enter",)),)


def _joined_text(first: str, second: str) -> str:
    return f"{first} and {second}"


def wanted_state(instruction: str) -> bool | None:
    """For check/uncheck/tick/untick/expand/collapse: the state the target should end in."""
    try:
        clauses = split_clauses(instruction)
    except PlanningError:
        return None
    if len(clauses) != 1:
        return None
    verb = match_verb(clauses[0].tokens)
    return {"check": True, "expand": True, "uncheck": False, "collapse": False}.get(
        verb[0] if verb else "")
