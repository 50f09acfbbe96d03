"""The memory as the agent uses it during a run: recall a skill, remember the run, learn from it.

``ExperienceMemory.from_settings(settings)`` opens the store (None when memory is off). After each
run, :meth:`remember` stores the episode and :meth:`learn` mines the stored episodes: sequences
that recur become shortcut skills, and a run that a skill already covers teaches it a new phrasing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .models import Skill
from .store import MemoryStore

log = logging.getLogger(__name__)

MINING_WINDOW = 200   # the most recent episodes mining looks at
MAX_NEW_SHORTCUTS = 2  # sub-sequence skills saved per round (they are offered to model planners)


@dataclass(frozen=True)
class Learned:
    """What one round of mining changed: skills created and skills that learned a phrasing."""

    created: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()


class ExperienceMemory:
    def __init__(self, store: MemoryStore, *, auto_skills: bool = True, mine: bool = True,
                 keep_days: float = 0.0) -> None:
        self.store = store
        self.auto_skills = auto_skills
        self.mine = mine
        self.keep_days = keep_days   # episodes older than this are pruned after each run (0: keep all)
        self._skills: Any = None           # the SkillIndex, kept up to date (see _index)
        self._revision: int | None = None  # the store's skill revision it reflects

    @classmethod
    def from_settings(cls, settings: Any) -> ExperienceMemory | None:
        if not getattr(settings, "use_memory", True):
            return None
        return cls(MemoryStore(getattr(settings, "memory_path", None)),
                   auto_skills=getattr(settings, "auto_skills", True),
                   mine=getattr(settings, "mine_skills", True),
                   keep_days=float(getattr(settings, "memory_keep_days", 0.0) or 0.0))

    def close(self) -> None:
        self.store.close()

    # -- recall ------------------------------------------------------------------------------
    def _index(self) -> Any:
        """The skill index, kept across recalls: brought up to date with the skills that changed
        since the last one (by any process: the store counts every change), else used as is."""
        from .recall import SkillIndex

        if self._skills is None:
            self._skills, self._revision = SkillIndex(), None
        changes = self.store.skill_changes(self._revision)
        if changes is not None:
            self._skills.remove(self._skills.names - changes.names)
            self._skills.update(changes.changed)
            self._revision = changes.revision
        return self._skills

    def recall(self, task: str) -> Any | None:
        """The skill to run for ``task`` (a confident Recall), or None: plan as usual."""
        if not self.auto_skills:
            return None
        return self._index().best(task)

    def suggestions(self, task: str, limit: int = 3) -> list[Any]:
        """The few best skills for ``task`` (shown to a model planner as callable actions)."""
        return [r for r in self._index().rank(task, limit) if not r.skill.flagged]

    def skill(self, name: str) -> Skill:
        return self.store.require_skill(name)

    # -- remember and learn ------------------------------------------------------------------
    def remember(self, result: Any, *, model: str | None = None,
                 masker: Callable[[str], str] | None = None) -> int:
        """Store the run as an episode, its task's secrets (and ``masker``'s) masked; then drop
        episodes past the retention period."""
        episode_id = self.store.record_episode(result, model=model, masker=masker)
        if self.keep_days > 0:
            self.store.prune(keep_days=self.keep_days)
        return episode_id

    def learn(self) -> Learned:
        """Mine the recent successful episodes; save new skills, extend known skills' examples."""
        if not self.mine:
            return Learned()
        from .mining import mine_skills

        episodes = [e for e in self.store.episodes(limit=MINING_WINDOW) if e.ok]
        existing = self.store.list_skills(include_flagged=True)
        proposals = mine_skills(episodes, existing, store=self.store)
        known = {s.name.lower(): s for s in existing}
        created, updated = [], []
        shortcuts = 0
        for skill in proposals:
            old = known.get(skill.name.lower())
            if old is None:
                if not skill.examples:   # a shortcut inside longer tasks: a few per round at most
                    shortcuts += 1
                    if shortcuts > MAX_NEW_SHORTCUTS:
                        continue
                self.store.save_skill(skill)
                created.append(skill.name)
            elif set(skill.examples) - set(old.examples):
                self.store.save_skill(skill, replace=True)   # mining keeps the old examples first
                updated.append(skill.name)
        if created or updated:
            log.info("memory learned: new skills %s, new phrasings for %s", created, updated)
        return Learned(tuple(created), tuple(updated))

    def save_as(self, episode_id: int, name: str, description: str | None = None) -> Skill:
        """A skill from one successful episode (``gui-agent run ... --save-as NAME``); a secret
        typed in it (stored masked) becomes a secret parameter, with no default."""
        from .mining import skill_from_episode

        episode = self.store.episode(episode_id)
        if episode is None:
            from ..errors import MemoryStoreError

            raise MemoryStoreError(f"episode {episode_id} is not in the memory")
        skill = skill_from_episode(episode, name, store=self.store, description=description)
        self.store.save_skill(skill)
        return skill


def skill_lines(recalls: Sequence[Any]) -> list[str]:
    """How skills are listed for a model planner: a run_skill call it can copy, and what it does."""
    lines = []
    for r in recalls:
        args = "".join(f", {p.name}=..." for p in r.skill.parameters)
        lines.append(f'run_skill("{r.skill.name}"{args}): {r.skill.description}')
    return lines
