"""Experience memory: episodes the agent lived through and the skills distilled from them."""

from __future__ import annotations

from .models import (
    Episode,
    EpisodeStep,
    Skill,
    SkillNameTaken,
    SkillNotFound,
    SkillParameter,
    SkillStats,
    SkillStep,
)
from .store import MemoryStore, default_memory_path

__all__ = [
    "Episode", "EpisodeStep", "MemoryStore", "Skill", "SkillNameTaken", "SkillNotFound",
    "SkillParameter", "SkillStats", "SkillStep", "default_memory_path",
]
