"""A synthetic skill library of any size, and tasks to recall from it (for `bench scale`).

Skills are made, not stored: ``verb the object in the app``, with a parameter and two example
phrasings each, over a vocabulary that grows with the library (made-up words built from
syllables, so a library of 10,000 skills has thousands of distinct terms, as a real one would).
The same seed always gives the same library and the same tasks.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..memory.models import Skill, SkillParameter, SkillStep

VERBS = ("open", "add", "rename", "delete", "export", "archive", "share", "print", "sort",
         "filter", "close", "save", "send", "create", "copy", "move", "tag", "star", "sync",
         "upload", "download", "pin", "merge", "split", "lock")
_SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "be", "do", "fa", "gu", "ho",
              "ji", "pe", "qua", "si", "tor", "vel", "wyn", "xa", "yo", "zen", "bri", "cla")


@dataclass(frozen=True)
class Query:
    task: str
    skill: str | None    # the skill the task was made from (None: made to match no skill)


def _word(rng: random.Random, syllables: int) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(syllables))


def _vocabulary(rng: random.Random, count: int, syllables: int) -> list[str]:
    words: dict[str, None] = {}
    while len(words) < count:
        words[_word(rng, syllables)] = None
    return list(words)


def _sizes(n: int) -> tuple[int, int]:
    """How many objects and apps a library of ``n`` skills draws from (grows like sqrt(n))."""
    root = max(2.0, n ** 0.5)
    return max(4, round(3 * root)), max(2, round(root / 2))


def synthetic_skills(n: int, seed: int = 0) -> list[Skill]:
    """``n`` distinct skills, each with a ``name`` parameter, two examples and four steps."""
    rng = random.Random(seed)
    objects_n, apps_n = _sizes(n)
    objects = _vocabulary(rng, objects_n, 3)
    apps = _vocabulary(rng, apps_n, 2)
    seen: set[tuple[str, str, str]] = set()
    skills = []
    while len(skills) < n:
        verb, obj, app = rng.choice(VERBS), rng.choice(objects), rng.choice(apps)
        if (verb, obj, app) in seen:
            continue
        seen.add((verb, obj, app))
        value = _word(rng, 2).capitalize()
        skills.append(Skill(
            name=f"{verb} {obj} {app} {len(skills)}",
            description=f"{verb} the {obj} in {app}",
            parameters=(SkillParameter("name", description=f"the {obj}'s name"),),
            examples=(f'{verb} the {obj} named "{value}" in {app}',
                      f'in {app}, {verb} {obj} "{value}"'),
            steps=(SkillStep(f"click('{app.capitalize()}')", target=app.capitalize()),
                   SkillStep(f"click('{obj.capitalize()}')", target=obj.capitalize()),
                   SkillStep("type('{name}', into='the Name field', clear=True)"),
                   SkillStep(f"click('{verb.capitalize()}')", target=verb.capitalize())),
            source="mined"))
    return skills


def recall_queries(skills: list[Skill], count: int, seed: int = 1) -> list[Query]:
    """``count`` tasks: most asked of a skill of the library in a new phrasing, a few of none."""
    rng = random.Random(seed)
    out = []
    for k in range(count):
        if k % 5 == 4:   # a task no skill does: known words in a combination never taught
            a, b = rng.sample(skills, 2)
            verb, obj = a.description.split()[0], b.description.split()[2]
            out.append(Query(f"{verb} every {obj} twice", None))
            continue
        skill = rng.choice(skills)
        verb, _, obj, _, app = skill.description.split()
        out.append(Query(f'please {verb} the {obj} named "{_word(rng, 2)}" in {app}', skill.name))
    return out
