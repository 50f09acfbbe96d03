"""Turn explicit imperative instructions into clauses, and each clause into actions.

How a task is read:

1. Quoted texts (``"…"``, ``'…'``, ``“…”``, ``‘…’``, ``„…“``, ``«…»``) are masked first, so
   nothing inside quotes is ever taken for a verb, a separator or a keyword. A ``'`` opens a
   quote only at the start of a word, so apostrophes ("don't", "Ann's") are left alone.
2. The text is cut into clauses: always at ``;``, a new line and a sentence end (``.``,
   ``!``, ``?`` ending a word that is not an abbreviation), and at "then", "and then",
   "after that", "afterwards", "finally"; at ``,``, "and" and "also" only when a known verb
   follows ('click "Terms and Conditions"', 'click Terms and Conditions' and
   'type Tom and Jerry' stay one clause; 'type Ann and press Enter' becomes two).
   "find and", "locate and" before a verb at the start of a clause are dropped ('Find and
   click on X' is 'click on X').
3. Each clause starts with a verb phrase (after fillers such as "please", "first", "then");
   :mod:`.verbs` reads the rest. A clause it cannot read raises :class:`PlanningError` naming
   the clause and the words it could not place. Nothing is ever guessed.
4. "type X" followed by a clause that is just "press Enter" becomes ``type(X, enter=True)``.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace

from ..actions import Action, Hotkey, Type, target_fields
from ..errors import PlanningError
from ..grounding.description import point_of
from . import vocabulary as vocab

MAX_TASK_CHARS = 20_000
_OPENERS = {'"': '"\u201d\u201c', "\u201c": '\u201d"', "\u201e": '\u201c\u201d"', "\u00ab": "\u00bb",
            "\u2018": "\u2019'", "'": "'\u2019", "`": "`"}
_WORD_START_ONLY = frozenset({"'", "\u2018", "`"})
_PLACEHOLDER = re.compile("^\ue000(\\d+)\ue001$")
_PRIVATE = re.compile("[\ue000\ue001]")


@dataclass(frozen=True)
class Clause:
    """One instruction: its words (quoted texts as placeholders) and the task's quotes."""

    tokens: tuple[str, ...]
    quotes: tuple[tuple[str, str], ...]  # (content, as written with its quote marks)
    as_written: str = ""  # set when the tokens are a rewrite ('X by clicking Y' -> 'click Y')

    @property
    def text(self) -> str:
        """The clause as the user wrote it (spacing normalised)."""
        return self.as_written or render(self.tokens, self, original=True)

    def quoted(self, token: str) -> str | None:
        """The text inside the quotes a placeholder token stands for, else None."""
        m = _PLACEHOLDER.match(token)
        return self.quotes[int(m.group(1))][0] if m else None


@dataclass(frozen=True)
class ParsedInstruction:
    """What one clause asks for: its actions and an optional text expected afterwards."""

    text: str
    actions: tuple[Action, ...]
    expect: str | None = None


def render(tokens: tuple[str, ...] | list[str], clause: Clause, original: bool = False) -> str:
    """Words back to text; quoted texts as written (original) or in straight double quotes."""
    out: list[str] = []
    for tok in tokens:
        m = _PLACEHOLDER.match(tok)
        if m:
            content, written = clause.quotes[int(m.group(1))]
            tok = written if original else f'"{content}"'
        if tok == "," and out:
            out[-1] += ","
        else:
            out.append(tok)
    return " ".join(out)


def mask_quotes(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Replace every quoted text by a placeholder word; raises on an unclosed double quote."""
    closers_at = {c: _closer_positions(text, c, closers) for c, closers in _OPENERS.items()}
    out: list[str] = []
    quotes: list[tuple[str, str]] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c in _OPENERS and (c not in _WORD_START_ONLY or i == 0 or not text[i - 1].isalnum()):
            positions = closers_at[c]
            k = bisect.bisect_right(positions, i)
            if k < len(positions):
                j = positions[k]
                quotes.append((text[i + 1:j], text[i:j + 1]))
                out.append(f" \ue000{len(quotes) - 1}\ue001 ")
                i = j + 1
                continue
            if c not in _WORD_START_ONLY:
                near = text[max(0, i - 15):i + 25]
                raise PlanningError(
                    f"I could not understand {text.strip()[:80]!r}: the quote {c} in {near!r} is "
                    "never closed. Put on-screen texts and texts to type between matching quotes."
                )
        out.append(c)
        i += 1
    return "".join(out), tuple(quotes)


def _closer_positions(text: str, opener: str, closers: str) -> list[int]:
    """Where a quote opened by ``opener`` may close (an apostrophe inside a word may not)."""
    word_start_only = opener in _WORD_START_ONLY
    return [k for k, ch in enumerate(text) if ch in closers and not (
        word_start_only and k + 1 < len(text) and text[k + 1].isalnum())]


def _phrase_len(tokens: tuple[str, ...] | list[str], i: int, phrases: tuple[str, ...]) -> int:
    """How many tokens from ``i`` one of ``phrases`` (lower case) covers; 0 if none."""
    best = 0
    for phrase in phrases:
        words = phrase.split(" ")
        if [t.lower() for t in tokens[i:i + len(words)]] == words:
            best = max(best, len(words))
    return best


def match_verb(tokens: tuple[str, ...] | list[str]) -> tuple[str, int] | None:
    """The verb kind the tokens start with and how many tokens its phrase takes."""
    low = [t.lower().rstrip(":") for t in tokens[:6]]
    for n in range(len(low), 0, -1):
        kind = vocab.VERBS.get(" ".join(low[:n]))
        if kind:
            return kind, n
    return None


def _first_non_fillers(tokens: list[str]) -> list[int]:
    """For each position, where the next word that is not a filler or a comma is."""
    n = len(tokens)
    nxt = list(range(n + 1))
    for i in range(n - 1, -1, -1):
        k = _phrase_len(tokens, i, vocab.LEADING_FILLERS) or (1 if tokens[i] == "," else 0)
        if k:
            nxt[i] = nxt[min(i + k, n)]
    return nxt


def split_clauses(task: str) -> list[Clause]:
    """Cut a task into clauses (see the module docstring); empty clauses are dropped."""
    if not isinstance(task, str):
        raise PlanningError("the task must be text")
    if len(task) > MAX_TASK_CHARS:
        raise PlanningError(f"the task is too long ({len(task)} characters; at most {MAX_TASK_CHARS})")
    masked, quotes = mask_quotes(_PRIVATE.sub(" ", task))
    masked = re.sub(r",(?=\s|$)", " , ", masked.replace(";", " ; ").replace("\n", " ; "))
    sentences: list[list[str]] = [[]]
    for tok in masked.split():
        if tok == ";":
            sentences.append([])
        elif tok[-1] in ".!?" and tok.lower() not in vocab.ABBREVIATIONS and not _PLACEHOLDER.match(tok):
            stripped = tok.rstrip(".!?")
            if stripped:
                sentences[-1].append(stripped)
            sentences.append([])
        else:
            sentences[-1].append(tok)
    clauses: list[Clause] = []
    for words in sentences:
        for part in _split_sentence(words):
            tokens = _strip_fillers(part)
            if tokens:
                clauses.append(Clause(tuple(tokens), quotes))
    return clauses


def _split_sentence(words: list[str]) -> list[list[str]]:
    nxt = _first_non_fillers(words)
    parts: list[list[str]] = [[]]
    i = 0
    while i < len(words):
        lead = _phrase_len(words, i, vocab.SEARCH_LEADS) if not parts[-1] else 0
        if lead and i + lead < len(words) and match_verb(words[i + lead:i + lead + 6]) is not None:
            i += lead  # 'find and click X': the click is the step
            continue
        strong = _phrase_len(words, i, vocab.STRONG_CONNECTORS)
        if strong:
            parts.append([])
            i += strong
            continue
        weak = _phrase_len(words, i, vocab.WEAK_CONNECTORS)
        if weak and parts[-1]:
            j = nxt[i + weak]
            if j < len(words) and match_verb(words[j:j + 6]) is not None:
                parts.append([])
                i += weak
                continue
        parts[-1].append(words[i])
        i += 1
    return parts


def _strip_fillers(tokens: list[str]) -> list[str]:
    start, end = 0, len(tokens)
    while start < end:
        k = _phrase_len(tokens, start, vocab.LEADING_FILLERS) or (1 if tokens[start] == "," else 0)
        if not k or (start + k < end and match_verb(tokens[start:start + 6]) is not None):
            break
        start += k
    while end > start and (tokens[end - 1] == "," or tokens[end - 1].lower() in vocab.TRAILING_FILLERS):
        end -= 1
    return tokens[start:end]


def parse_instructions(task: str) -> list[ParsedInstruction]:
    """Read a whole task; raises :class:`PlanningError` for anything it cannot place."""
    from .verbs import read_clause

    clauses = split_clauses(task)
    if not clauses:
        raise PlanningError(
            "the task is empty: tell me what to do, for example 'click \"OK\"' or "
            f"'type \"Ann\" into the Name field, then press Enter'. I understand: {vocab.VERB_SUMMARY}."
        )
    parsed: list[ParsedInstruction] = []
    for clause in clauses:
        actions, expect = read_clause(clause)
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
