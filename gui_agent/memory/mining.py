"""Skills from episodes: a run saved as a skill, and shortcuts mined from what recurs (AppAgentX-style).

Each successful episode is reduced to its ``ok`` GUI steps, each with a *coarse key* (the action
with typed text and quoted click targets abstracted). Episodes with equal key sequences form
whole-task skills; contiguous runs recurring across different tasks form shortcut skills. A group
is then refined click by click: a click target that differs across the group stays one parameter
only when every value is named in its own episode's task, otherwise the group splits by value.
Typed text always becomes a parameter; typed text that holds a masked secret (episodes are stored
with their task's secrets masked) becomes a *secret* parameter with no default, named after its
field, whose value a replay takes from ``--param`` or ``GUI_AGENT_SECRET_<NAME>``. Nothing here
saves: the caller does ``store.save_skill``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..actions import Action, Click, RunSkill, Type, Wait, format_action, parse_action
from ..errors import ConfigError, GuiAgentError
from ..secrets import MASK, is_secret_name, masked_keyword, secret_env_var
from . import wording
from .models import PLACEHOLDER_RE, Episode, EpisodeStep, Skill, SkillParameter, SkillStep

if TYPE_CHECKING:
    from .store import MemoryStore

MIN_STEPS = 2           # a skill of one step saves the planner nothing
MAX_RUN = 20            # longest shortcut looked for
_NOT_GUI = ("done", "fail", "ask_user")   # ends of a run, not steps of a skill
_SENT = re.compile("\u27e6([A-Za-z_][A-Za-z0-9_]*)\u27e7")   # a parameter marker while matching skills


@dataclass(frozen=True, eq=False)
class _View:
    """One episode's ok GUI steps, with their coarse keys."""
    index: int
    episode: Episode
    steps: tuple[tuple[EpisodeStep, Action], ...]

    @property
    def keys(self) -> tuple[tuple[Any, ...], ...]:
        return tuple(_key(a) for _, a in self.steps)


Occ = tuple[_View, int]   # a run of steps: the view and where it starts


def _key(a: Action) -> tuple[Any, ...]:
    if isinstance(a, Type):
        return ("type", None if a.into is None else str(a.into), a.clear, a.enter)
    if isinstance(a, Click) and isinstance(a.target_, str):
        return ("click", a.button, a.clicks)
    return ("lit", format_action(a))


def _slot(a: Action) -> str | None:
    """The text that may become a parameter: what a click names (typed text always does)."""
    return a.target_ if isinstance(a, Click) and isinstance(a.target_, str) else None


def _steps_of(episode: Episode) -> tuple[tuple[EpisodeStep, Action], ...]:
    out = []
    for step in episode.steps:
        if step.outcome != "ok":
            continue
        try:
            action = parse_action(step.action)
        except GuiAgentError as exc:
            raise ConfigError(f"episode {episode.id} step {step.index}: {exc}") from exc
        if action.name not in _NOT_GUI:
            out.append((step, action))
    return tuple(out)


def _views(episodes: Sequence[Episode]) -> list[_View]:
    """The successful, readable episodes, oldest first."""
    out: list[_View] = []
    for ep in sorted((e for e in episodes if e.ok), key=lambda e: (e.created_at, e.id)):
        try:
            steps = _steps_of(ep)
        except ConfigError:
            continue
        if steps:
            out.append(_View(len(out), ep, steps))
    return out


def _act(o: Occ, j: int) -> Action:
    return o[0].steps[o[1] + j][1]


def _split(occs: list[Occ], length: int) -> list[list[Occ]]:
    """Refine a group of equal coarse keys at each click: a varying target stays one parameter only
    where every value is named in its episode's task (and at least two differ); else split by value."""
    groups = [occs]
    for j in range(length):
        if _key(_act(occs[0], j))[0] != "click":
            continue
        refined: list[list[Occ]] = []
        for g in groups:
            values = [_slot(_act(o, j)) or "" for o in g]
            named = [wording.named_in(v, o[0].episode.task) for o, v in zip(g, values, strict=True)]
            varied = len({v for v, n in zip(values, named, strict=True) if n}) > 1
            parts: dict[Any, list[Occ]] = {}
            for o, v, n in zip(g, values, named, strict=True):
                parts.setdefault((None,) if n and varied else ("v", v), []).append(o)
            refined.extend(parts.values())
        groups = refined
    return groups


def _build(occs: list[Occ], length: int, store: MemoryStore, *, defaults: bool) -> tuple[Skill, list[dict]]:
    """A skill (named 'mined' for now) from a refined group, with each occurrence's parameter values.
    Anchors come from the most recent occurrence; a post_text must agree across all of them."""
    rep = max(occs, key=lambda o: (o[0].episode.created_at, o[0].episode.id))
    taken: set[str] = set()
    params: list[SkillParameter] = []
    names: dict[int, str] = {}
    values: list[dict[str, str]] = [{} for _ in occs]

    def add(j: int, base: str, seen: list[str], what: str) -> None:
        name = names[j] = wording.unique(base, taken)
        if any(MASK in v for v in seen):   # a secret: never a default, never in a description
            params.append(SkillParameter(name, secret=True, description=(
                f"secret {what}; give it in the task, with --param {name}=... or in "
                f"{secret_env_var(name)}")))
        else:
            number = all(wording.is_number(v) for v in seen)
            mine = seen[occs.index(rep)]
            params.append(SkillParameter(name, "number" if number else "text",
                                         (float(mine) if number else mine) if defaults else None,
                                         description=what))
        for vals, v in zip(values, seen, strict=True):
            vals[name] = v

    for j in range(length):
        a = _act(rep, j)
        if isinstance(a, Type):
            seen = [_act(o, j).text for o in occs]  # type: ignore[attr-defined]
            base = "_".join(wording.words(str(a.into))) if isinstance(a.into, str) else ""
            if any(MASK in v for v in seen) and not is_secret_name(base):
                base = masked_keyword(rep[0].episode.task) or base or "secret"
            base = re.sub(r"^(?=\d)", "p_", base)[:40].strip("_") or "text"
            where = f" into {a.into}" if isinstance(a.into, str) else ""
            add(j, base, seen, f"text typed{where}")
    typed = dict(names)
    for j in (j for j in range(length) if _key(_act(rep, j))[0] == "click"):
        seen = [_slot(_act(o, j)) or "" for o in occs]   # clicking what was typed: the same parameter
        same = next((k for k in typed if all(_act(o, k).text == v for o, v in zip(occs, seen, strict=True))), None)
        if same is not None:
            names[j] = names[same]
        elif len(set(seen)) > 1:
            add(j, "item", seen, "what is clicked, as the task names it")
    steps = []
    for j in range(length):
        step, a = rep[0].steps[rep[1] + j]
        name = names.get(j)
        holder = f"{{{name}}}"
        if name is not None:
            a = dataclasses.replace(a, text=holder) if isinstance(a, Type) else dataclasses.replace(a, target_=holder)
        action = format_action(a)
        if PLACEHOLDER_RE.findall(action) != ([name] if name else []):
            raise ConfigError(f"step {step.index} of episode {rep[0].episode.id} ({step.action}) has text in "
                              "braces like {name}, which skills reserve for parameters")
        posts = {wording.templated(o[0].steps[o[1] + j][0].expect, v) for o, v in zip(occs, values, strict=True)}
        post = posts.pop() if len(posts) == 1 else None
        if post is not None and MASK in post:   # a masked secret is never what the screen shows
            post = None
        if post is not None and not set(PLACEHOLDER_RE.findall(post)) <= {p.name for p in params}:
            post = None
        if name is not None and isinstance(a, Click):   # a varying element: its look is not the skill's
            steps.append(SkillStep(action, target=holder, post_text=post))
            continue
        crop = str(store.shot_path(step.crop)) if step.crop and store.shot_path(step.crop).is_file() else None
        target = step.target or (str(a.target) if a.target is not None else None)
        ocr_text = None if step.ocr_text and MASK in step.ocr_text else step.ocr_text
        landmarks = tuple(m for m in step.landmarks if MASK not in m[0])
        steps.append(SkillStep(action, target=target, ocr_text=ocr_text, crop=crop,
                               landmarks=landmarks, post_text=post, box=step.box))
    skill = Skill("mined", tuple(steps), parameters=tuple(params))
    return dataclasses.replace(skill, description=wording.describe(skill)), values


def _match(skill: Skill, actions: Sequence[Action]) -> bool:
    """Whether ``actions`` are what ``skill`` does for some values of its parameters."""
    if len(skill.steps) != len(actions):
        return False
    bound: dict[str, str] = {}
    marks = {p.name: f"\u27e6{p.name}\u27e7" for p in skill.parameters}
    for step, got in zip(skill.steps, actions, strict=True):
        try:
            want = parse_action(step.render(marks))
        except GuiAgentError:
            return False
        if type(want) is not type(got):
            return False
        for f in dataclasses.fields(want):
            w, g = getattr(want, f.name), getattr(got, f.name)
            if not (isinstance(w, str) and _SENT.search(w)):
                if w != g:
                    return False
                continue
            pattern, seen = "", set()
            for i, piece in enumerate(_SENT.split(w)):
                if i % 2 == 0:
                    pattern += re.escape(piece)
                elif piece in bound:
                    pattern += re.escape(bound[piece])
                else:
                    pattern += f"(?P={piece})" if piece in seen else f"(?P<{piece}>.*?)"
                    seen.add(piece)
            m = re.fullmatch(pattern, g, re.S) if isinstance(g, str) else None
            if m is None:
                return False
            bound.update(m.groupdict())
    for p in skill.parameters:
        if p.name in bound:
            try:
                value = p.coerce(bound[p.name])
            except ConfigError:
                return False
            if isinstance(value, float) and wording.number_text(value) != bound[p.name]:
                return False
    return True


def _signature(skill: Skill) -> tuple[str, ...]:
    marks = {p.name: f"\u27e6{p.name}\u27e7" for p in skill.parameters}
    out = []
    for step in skill.steps:
        try:
            out.append(_SENT.sub("{}", format_action(parse_action(step.render(marks)))))
        except GuiAgentError:
            out.append(PLACEHOLDER_RE.sub("{}", step.action))
    return tuple(out)


def _updates(views: list[_View], existing: Sequence[Skill]) -> tuple[list[Skill], set[int]]:
    tasks: dict[str, list[str]] = {}
    matched: set[int] = set()
    for v in views:
        skill = next((s for s in existing if _match(s, [a for _, a in v.steps])), None)
        if skill is not None:
            matched.add(v.index)
            if v.episode.task.strip() not in skill.examples:
                tasks.setdefault(skill.name, []).append(v.episode.task)
    return [dataclasses.replace(s, examples=s.examples + tuple(tasks[s.name])) for s in existing
            if s.name in tasks], matched


def update_examples(episodes: Sequence[Episode], existing: Sequence[Skill]) -> list[Skill]:
    """Copies of the existing skills that successful episodes did step for step, with those episodes'
    tasks added to their examples (so retrieval learns new phrasings); unchanged skills are left out."""
    return _updates(_views(episodes), existing)[0]


def skill_from_episode(episode: Episode, name: str, *, store: MemoryStore,
                       description: str | None = None) -> Skill:
    """The successful run as a skill that replays as is: typed text becomes parameters whose defaults
    are the values typed; clicks stay literal (one run shows nothing varying). Not saved."""
    if not episode.ok:
        raise ConfigError(f"episode {episode.id} ({episode.task!r}) ended {episode.outcome!r}"
                          f"{': ' + episode.reason if episode.reason else ''}; only a successful run "
                          "can be saved as a skill")
    steps = _steps_of(episode)
    if not steps:
        raise ConfigError(f"episode {episode.id} ({episode.task!r}) has no successful steps to make a skill of")
    skill, _ = _build([(_View(0, episode, steps), 0)], len(steps), store, defaults=True)
    return dataclasses.replace(skill, name=name, description=description or skill.description,
                               examples=(episode.task,), source="manual")


def mine_skills(episodes: Sequence[Episode], existing: Sequence[Skill], *, store: MemoryStore,
                min_support: int = 2) -> list[Skill]:
    """Skills proposed from recurring successful episodes, then updated copies of existing skills.

    New proposals (source "mined", names not among ``existing``) come first: whole tasks done the
    same way by >= ``min_support`` episodes (examples: their tasks), then the longest shortcuts recurring
    in >= ``min_support`` episodes of different tasks (examples: only tasks that were exactly that run).
    After them, updated copies of existing skills (same name) that new episodes repeated: the caller
    saves a returned skill with ``replace=True`` exactly when its name is one of ``existing``'s.
    """
    if min_support < 1:
        raise ConfigError(f"min_support must be at least 1, not {min_support}")
    views = _views(episodes)
    updated, matched = _updates(views, existing)
    group_of: dict[int, int] = {}
    found: list[tuple[list[Occ], int, bool]] = []   # (occurrences, length, whole task)
    by_seq: dict[tuple[Any, ...], list[Occ]] = {}
    for v in views:
        by_seq.setdefault(v.keys, []).append((v, 0))
    for seq, occs in by_seq.items():
        for gid, g in enumerate(_split(occs, len(seq)), len(group_of)):
            group_of.update((o[0].index, gid) for o in g)
            support = [o for o in g if o[0].index not in matched]
            nested = any(isinstance(a, RunSkill) for _, a in g[0][0].steps)
            if len(seq) >= MIN_STEPS and len(support) >= min_support and not nested:
                found.append((support, len(seq), True))
    runs: dict[tuple[Any, ...], dict[int, int]] = {}
    for v in views:
        keys = v.keys
        cuts = [-1] + [i for i, (_, a) in enumerate(v.steps) if isinstance(a, RunSkill)] + [len(keys)]
        waits = [isinstance(a, Wait) for _, a in v.steps]   # a shortcut neither starts nor ends waiting
        for lo, hi in zip(cuts, cuts[1:], strict=False):
            for s in (s for s in range(lo + 1, hi) if not waits[s]):
                for e in range(s + MIN_STEPS, min(hi, s + MAX_RUN) + 1):
                    if not waits[e - 1]:
                        runs.setdefault(keys[s:e], {}).setdefault(v.index, s)
    shortcuts: list[tuple[list[Occ], int, tuple[Any, ...]]] = []
    for run, where in runs.items():
        if len(where) >= min_support:
            for g in _split([(views[i], s) for i, s in where.items()], len(run)):
                if len(g) >= min_support and len({group_of[o[0].index] for o in g}) > 1:
                    shortcuts.append((g, len(run), _shape(g, len(run))))
    for g, n, shape in sorted(shortcuts, key=lambda c: (-len(c[0]), -c[1], c[0][0][0].index, c[0][0][1])):
        ids = {o[0].index for o in g}
        if not any(m > n and {o[0].index for o in h} == ids and _within(shape, other)
                   for h, m, other in shortcuts):
            found.append((g, n, False))
    taken = {s.name.casefold() for s in existing}
    signatures = {_signature(s) for s in existing}
    proposals: list[Skill] = []
    for occs, n, whole in found:
        try:
            skill, values = _build(occs, n, store, defaults=False)
        except ConfigError:
            continue
        if _signature(skill) in signatures:
            continue
        signatures.add(_signature(skill))
        examples = [o[0].episode.task for o in occs if whole or len(o[0].steps) == n]
        first = next((i for i, o in enumerate(occs) if whole or len(o[0].steps) == n), None)
        name = wording.name_from_task(examples[0], values[first]) if first is not None else None
        name = name or wording.name_from_steps(skill)
        proposals.append(dataclasses.replace(skill, name=wording.clean_name(name, taken), examples=tuple(examples),
                                             source="mined"))
    return proposals + updated


def _shape(g: list[Occ], n: int) -> tuple[Any, ...]:
    """A run's refined signature: coarse keys with the click targets that stay literal."""
    out = []
    for j in range(n):
        values = {_slot(_act(o, j)) for o in g}
        out.append((_key(_act(g[0], j)), values.pop() if len(values) == 1 else None))
    return tuple(out)


def _within(short: tuple[Any, ...], long: tuple[Any, ...]) -> bool:
    return any(long[i:i + len(short)] == short for i in range(len(long) - len(short) + 1))
