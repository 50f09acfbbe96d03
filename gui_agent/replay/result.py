"""What a replay returns, and how its parameters are kept out of logs when they are secret."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..memory.models import Skill, SkillParameter
from ..screen.observation import Observation
from ..trajectory import RunResult, StepLog

MASK = "******"
# A parameter is secret when it says so (``secret`` attribute) or its name or description does.
_SECRET_NAME = re.compile(r"pass(?:word|wd|phrase|code)?|secret|token|\bpin\b|api_?key|credential",
                          re.IGNORECASE)


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
    if getattr(param, "secret", False):
        return True
    return bool(_SECRET_NAME.search(param.name) or _SECRET_NAME.search(param.description or ""))


class Masker:
    """Replaces the values of secret parameters in any text that is logged or shown."""

    def __init__(self, skill: Skill, values: Mapping[str, str | float]) -> None:
        self.names = {p.name for p in skill.parameters if is_secret(p)}
        self.values = sorted({str(values[n]) for n in self.names if str(values.get(n, "")).strip()},
                             key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for value in self.values:
            text = text.replace(value, MASK)
        return text

    def fill(self, values: Mapping[str, str | float]) -> dict[str, str | float]:
        """``values`` with each secret replaced by the mask (to render loggable action text)."""
        return {k: (MASK if k in self.names else v) for k, v in values.items()}
