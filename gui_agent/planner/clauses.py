"""A task cut into clauses: quoted texts masked, then cut at separators and connectors.

1. Quoted texts (the marks of :data:`~gui_agent.grounding.description.QUOTES`: ``"…"``,
   ``'…'``, ``“…”``, ``‘…’``, ``„…“``, ``«…»``) are masked first, so nothing inside quotes is
   ever taken for a verb, a separator or a keyword. A ``'`` opens a quote only at the start
   of a word, so apostrophes ("don't", "Ann's") are left alone.
2. The text is cut into clauses: always at ``;``, a new line and a sentence end (``.``,
   ``!``, ``?`` ending a word that is not an abbreviation), and at the strong connectors
   ("then", "and then", "after that", "afterwards", "finally" ...); at the weak ones (``,``,
   "and", "also") only when a known verb follows ('click "Terms and Conditions"', 'click
   Terms and Conditions' and 'type Tom and Jerry' stay one clause; 'type Ann and press
   Enter' becomes two). A search lead ("find and", "locate and") before a verb at the start
   of a clause is dropped ('Find and click on X' is 'click on X').
3. Fillers ("please", "first", "then" ...) are dropped from the ends of each clause.

The words themselves are data: :mod:`.vocabulary` (from ``language.yaml``).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from ..errors import PlanningError
from ..grounding.description import QUOTES
from . import vocabulary as vocab

MAX_TASK_CHARS = 20_000
_OPENERS = {q.opener: q.closers for q in QUOTES}
_WORD_START_ONLY = frozenset(q.opener for q in QUOTES if q.word_start)
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
    ended: str | None = None      # the word with its full stop that ended the last sentence
    for tok in masked.split():
        if ended is not None and sentences[-1] == [] and _goes_on(tok):
            sentences.pop()           # 'give the text cursus. the color red': the stop was the word's
            if sentences[-1] and ended.rstrip(".!?"):
                sentences[-1][-1] = ended
            else:
                sentences[-1].append(ended)
        ended = None
        if tok == ";":
            sentences.append([])
        elif tok[-1] in ".!?" and tok.lower() not in vocab.ABBREVIATIONS and not _PLACEHOLDER.match(tok):
            stripped = tok.rstrip(".!?")
            if stripped:
                sentences[-1].append(stripped)
            sentences.append([])
            ended = tok if tok.endswith(".") and stripped else None
        else:
            sentences[-1].append(tok)
    clauses: list[Clause] = []
    for words in sentences:
        for part in _split_sentence(words):
            tokens = _strip_fillers(part)
            if tokens:
                clauses.append(Clause(tuple(tokens), quotes))
    return clauses


def _goes_on(word: str) -> bool:
    """Whether a sentence that starts with ``word`` goes on with the one before: a lower-case
    article or preposition ('... the text cursus. the style bold'), never a verb or a filler."""
    return word in vocab.CONTINUATION_WORDS


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
    end = _before_purpose(tokens, start, end)
    while end > start:
        k = 1 if tokens[end - 1] == "," else _phrase_len_before(tokens, end, vocab.TRAILING_FILLERS)
        if not k or end - k <= start:
            break
        end -= k
    return tokens[start:end]


def _before_purpose(tokens: list[str], start: int, end: int) -> int:
    """Where a purpose ('to delete it', 'in order to mark it as read') begins, else ``end``."""
    low = [t.lower() for t in tokens]
    for p in range(start + 2, end - 2):
        if low[p] == "to" and low[p + 1].isalpha() and low[p + 2] in vocab.PURPOSE_OBJECTS:
            return p - 2 if low[p - 2:p] == ["in", "order"] and p - 2 > start + 1 else p
    return end


def _phrase_len_before(tokens: list[str], end: int, phrases: tuple[str, ...]) -> int:
    """How many tokens before ``end`` one of ``phrases`` (lower case) covers; 0 if none."""
    best = 0
    for phrase in phrases:
        words = phrase.split(" ")
        if len(words) <= end and [t.lower() for t in tokens[end - len(words):end]] == words:
            best = max(best, len(words))
    return best
