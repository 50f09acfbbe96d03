"""One part of each of several records of a name: 'Click the "Share" button on 3 posts by
@ann', '... on all posts by @ann', 'click Delete on every row from Bo Park'.

The planner reads the clause into one click whose target says which records
(``the "Share" button after each of 3 "@ann"``, ``... after every "@ann"``); when it is due the
worker goes down the list: each record of that name the screen shows whole (its name's row and
at least ``RECORD_LINES`` rows under it) gets the click on 'the part after the Nth name', and a
record is known again after a scroll by what its first two rows say, so none is clicked twice
(a second click undoes a toggle). When the screen shows no record left to do, the list is
scrolled further; it ends when the count is reached, or at the list's end (where the last
records show whole however few rows are under them): 'every' is then done, a count not
reached is a failure that says how many were found. A retry of the subtask keeps the records
done.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher

from ..actions import Action, Click, Done, Fail, Scroll, format_action
from ..errors import NOT_FOUND
from ..grounding.description import ordinal_word
from . import vocabulary as vocab
from .base import StepRecord, Subtask
from .clauses import Clause
from .phrases import Tokens, desc, lower_word, number, quote

RECORD_LINES = 2         # rows under a record's name that show its parts
SAME_RECORD = 0.85       # how alike two readings of a record's first rows are to be the same one
_EVERY = "every"
_TARGET = re.compile(r"^(?P<part>.+) after (?:each of (?P<count>\d+)|every) "
                     r"(?P<name>\"[^\"]+\"|'[^']+')$")
_SIGN = re.compile(r"[\W_]+")


@dataclass(frozen=True)
class EachRecord:
    """The part to click (``part``) in ``count`` records named ``name`` (None: all of them)."""

    part: str
    name: str
    count: int | None


def each_record_target(clause: Clause, toks: Tokens) -> str | None:
    """The click target for '<part> on <N|all|every|each> <nouns> by <name>' ('the "Share"
    button on 3 posts by @ann'), None for any other wording."""
    low = [lower_word(t) for t in toks]
    for i in range(1, len(toks) - 3):
        if low[i] not in vocab.RECORD_PLACES:
            continue
        count, at = _count(low, i + 1)
        if count is None or at + 2 >= len(toks) or low[at + 1] not in vocab.RECORD_MARKS:
            continue
        noun = toks[at]
        if clause.quoted(noun) is not None or not noun.isalpha():
            continue
        name_toks = toks[at + 2:]
        name = " ".join(clause.quoted(t) or t for t in name_toks).strip(" ,.")
        if not name:
            continue
        which = "every" if count == _EVERY else f"each of {count}"
        return f"{desc(clause, toks[:i])} after {which} {quote(name)}"
    return None


def _count(low: list[str], at: int) -> tuple[int | str | None, int]:
    """('every' or a number, index of the word after it) for 'all', 'all of the', 'each', '3',
    'three'; (None, at) for anything else."""
    if at >= len(low):
        return None, at
    if low[at] in vocab.UNCOUNTED_WORDS:
        at += 1
        while at < len(low) and low[at] in ("of", *vocab.ARTICLES):
            at += 1
        return _EVERY, at
    value = number([low[at]])
    if value is None or value < 1 or value != int(value):
        return None, at
    return int(value), at + 1


def each_record(subtask: Subtask) -> EachRecord | None:
    """The records a subtask's one click is for, when it is such a click."""
    if len(subtask.actions) != 1 or not isinstance(subtask.actions[0], Click):
        return None
    target = subtask.actions[0].target
    m = _TARGET.match(target) if isinstance(target, str) else None
    if m is None:
        return None
    count = int(m.group("count")) if m.group("count") else None
    return EachRecord(m.group("part"), m.group("name")[1:-1], count)


def _signature(rows: list[str], at: int) -> str:
    return _SIGN.sub("", " ".join(rows[at:at + RECORD_LINES]).lower())


@dataclass
class EachRecordRun:
    """What one attempt has done: the records clicked (by their first rows' reading), the one
    the latest click was for, and the rows shown before the latest scroll."""

    done: list[str] = field(default_factory=list)
    pending: tuple[Click, str] | None = None
    unready: list[str] = field(default_factory=list)    # records whose part was not found
    seen: int = 0                                       # steps accounted for
    ended: bool = False                                 # the list showed its end

    def next(self, each: EachRecord, click: Click, steps: list[StepRecord],
             rows: list[str], whole: bool = False) -> Action | None:
        """The next click on a record not done yet, Done/Fail, or None: nothing left to do on
        this screen (the caller scrolls further, or ends at the list's end). ``whole``: the list
        is at its end, so a record with fewer rows under its name shows all of them."""
        for record in steps[self.seen:]:
            failed = self._account(record)
            if failed is not None:
                return failed
        self.seen = len(steps)
        if each.count is not None and len(self.done) >= each.count:
            return Done()
        word = each.name.lower()
        at = [k for k, row in enumerate(rows) if word in row.lower()]
        for nth, k in enumerate(at, 1):
            if len(rows) - k - 1 < RECORD_LINES and not whole:
                break                       # its parts may lie below the edge
            sign = _signature(rows, k)
            if self._known(sign, self.done) or self._known(sign, self.unready):
                continue
            target = f"{each.part} after the {ordinal_word(nth)} {quote(each.name)}"
            self.pending = (replace(click, target_=target), sign)
            return self.pending[0]
        return None

    def at_end(self, each: EachRecord) -> Action:
        """Done or Fail once the list has no more records to show."""
        if each.count is None and self.done:
            return Done()
        if each.count is None:
            return Fail(f"found no record by {each.name!r} whose {each.part} could be clicked")
        return Fail(f"found {len(self.done)} of the {each.count} records by {each.name!r} to "
                    f"click {each.part} in (the list has no more)")

    def scrolled(self) -> None:
        self.unready = []           # a record whose part was cut off may show it now

    def retried(self) -> None:
        """The subtask tried again: the records clicked stay clicked (clicking one again would
        undo it); the rest starts over."""
        self.pending, self.unready, self.seen, self.ended = None, [], 0, False

    def _account(self, record: StepRecord) -> Action | None:
        if isinstance(record.action, Scroll):
            if record.ok:
                self.scrolled()
            return None
        if self.pending is None or record.action != self.pending[0]:
            return None if record.ok else Fail(f"{format_action(record.action)} failed: {record.note}")
        _, sign = self.pending
        self.pending = None
        if record.ok:
            self.done.append(sign)
        elif record.note.startswith(NOT_FOUND):
            self.unready.append(sign)
        else:
            return Fail(f"{format_action(record.action)} failed: {record.note}")
        return None

    @staticmethod
    def _known(sign: str, signs: list[str]) -> bool:
        return any(SequenceMatcher(None, sign, s).ratio() >= SAME_RECORD for s in signs)
