"""Replay: run a skill step by step, finding each target again down the grounding ladder."""

from __future__ import annotations

from .result import ReplayResult
from .runner import SkillReplayer

__all__ = ["ReplayResult", "SkillReplayer"]
