"""How a run uses the experience memory: built from the memory and the replayer, nothing else.

Before planning, a task that confidently matches a skill runs as that skill (no planner,
templates instead of OCR where they hold); if the skill stops, the planner takes over from the
screen it stopped on. A model planner is shown the best few skills and may call one with
``run_skill``. Each step the planner plans keeps what mining needs to make a skill of it later:
a crop of the target, the text read on it and nearby texts. After the run, the episode is
remembered and mined.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from .errors import GuiAgentError
from .grounding.candidate import Candidate
from .memory.anchors import crop_around, fixed_texts, landmarks_for
from .memory.experience import ExperienceMemory, Learned, skill_lines
from .parsing.elements import ScreenParsing
from .planner.base import Planner
from .replay import SkillReplayer
from .screen.observation import Observation
from .secrets import TextMasker
from .trajectory import RunFolder, RunResult, StepLog

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SkillOutcome:
    """A skill run inside an agent run: its steps, and where it left the screen."""

    name: str
    ok: bool
    steps: tuple[StepLog, ...]
    reason: str
    observation: Observation | None


@dataclass(frozen=True)
class Anchor:
    """What a planned step keeps of its target for mining: the crop (run-relative), its text,
    and the texts around it."""

    crop: str | None
    ocr_text: str | None
    landmarks: tuple[tuple[str, int, int], ...]


class SkillUse:
    """The memory as one run uses it (``replayer`` runs the skills; ``parser`` reads the
    texts around a target for its anchor)."""

    def __init__(self, memory: ExperienceMemory, replayer: SkillReplayer,
                 parser: ScreenParsing | None = None) -> None:
        self.memory = memory
        self.replayer = replayer
        self.parser = parser
        self.last_episode_id: int | None = None
        self.last_learned = Learned()

    def recalled(self, task: str, folder: RunFolder, obs: Observation) -> SkillOutcome | None:
        """Run the skill memory recalls for ``task`` with confidence; None when none fits."""
        try:
            recall = self.memory.recall(task)
        except GuiAgentError as exc:
            log.warning("skill recall failed, planning instead: %s", exc)
            return None
        if recall is None:
            return None
        log.info("task matches skill %r (%s)", recall.skill.name, recall.why)
        return self.run(recall.skill.name, dict(recall.values), task, folder, obs, 1)

    def run(self, name: str, params: dict[str, Any], task: str, folder: RunFolder,
            obs: Observation, first_index: int) -> SkillOutcome:
        """Run the named skill; its steps are numbered on from ``first_index``."""
        try:
            skill = self.memory.skill(name)
        except GuiAgentError as exc:
            return SkillOutcome(name, False, (), str(exc), obs)
        result = self.replayer.run(skill, params, task=task, folder=folder, first=obs,
                                   first_index=first_index)
        return SkillOutcome(name, result.ok, result.steps, result.reason, result.observation or obs)

    def offer(self, planner: Planner, task: str) -> None:
        """Show a planner that can call skills the best few for ``task``."""
        if planner.skills is None:
            return
        try:
            planner.skills.lines = tuple(skill_lines(self.memory.suggestions(task)))
        except GuiAgentError as exc:
            log.warning("could not list skills for the planner: %s", exc)

    def anchor(self, index: int, obs: Observation, cand: Candidate | None,
               folder: RunFolder) -> Anchor | None:
        """The target's crop (saved in the run folder), its text and nearby texts."""
        if cand is None or cand.source == "point":
            return None
        crop = None
        try:
            crop = folder.save_crop(f"{index:03d}-target", crop_around(obs.image, cand.box))
        except OSError as exc:
            log.warning("could not keep the target's crop: %s", exc)
        elements = self.parser.parse(obs.image).elements if self.parser is not None else ()
        text = cand.element.text if cand.element is not None and cand.element.text else None
        return Anchor(crop, text, landmarks_for(fixed_texts(elements), cand.box))

    def remember(self, result: RunResult, planner_name: str, masker: TextMasker | None = None) -> None:
        """Store the run as an episode (its secrets masked) and mine it; a memory problem never
        fails the run."""
        try:
            model = f"skill:{result.skill}" if result.skill else planner_name
            self.last_episode_id = self.memory.remember(result, model=model, masker=masker)
            self.last_learned = self.memory.learn() if result.ok else Learned()
        except GuiAgentError as exc:
            log.warning("the run was not stored in the experience memory: %s", exc)
