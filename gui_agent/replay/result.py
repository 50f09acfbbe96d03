"""What a replay returns, and how its parameters are kept out of logs when they are secret.

The masking itself lives in :mod:`gui_agent.secrets` (``MASK`` is still importable from here).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..memory.models import Skill, SkillParameter
from ..screen.observation import Observation
from ..secrets import MASK, SecretValues, is_secret_name
from ..trajectory import RunResult, StepLog

__all__ = ["MASK", "Masker", "ReplayResult", "is_secret"]


@dataclass(frozen=True)
class ReplayResult:
    skill: str
    ok: bool
    steps: tuple[StepLog, ...]
    reason: str = ""
    failed_step: int | None = None             # 1-based number of the step that stopped the replay
    observation: Observation | None = None     # the last screen seen (hand-back to the planner)
    run_dir: Path | None = None
    seconds: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)  # ocr_parses, vlm_calls, one per rung ...
    outcome: str = ""                          # done | failed | refused | stopped
    failure_image: Path | None = None          # the screen with the candidates drawn, when a target failed
    healed: tuple[int, ...] = ()               # steps whose image crop was refreshed
    updated: Skill | None = None               # the skill with the refreshed anchors (when any)

    def to_run_result(self, task: str) -> RunResult:
        outcome = self.outcome or ("done" if self.ok else "failed")
        return RunResult(task, outcome, self.reason, None, self.steps, self.run_dir, self.seconds,
                         skill=self.skill)


def is_secret(param: SkillParameter) -> bool:
    """A parameter is secret when it says so, or its name or description speaks of a secret."""
    return bool(getattr(param, "secret", False)) or is_secret_name(param.name) \
        or is_secret_name(param.description)


class Masker:
    """Replaces the values of a skill's secret parameters (and their escaped forms) in any text
    that is logged or shown (:class:`gui_agent.secrets.SecretValues`)."""

    def __init__(self, skill: Skill, values: Mapping[str, str | float]) -> None:
        self.names = {p.name for p in skill.parameters if is_secret(p)}
        self.secrets = SecretValues(tuple(str(values[n]) for n in self.names if n in values))

    @property
    def values(self) -> tuple[str, ...]:
        return self.secrets.values

    def __call__(self, text: str) -> str:
        return self.secrets.mask(text)

    def fill(self, values: Mapping[str, str | float]) -> dict[str, str | float]:
        """``values`` with each secret replaced by the mask (to render loggable action text)."""
        return {k: (MASK if k in self.names else v) for k, v in values.items()}
