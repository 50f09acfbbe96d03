"""How the agent uses its experience memory during a run.

Before planning, a task that confidently matches a skill runs as that skill (no planner, templates
instead of OCR where they hold); if the skill stops, the planner takes over from the screen it
stopped on. A model planner is shown the best few skills and may call one with ``run_skill``.
Each step the agent plans itself keeps what mining needs to make a skill of it later: a crop of
the target, the text read on it and nearby texts.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .actions import RunSkill
from .errors import GuiAgentError
from .grounding.candidate import Candidate
from .memory.anchors import crop_around, fixed_texts, landmarks_for
from .screen.observation import Observation
from .secrets import TextMasker
from .trajectory import RunFolder, StepLog

if TYPE_CHECKING:
    from .agent import Agent

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
    crop: str | None
    ocr_text: str | None
    landmarks: tuple[tuple[str, int, int], ...]


def anchor_for(agent: Agent, index: int, obs: Observation, cand: Candidate | None,
               folder: RunFolder) -> Anchor | None:
    """The target's crop (saved in the run folder), its text and nearby texts; None without memory."""
    if agent.memory is None or cand is None or cand.source == "point":
        return None
    crop = None
    try:
        crop = folder.save_crop(f"{index:03d}-target", crop_around(obs.image, cand.box))
    except OSError as exc:
        log.warning("could not keep the target's crop: %s", exc)
    elements = ()
    if agent.parser is not None:
        elements = agent.parser.parse(obs.image).elements  # type: ignore[attr-defined]
    text = cand.element.text if cand.element is not None and cand.element.text else None
    return Anchor(crop, text, landmarks_for(fixed_texts(elements), cand.box))


def _replayer(agent: Agent) -> Any:
    from .replay import SkillReplayer

    return SkillReplayer(agent.desktop, settings=agent.settings, ladder=agent.ladder, parser=agent.parser,
                         safety=agent.safety, hooks=agent.hooks,
                         store=agent.memory.store if agent.memory else None, live=agent.live,
                         stop_event=agent.stop_event, pause_event=agent.pause_event)


def run_skill(agent: Agent, name: str, params: dict[str, Any], task: str, folder: RunFolder,
              obs: Observation, first_index: int) -> SkillOutcome:
    """Run the named skill from memory; its steps are numbered on from ``first_index``."""
    if agent.memory is None:
        return SkillOutcome(name, False, (), "the experience memory is off (no skills)", obs)
    try:
        skill = agent.memory.skill(name)
    except GuiAgentError as exc:
        return SkillOutcome(name, False, (), str(exc), obs)
    result = _replayer(agent).run(skill, params, task=task, folder=folder, first=obs,
                                  first_index=first_index)
    return SkillOutcome(name, result.ok, result.steps, result.reason, result.observation or obs)


def try_recalled_skill(agent: Agent, task: str, folder: RunFolder, obs: Observation) -> SkillOutcome | None:
    """Run the skill memory recalls for ``task`` with confidence; None when none fits."""
    if agent.memory is None:
        return None
    try:
        recall = agent.memory.recall(task)
    except GuiAgentError as exc:
        log.warning("skill recall failed, planning instead: %s", exc)
        return None
    if recall is None:
        return None
    log.info("task matches skill %r (%s)", recall.skill.name, recall.why)
    return run_skill(agent, recall.skill.name, dict(recall.values), task, folder, obs, 1)


def offer_skills(agent: Agent, task: str) -> None:
    """Tell a model planner which skills it may call (planners without a skill list ignore this)."""
    if agent.memory is None:
        return
    from .memory.experience import skill_lines

    holders = [h for h in (agent.planner.manager, agent.planner.worker) if hasattr(h, "skills")]
    if not holders:
        return
    try:
        lines = tuple(skill_lines(agent.memory.suggestions(task)))
    except GuiAgentError as exc:
        log.warning("could not list skills for the planner: %s", exc)
        return
    for holder in holders:
        holder.skills = lines


def skill_call(action: RunSkill) -> tuple[str, dict[str, Any]]:
    return action.skill, dict(action.params)


def remember_run(agent: Agent, result: Any, masker: TextMasker | None = None) -> None:
    """Store the run as an episode (its secrets masked) and mine it; a memory problem never
    fails the run."""
    if agent.memory is None:
        return
    try:
        model = f"skill:{result.skill}" if result.skill else agent.planner.name
        agent.last_episode_id = agent.memory.remember(result, model=model, masker=masker)
        if result.ok:
            agent.last_learned = agent.memory.learn()
    except GuiAgentError as exc:
        log.warning("the run was not stored in the experience memory: %s", exc)
