"""Skill retrieval: which remembered skill fits a task, with which values, and whether to run it.

Offline, dependency-free TF-IDF over light-stemmed words (:mod:`.task_words`); a skill's document
is its name, description and examples. Values are masked per skill before indexing and scoring
(:mod:`.parameter_filling` says which words are values and which parameter each fills).

A false run (a skill run for the wrong task) is the costly error, so ``confident`` is strict:
score >= MIN_SCORE, a lead of MIN_MARGIN over the next skill, the skill not flagged, every
required parameter filled, no value (other than a quote) left over, every content word of the
task (this skill's values masked, stopwords and markers dropped) in the skill's document, and
a value given as "<kind> named X" only where the examples name that kind ("a folder named X").
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .models import Skill
from .parameter_filling import (
    Fill,
    SkillEntry,
    document_key,
    fill_values,
    leftover_terms,
    objection_to,
    skill_entry,
)
from .task_words import NOT_CONTENT, Token, content_terms, stem, tokenize

MIN_SCORE = 0.35    # score the best skill must reach to run (correct runs score 0.54 and up)
MIN_MARGIN = 0.05   # ... and its lead over the next skill (smallest correct lead: 0.09)


@dataclass(frozen=True)
class Recall:
    skill: Skill
    score: float
    values: dict[str, str | float]
    confident: bool
    why: str


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
        self._entries: dict[str, SkillEntry] = {}
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
            if old is not None and old.key == document_key(skill):
                old.skill = skill
                continue
            if old is not None:
                self._forget(skill.name)
            entry = skill_entry(skill)
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

    def _flatten(self, entry: SkillEntry) -> tuple[list[int], list[float], list[int]]:
        """(term ids, 1 + log tf, vector number) of the entry's vectors: document, then examples."""
        ids, tfs, vecs = [], [], []
        for j, counts in enumerate(self._counts(entry)):
            for term, c in counts.items():
                ids.append(self._term_ids.setdefault(term, len(self._term_ids)))
                tfs.append(1 + math.log(c))
                vecs.append(j)
        return ids, tfs, vecs

    @staticmethod
    def _counts(entry: SkillEntry) -> list[Counter[str]]:
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

    def _judge(self, k: int, toks: list[Token], post: _Postings) -> tuple[float, Fill, str, int]:
        entry = post.entries[k]
        vectors = post.vectors.get(k)
        if vectors is None:
            vectors = post.vectors[k] = [self._vector(x, post) for x in self._counts(entry)]
        fill = fill_values(entry, toks)
        query = self._vector(Counter(leftover_terms(toks, fill)), post)
        cos = [sum(w * vec.get(t, 0.0) for t, w in query.items()) for vec in vectors]
        score = (cos[0] + max(cos[1:], default=cos[0])) / 2
        return score, fill, objection_to(entry, toks, fill), k

    def _judged(self, toks: list[Token], need: int, *, prune: bool = True
                ) -> list[tuple[float, Fill, str, int]]:
        """The ``need`` best (score, fill, objection, entry number), best first (ties by name)."""
        post = self._index()
        name = lambda j: post.entries[j[3]].skill.name  # noqa: E731
        if not prune:
            order = sorted((self._judge(k, toks, post) for k in range(len(post.entries))),
                           key=lambda j: (-j[0], name(j)))
            return order[:need]
        bounds, candidates = post.bounds(toks)
        judged: list[tuple[float, Fill, str, int]] = []
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
