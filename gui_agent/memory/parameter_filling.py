"""Which values a task gives a skill's parameters, and whether anything in it speaks against
running the skill.

A value is a *span*, strong (a quoted string, an e-mail address, a file name like ``notes.txt``,
a number) or weak (the word after "named", "called", "as", "to", "for", "under", or after a word
naming one of the skill's parameters: "password secret", "contact Bob"). Spans go to parameters by
1. the parameter's name next to the span ("password X"; "X into the Username field"),
2. the shape of the skill's examples: neighbouring words that match those around the value an
   example gave that parameter ("add an item named X"; not used on the examples themselves),
3. a choice parameter's choices appearing anywhere ("make the accent colour yellow"),
4. order of appearance, spans after a marker first.
A quoted string that fills no parameter ('click "Log in"') counts as words.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError
from ..secrets import secret_env_var
from .models import PLACEHOLDER_RE, Skill, SkillParameter
from .task_words import (
    MARKERS,
    NAMING,
    NOT_CONTENT,
    STOPWORDS,
    UI_NOUNS,
    Token,
    content_terms,
    stem,
    tokenize,
)

SHAPE_MIN = 3       # context agreement with an example needed to take a value by shape


def names_param(low: str, param: SkillParameter) -> bool:
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
class Fill:
    values: dict[str, str | float] = field(default_factory=dict)
    at: dict[str, int] = field(default_factory=dict)     # parameter -> the token holding its value
    name_words: set[int] = field(default_factory=set)    # tokens naming a parameter
    missing: list[str] = field(default_factory=list)     # required parameters left empty
    loose: list[str] = field(default_factory=list)       # values (not quotes) no parameter took
    unfit: str = ""                                      # why a value found did not fit

    used = property(lambda self: set(self.at.values()))  # token indices holding a value

@dataclass
class SkillEntry:
    skill: Skill
    order: tuple[SkillParameter, ...]                    # parameters by first use in the steps
    shapes: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # (param, context)
    heads: dict[str, set[str]] = field(default_factory=dict)   # parameter -> words naming its kind
    terms: Counter[str] = field(default_factory=Counter)
    examples: list[Counter[str]] = field(default_factory=list)
    key: tuple[Any, ...] = ()                            # what the entry was built from


def document_key(skill: Skill) -> tuple[Any, ...]:
    """Everything an entry is built from: a skill whose document is unchanged (only its
    statistics moved) keeps its entry."""
    return (skill.name, skill.description, skill.examples, skill.parameters,
            tuple(step.action for step in skill.steps))


def _context(toks: list[Token], i: int) -> tuple[str, ...]:
    """The words two before and two after token ``i`` (values read as '<v>')."""
    keys = ["^", "^", *(stem(t.low) if t.kind == "word" else "<v>" for t in toks), "^", "^"]
    return keys[i + 1], keys[i], keys[i + 3], keys[i + 4]


def skill_entry(skill: Skill) -> SkillEntry:
    first_use: dict[str, int] = {}
    for n, step in enumerate(skill.steps):
        for name in PLACEHOLDER_RE.findall(step.action):
            first_use.setdefault(name, n)
    entry = SkillEntry(skill, tuple(sorted(skill.parameters, key=lambda p: first_use.get(p.name, 99))),
                   key=document_key(skill))
    entry.terms.update(content_terms(f"{skill.name.replace('_', ' ')} {skill.description}"))
    for example in skill.examples:
        toks = tokenize(example)
        fill = fill_values(entry, toks, use_shapes=False)
        for name, i in fill.at.items():
            entry.shapes.append((name, _context(toks, i)))
            entry.heads.setdefault(name, set()).add(stem(_head(toks, i)))
        entry.examples.append(Counter(leftover_terms(toks, fill)))
        entry.terms.update(entry.examples[-1])
    return entry


def _head(toks: list[Token], i: int) -> str:
    """The nearest content word before token ``i`` ('folder' in 'a folder named X'), or ''."""
    return next((t.low for t in reversed(toks[:i]) if t.kind == "word" and t.low not in NOT_CONTENT), "")


def _misnamed(entry: SkillEntry, toks: list[Token], fill: Fill) -> str | None:
    """A value given as '<kind> named X' where the kind is not what the parameter's examples name."""
    for name, i in fill.at.items():
        if i and toks[i - 1].low in NAMING:
            head = _head(toks, i - 1)
            param = next(p for p in entry.order if p.name == name)
            if head and stem(head) not in entry.heads.get(name, ()) and not names_param(head, param):
                return head
    return None


def leftover_terms(toks: list[Token], fill: Fill) -> list[str]:
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
                and not any(names_param(t.low, p) for p in params) and (
                toks[i - 1].low in MARKERS or any(names_param(toks[i - 1].low, p) for p in params)):
            spans[i] = False
    return spans


def fill_values(entry: SkillEntry, toks: list[Token], *, use_shapes: bool = True) -> Fill:
    """Give the task's value spans to the skill's parameters (rules in the module docstring)."""
    fill, params = Fill(), entry.order
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
        for p in (p for p in params if t.kind == "word" and names_param(t.low, p)):
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
    fill = fill_values(skill_entry(skill), tokenize(task))
    return None if fill.missing else fill.values


def objection_to(entry: SkillEntry, toks: list[Token], fill: Fill) -> str:
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
