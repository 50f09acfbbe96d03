"""Skill retrieval: which remembered skill fits a task, with which values, and whether to run it.

Offline, dependency-free TF-IDF over light-stemmed words; a skill's document is its name,
description and examples. Values are masked per skill before indexing and scoring: a value is a
*span*, strong (a quoted string, an e-mail address, a file name like ``notes.txt``, a number) or
weak (the word after "named", "called", "as", "to", "for", "under", or after a word naming one of
the skill's parameters: "password secret", "contact Bob"). Spans go to parameters by
1. the parameter's name next to the span ("password X"; "X into the Username field"),
2. the shape of the skill's examples: neighbouring words that match those around the value an
   example gave that parameter ("add an item named X"; not used on the examples themselves),
3. a choice parameter's choices appearing anywhere ("make the accent colour yellow"),
4. order of appearance, spans after a marker first.
A quoted string that fills no parameter ('click "Log in"') counts as words.

A false run (a skill run for the wrong task) is the costly error, so ``confident`` is strict:
score >= MIN_SCORE, a lead of MIN_MARGIN over the next skill, the skill not flagged, every
required parameter filled, no value (other than a quote) left over, every content word of the
task (this skill's values masked, stopwords and markers dropped) in the skill's document, and
a value given as "<kind> named X" only where the examples name that kind ("a folder named X").
"""

from __future__ import annotations

import functools
import itertools
import math
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError
from ..secrets import secret_env_var
from .models import PLACEHOLDER_RE, Skill, SkillParameter

MIN_SCORE = 0.35    # score the best skill must reach to run (correct runs score 0.54 and up)
MIN_MARGIN = 0.05   # ... and its lead over the next skill (smallest correct lead: 0.09)
SHAPE_MIN = 3       # context agreement with an example needed to take a value by shape

_TOKEN_RE = re.compile(r"""
    "(?P<dq>[^"]*)" | “(?P<cq>[^”]*)” | ‘(?P<sq2>[^’]*)’ | (?<![\w'])'(?P<sq>[^']*)'(?!\w)
  | (?P<email>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)
  | (?P<num>-?\d+(?:\.\d+)?)(?!\w|\.\w)
  | (?P<file>[\w-]+(?:\.[A-Za-z0-9]{1,6})+)
  | (?P<word>[^\W_]+(?:['’][^\W_]+)?)
""", re.VERBOSE)
_STOP_TEXT = """
    a an the this that these those it its i me my mine we us our you your he she they them
    please kindly could would can will shall should may might must do does did be is are was
    were been being am to of in on at into onto from with by for as and or then also just now
    so too up there here what which who whom whose when where how than thanks thank hey hi
    go want like need let lets using use via some
"""
STOPWORDS = frozenset(_STOP_TEXT.split())
MARKERS = frozenset({"named", "called", "titled", "as", "to", "for", "under"})
NOT_CONTENT = STOPWORDS | MARKERS
NAMING = frozenset({"named", "called", "titled"})   # "<kind of thing> named <value>"
SAME = {"press": "click", "hit": "click", "tap": "click"}   # UI verbs that mean the same
_UI_TEXT = ("field box button tab menu dialog window page list checkbox dropdown option entry link icon text "
            "area pane panel bar toolbar column row cell")
UI_NOUNS = frozenset(_UI_TEXT.split()) | frozenset(w + "s" for w in _UI_TEXT.split())
_NO_ING = frozenset({"setting", "string", "during", "morning", "evening", "bring", "ring", "spring"})


@dataclass(frozen=True)
class Recall:
    skill: Skill
    score: float
    values: dict[str, str | float]
    confident: bool
    why: str


@dataclass(frozen=True)
class Token:
    kind: str    # quote | email | num | file | word
    text: str    # as written (a quote's inside)
    low: str


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """Light stemming: plurals, -ing, -ed and a final -e ('saving', 'saved', 'save' -> 'sav').
    Remembered per word: a library's words recur, and indexing stems each many times."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ing", "ed"):
        base = w[:-len(suffix)]
        if w.endswith(suffix) and len(base) >= 3 and w not in _NO_ING and not base.endswith(("e", "th")):
            w = base[:-1] if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz" else base
            break
    w = SAME.get(w, w)
    return w[:-1] if len(w) > 3 and w.endswith("e") else w


def tokenize(text: str) -> list[Token]:
    """Words and values of ``text`` in order; punctuation is dropped."""
    found = ((m.lastgroup or "word", m.group(m.lastgroup or "word").strip())
             for m in _TOKEN_RE.finditer(text))
    return [Token("quote" if kind in ("dq", "cq", "sq", "sq2") else kind, value, value.lower())
            for kind, value in found if value]


def content_terms(text: str) -> list[str]:
    """Stems of the non-stopword words of ``text``, values masked (what the index compares)."""
    return [stem(t.low) for t in tokenize(text) if t.kind == "word" and t.low not in NOT_CONTENT]


def _names_param(low: str, param: SkillParameter) -> bool:
    """Whether the word refers to the parameter ('retry' -> retries, 'user' -> username)."""
    name = param.name.lower()
    parts = [name, *(p for p in name.split("_") if len(p) >= 3)]
    return any(stem(low) == stem(p) or (len(low) >= 4 and (p.startswith(low) or p.endswith(low)))
               for p in parts)


def _coerce(param: SkillParameter, text: str) -> str | float:
    """The value in the parameter's type (a choice matched case-insensitively); ConfigError."""
    if param.kind == "choice":
        text = next((c for c in param.choices if c.lower() == text.lower()), text)
    return param.coerce(text)


@dataclass
class _Fill:
    values: dict[str, str | float] = field(default_factory=dict)
    at: dict[str, int] = field(default_factory=dict)     # parameter -> the token holding its value
    name_words: set[int] = field(default_factory=set)    # tokens naming a parameter
    missing: list[str] = field(default_factory=list)     # required parameters left empty
    loose: list[str] = field(default_factory=list)       # values (not quotes) no parameter took
    unfit: str = ""                                      # why a value found did not fit

    used = property(lambda self: set(self.at.values()))  # token indices holding a value

@dataclass
class _Entry:
    skill: Skill
    order: tuple[SkillParameter, ...]                    # parameters by first use in the steps
    shapes: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # (param, context)
    heads: dict[str, set[str]] = field(default_factory=dict)   # parameter -> words naming its kind
    terms: Counter[str] = field(default_factory=Counter)
    examples: list[Counter[str]] = field(default_factory=list)
    key: tuple[Any, ...] = ()                            # what the entry was built from


def _document(skill: Skill) -> tuple[Any, ...]:
    """Everything an entry is built from: a skill whose document is unchanged (only its
    statistics moved) keeps its entry."""
    return (skill.name, skill.description, skill.examples, skill.parameters,
            tuple(step.action for step in skill.steps))


def _context(toks: list[Token], i: int) -> tuple[str, ...]:
    """The words two before and two after token ``i`` (values read as '<v>')."""
    keys = ["^", "^", *(stem(t.low) if t.kind == "word" else "<v>" for t in toks), "^", "^"]
    return keys[i + 1], keys[i], keys[i + 3], keys[i + 4]


def _entry(skill: Skill) -> _Entry:
    first_use: dict[str, int] = {}
    for n, step in enumerate(skill.steps):
        for name in PLACEHOLDER_RE.findall(step.action):
            first_use.setdefault(name, n)
    entry = _Entry(skill, tuple(sorted(skill.parameters, key=lambda p: first_use.get(p.name, 99))),
                   key=_document(skill))
    entry.terms.update(content_terms(f"{skill.name.replace('_', ' ')} {skill.description}"))
    for example in skill.examples:
        toks = tokenize(example)
        fill = _fill(entry, toks, use_shapes=False)
        for name, i in fill.at.items():
            entry.shapes.append((name, _context(toks, i)))
            entry.heads.setdefault(name, set()).add(stem(_head(toks, i)))
        entry.examples.append(Counter(_leftover_terms(toks, fill)))
        entry.terms.update(entry.examples[-1])
    return entry


def _head(toks: list[Token], i: int) -> str:
    """The nearest content word before token ``i`` ('folder' in 'a folder named X'), or ''."""
    return next((t.low for t in reversed(toks[:i]) if t.kind == "word" and t.low not in NOT_CONTENT), "")


def _misnamed(entry: _Entry, toks: list[Token], fill: _Fill) -> str | None:
    """A value given as '<kind> named X' where the kind is not what the parameter's examples name."""
    for name, i in fill.at.items():
        if i and toks[i - 1].low in NAMING:
            head = _head(toks, i - 1)
            param = next(p for p in entry.order if p.name == name)
            if head and stem(head) not in entry.heads.get(name, ()) and not _names_param(head, param):
                return head
    return None


def _leftover_terms(toks: list[Token], fill: _Fill) -> list[str]:
    """Content stems of the tokens that hold no value (a loose quote counts as its words)."""
    used = fill.used
    return [term for i, t in enumerate(toks) if i not in used for term in (
        [stem(t.low)] if t.kind == "word" and t.low not in NOT_CONTENT
        else content_terms(t.text) if t.kind == "quote" else [])]


def _spans(toks: list[Token], params: Sequence[SkillParameter]) -> dict[int, bool]:
    """Value spans: token index -> True when strong, False when weak (a word after a marker or
    after a word naming a parameter, itself no stopword, UI noun or parameter name)."""
    spans = {}
    for i, t in enumerate(toks):
        if t.kind != "word":
            spans[i] = True
        elif i and toks[i - 1].kind == "word" and t.low not in STOPWORDS | MARKERS | UI_NOUNS \
                and not any(_names_param(t.low, p) for p in params) and (
                toks[i - 1].low in MARKERS or any(_names_param(toks[i - 1].low, p) for p in params)):
            spans[i] = False
    return spans


def _fill(entry: _Entry, toks: list[Token], *, use_shapes: bool = True) -> _Fill:
    """Give the task's value spans to the skill's parameters (rules in the module docstring)."""
    fill, params = _Fill(), entry.order
    spans = _spans(toks, params)
    required = sum(p.default is None for p in params)
    if required and sum(spans.values()) >= required:
        # Quoted values (and numbers) enough for every required parameter: an unquoted word is
        # part of the sentence ("the text area"), not a value.
        spans = {i: strong for i, strong in spans.items() if strong}

    def take(i: int, p: SkillParameter) -> bool:
        quantity = toks[i].kind == "num" and i + 1 < len(toks) and toks[i + 1].low not in NOT_CONTENT
        if i in fill.used or p.name in fill.at or (quantity and p.kind != "number"):  # "3 items"
            return False
        try:
            fill.values[p.name] = _coerce(p, toks[i].text)
        except ConfigError as exc:
            fill.unfit = fill.unfit or str(exc)
            return False
        fill.at[p.name] = i
        return True

    claims = []  # (distance, span, parameter): a word naming the parameter next to a value
    for j, t in enumerate(toks):
        for p in (p for p in params if t.kind == "word" and _names_param(t.low, p)):
            fill.name_words.add(j)
            backward = j + 1 < len(toks) and toks[j + 1].low in UI_NOUNS  # "X into the Name field"
            reach = range(j - 1, max(j - 5, -1), -1) if backward else range(j + 1, min(j + 4, len(toks)))
            near = next((i for i in reach if i in spans), None)
            if near is not None:
                claims.append((abs(near - j), near, p))
    for _, i, p in sorted(claims, key=lambda c: c[:2]):
        take(i, p)
    if use_shapes:
        scored = []
        for i, strong in spans.items():
            ctx = _context(toks, i)
            for n, p in enumerate(params):
                best = max((sum(w for w, x, y in zip((3, 1, 2, 1), ctx, c, strict=True) if x == y)
                            for name, c in entry.shapes if name == p.name), default=0)
                if best >= SHAPE_MIN:
                    scored.append((-best, not strong, i, n))
        for _, _, i, n in sorted(scored):
            take(i, params[n])
    for p in (p for p in params if p.kind == "choice" and p.name not in fill.at):
        choices = {c.lower() for c in p.choices}
        next((i for i, t in enumerate(toks) if t.low in choices and take(i, p)), None)
    after_marker = {i for i in spans if i and toks[i - 1].low in MARKERS}
    rest = sorted((i for i, strong in spans.items() if strong or i in after_marker),
                  key=lambda i: (i not in after_marker, i))
    for p in params:
        next((i for i in rest if take(i, p)), None)
        if p.name not in fill.at:
            secret = os.environ.get(secret_env_var(p.name)) if p.secret else None
            if secret is not None:   # a password the person keeps in the environment, not in the task
                fill.values[p.name] = secret
            elif p.default is None:
                fill.missing.append(p.name)
            else:
                fill.values[p.name] = p.default
    fill.loose = [toks[i].text for i, strong in spans.items()
                  if strong and i not in fill.used and toks[i].kind != "quote"]
    return fill


def fill_parameters(skill: Skill, task: str) -> dict[str, str | float] | None:
    """The values ``task`` gives the skill's parameters (else defaults); None if one is missing."""
    fill = _fill(_entry(skill), tokenize(task))
    return None if fill.missing else fill.values


def _objection(entry: _Entry, toks: list[Token], fill: _Fill) -> str:
    """Why this skill may not run this task ('' when nothing speaks against it)."""
    if fill.missing:
        unfit = f" ({fill.unfit})" if fill.unfit else ""
        return f"the task gives no value for {', '.join(fill.missing)}{unfit}"
    if fill.loose:
        return f"the skill has no parameter for the value {fill.loose[0]!r}"
    used = fill.used | fill.name_words
    words = [(t.low, stem(t.low)) for i, t in enumerate(toks) if i not in used
             and t.kind == "word" and t.low not in NOT_CONTENT]
    words += [(w, w) for i, t in enumerate(toks) if i not in used and t.kind == "quote"
              for w in content_terms(t.text)]
    unknown = next((word for word, term in words if term not in entry.terms), None)
    if unknown:
        return f"{unknown!r} appears nowhere in the skill's description or examples"
    misnamed = _misnamed(entry, toks, fill)
    return f"the task names a {misnamed!r}, which the skill's examples never name" if misnamed else ""


class SkillIndex:
    """Ranks skills for a task and decides whether the best may run. The score is the mean of the
    TF-IDF cosines against the skill's whole document and against its nearest example (which
    separates skills with overlapping words: a login, and one that also ticks "Remember me").

    The index is kept, not rebuilt per task: :meth:`update` and :meth:`remove` change it as
    skills change (an entry is rebuilt only when its skill's document changed). A task is ranked
    through an inverted index: only skills sharing a term with it can score above zero, and they
    are scored best bound first, until no bound left can reach the places asked for (the bound of
    a cosine is the norm of the skill's vector over the task's terms; Cauchy-Schwarz). The
    ranking is exactly the one that scoring every skill gives.
    """

    def __init__(self, skills: Sequence[Skill] = ()) -> None:
        self._entries: dict[str, _Entry] = {}
        self._df: Counter[str] = Counter()     # skills whose document holds the term
        self._term_ids: dict[str, int] = {}
        self._flat: dict[str, tuple[list[int], list[float], list[int]]] = {}
        self._postings: _Postings | None = None  # None: to be made again (the skills changed)
        self.update(skills)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self._entries)

    # -- keeping the index -------------------------------------------------------------------
    def update(self, skills: Iterable[Skill]) -> None:
        """Add skills, or replace those of the same name (their entries kept when only their
        statistics changed)."""
        for skill in skills:
            old = self._entries.get(skill.name)
            if old is not None and old.key == _document(skill):
                old.skill = skill
                continue
            if old is not None:
                self._forget(skill.name)
            entry = _entry(skill)
            self._entries[skill.name] = entry
            self._df.update(entry.terms.keys())
            self._flat[skill.name] = self._flatten(entry)
            self._postings = None

    def remove(self, names: Iterable[str]) -> None:
        for name in names:
            if name in self._entries:
                self._forget(name)
                self._postings = None

    def _forget(self, name: str) -> None:
        entry = self._entries.pop(name)
        del self._flat[name]
        for term in entry.terms:
            self._df[term] -= 1
            if self._df[term] <= 0:
                del self._df[term]

    def _flatten(self, entry: _Entry) -> tuple[list[int], list[float], list[int]]:
        """(term ids, 1 + log tf, vector number) of the entry's vectors: document, then examples."""
        ids, tfs, vecs = [], [], []
        for j, counts in enumerate(self._counts(entry)):
            for term, c in counts.items():
                ids.append(self._term_ids.setdefault(term, len(self._term_ids)))
                tfs.append(1 + math.log(c))
                vecs.append(j)
        return ids, tfs, vecs

    @staticmethod
    def _counts(entry: _Entry) -> list[Counter[str]]:
        return [entry.terms, *(x for x in entry.examples if x)]

    def _index(self) -> _Postings:
        if self._postings is None:
            self._postings = _Postings(self)
        return self._postings

    # -- scoring -----------------------------------------------------------------------------
    def _vector(self, terms: Counter[str], post: _Postings) -> dict[str, float]:
        vec = {t: (1 + math.log(c)) * post.idf(t) for t, c in terms.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        return {t: v / norm for t, v in vec.items()}

    def _judge(self, k: int, toks: list[Token], post: _Postings) -> tuple[float, _Fill, str, int]:
        entry = post.entries[k]
        vectors = post.vectors.get(k)
        if vectors is None:
            vectors = post.vectors[k] = [self._vector(x, post) for x in self._counts(entry)]
        fill = _fill(entry, toks)
        query = self._vector(Counter(_leftover_terms(toks, fill)), post)
        cos = [sum(w * vec.get(t, 0.0) for t, w in query.items()) for vec in vectors]
        score = (cos[0] + max(cos[1:], default=cos[0])) / 2
        return score, fill, _objection(entry, toks, fill), k

    def _judged(self, toks: list[Token], need: int, *, prune: bool = True
                ) -> list[tuple[float, _Fill, str, int]]:
        """The ``need`` best (score, fill, objection, entry number), best first (ties by name)."""
        post = self._index()
        name = lambda j: post.entries[j[3]].skill.name  # noqa: E731
        if not prune:
            order = sorted((self._judge(k, toks, post) for k in range(len(post.entries))),
                           key=lambda j: (-j[0], name(j)))
            return order[:need]
        bounds, candidates = post.bounds(toks)
        judged: list[tuple[float, _Fill, str, int]] = []
        floor = -1.0   # the need-th best score so far
        for k in candidates:
            if len(judged) >= need and bounds[k] < floor:
                break
            judged.append(self._judge(k, toks, post))
            if len(judged) >= need:
                judged.sort(key=lambda j: (-j[0], name(j)))
                del judged[need:]
                floor = judged[-1][0]
        if len(judged) < need:   # skills that share no term score 0: they follow, by name
            chosen = set(candidates)
            zeros = (k for k in range(len(post.entries)) if k not in chosen)
            judged += [self._judge(k, toks, post) for k in itertools.islice(zeros, need)]
        return sorted(judged, key=lambda j: (-j[0], name(j)))[:need]

    def rank(self, task: str, limit: int = 3) -> list[Recall]:
        """The ``limit`` best skills for ``task``, best first; only the first may be confident."""
        toks = tokenize(task)
        if not toks or not self._entries or limit <= 0:
            return []
        judged = self._judged(toks, max(limit, 2))
        post = self._index()
        out = []
        for n, (score, fill, objection, k) in enumerate(judged[:limit]):
            confident, why = False, f"ranked {n + 1} (score {score:.2f})"
            if n == 0:
                second, _, _, other = judged[1] if len(judged) > 1 else (0.0, None, "", None)
                confident, why = self._decide(post, k, score, objection, second, other)
            out.append(Recall(post.entries[k].skill, round(score, 4), dict(fill.values),
                              confident, why))
        return out

    @staticmethod
    def _decide(post: _Postings, k: int, score: float, objection: str, second: float,
                other: int | None) -> tuple[bool, str]:
        skill = post.entries[k].skill
        over = f" over {post.entries[other].skill.name!r}" if other is not None else ""
        if skill.flagged:
            return False, f"not run: skill {skill.name!r} is flagged (it kept failing recently)"
        if score < MIN_SCORE:
            return False, f"not run: score {score:.2f} is under {MIN_SCORE}"
        if score - second < MIN_MARGIN:
            return False, f"not run: score {score:.2f} is too close to {second:.2f}{over}"
        if objection:
            return False, f"not run: {objection}"
        return True, f"run: score {score:.2f}, {score - second:.2f} ahead{over}"

    def best(self, task: str) -> Recall | None:
        """The best skill when it is confident enough to run, else None."""
        top = self.rank(task, 1)
        return top[0] if top and top[0].confident else None


def _token_terms(toks: list[Token]) -> list[list[str]]:
    """The terms each token of a task adds to a skill's query when no value takes it."""
    return [[stem(t.low)] if t.kind == "word" and t.low not in NOT_CONTENT
            else content_terms(t.text) if t.kind == "quote" else [] for t in toks]


class _Postings:
    """The numbers of one state of a :class:`SkillIndex` (made again after skills change):
    entries by name, IDF, and per term the normalised weights of the vectors holding it (numpy
    arrays), from which :meth:`bounds` bounds every skill's score for a task."""

    def __init__(self, index: SkillIndex) -> None:
        import numpy as np

        names = sorted(index._entries)
        self.entries = [index._entries[n] for n in names]
        self.n = len(names)
        self._df, self._ids = index._df, index._term_ids
        self._idf: dict[str, float] = {}
        self._rare = math.log(1 + self.n) + 1
        self.vectors: dict[int, list[dict[str, float]]] = {}
        flats = [index._flat[n] for n in names]
        per_entry = np.array([max(f[2], default=0) + 1 for f in flats], np.int64)
        self.first = np.concatenate(([0], np.cumsum(per_entry)[:-1])).astype(np.int64)
        count = int(per_entry.sum())
        ids = np.fromiter((i for f in flats for i in f[0]), np.int64)
        tf = np.fromiter((x for f in flats for x in f[1]), np.float64, len(ids))
        vec = np.fromiter((v for f in flats for v in f[2]), np.int64, len(ids))
        vec += np.repeat(self.first, [len(f[2]) for f in flats])
        df = np.zeros(len(self._ids), np.float64)
        for term, c in self._df.items():
            df[self._ids[term]] = c
        w = tf * (np.log((1 + self.n) / (1 + df[ids])) + 1)
        norm = np.sqrt(np.bincount(vec, w * w, minlength=count))
        order = np.argsort(ids, kind="stable")
        self._terms, self._vec, self._w = ids[order], vec[order], (w / norm[vec])[order]
        self._count = count
        self._has_examples = per_entry > 1
        # values a skill's parameters take leave its query: at most one token per parameter
        params = np.array([len(e.skill.parameters) for e in self.entries], np.int64)
        self._params = np.repeat(params, per_entry)       # per vector
        self._param_counts = sorted(set(params.tolist()))

    def idf(self, term: str) -> float:
        value = self._idf.get(term)
        if value is None:
            c = self._df.get(term, 0)
            value = self._idf[term] = math.log((1 + self.n) / (1 + c)) + 1 if c > 0 else self._rare
        return value

    def bounds(self, toks: list[Token]) -> tuple[Any, list[int]]:
        """Per skill, an upper bound of its score for the task; and the skills that share a
        term with it, highest bound first.

        A skill's query is the task's terms less those of the tokens its parameters take (one
        each at most): its weight on a term is at most ``v_t / |v|`` with ``|v|`` as small as
        taking the heaviest tokens can make it, and at most 1. A cosine is bounded by that
        query against the skill's vector, and by the norm of the vector over the task's terms.
        """
        import numpy as np

        per_token = _token_terms(toks)
        counts = Counter(t for terms in per_token for t in terms)
        known = sorted((self._ids[t], t) for t in counts if t in self._ids)
        if not known:
            return np.zeros(self.n), []
        weight = {t: (1 + math.log(c)) * self.idf(t) for t, c in counts.items()}
        total = sum(v * v for v in weight.values())
        heavy = sorted((sum(weight[t] ** 2 for t in set(terms)) for terms in per_token), reverse=True)
        ids = [i for i, _ in known]
        starts = np.searchsorted(self._terms, ids, "left").tolist()
        ends = np.searchsorted(self._terms, ids, "right").tolist()
        spans = [(a, b, weight[t]) for a, b, (_, t) in zip(starts, ends, known, strict=True) if b > a]
        if not spans:
            return np.zeros(self.n), []
        vec = np.concatenate([self._vec[a:b] for a, b, _ in spans])
        w = np.concatenate([self._w[a:b] for a, b, _ in spans])
        v = np.concatenate([np.full(b - a, v_t) for a, b, v_t in spans])
        bound = np.sqrt(np.bincount(vec, w * w, minlength=self._count))   # Cauchy-Schwarz
        params = self._params[vec]
        dot = np.zeros(self._count)
        for p in self._param_counts:
            least = math.sqrt(max(total - sum(heavy[:p]), 0.0))
            mine = params == p
            q = np.minimum(1.0, v[mine] / least) if least > 0 else np.ones(int(mine.sum()))
            dot += np.bincount(vec[mine], q * w[mine], minlength=self._count)
        bound = np.minimum(bound, dot)
        doc = bound[self.first]
        examples = bound.copy()
        examples[self.first[self._has_examples]] = 0.0   # max over the examples, else the document
        best = np.maximum.reduceat(examples, self.first)
        # a little slack: these sums are made in another order than the scores they bound
        bounds = (doc + best) / 2 * (1 + 1e-9) + 1e-12
        touched = np.flatnonzero(doc + best > 0)
        candidates = touched[np.argsort(-bounds[touched], kind="stable")]
        return bounds, candidates.tolist()
