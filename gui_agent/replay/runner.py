"""Runs a skill: per step wait for the screen, resolve the target, check safety, act, verify.

``SkillReplayer(pipeline, ...).run(skill, params)`` returns a :class:`ReplayResult` and writes a
run folder the batch HTML report renders (``run.json``, ``steps.jsonl``, ``shots/``, plus
``replay.json`` with the counts). The replay runs as fast as the UI allows: each step waits
until the screen settles and its target can be found (bounded), never for recorded gaps.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from uuid import uuid4

from ..actions import parse_action
from ..errors import ConfigError, GuiAgentError
from ..grounding.ladder import Ladder
from ..memory.models import PLACEHOLDER_RE, Skill, SkillNotFound, SkillStep
from ..parsing.elements import ScreenParsing
from ..screen.observation import Observation
from ..secrets import chain
from ..step import AgentHooks, StepPipeline, StepRun
from ..trajectory import RunFolder, StepLog, slugify
from .conditions import Waiter
from .resolve import LANDMARK_TEMPLATE_BAR, LOWER_RUNGS, TEMPLATE_RUNGS, Rungs
from .result import Masker, ReplayResult
from .steps import ReplayState, StepExecution

if TYPE_CHECKING:
    from ..grounding.template import TemplateMatcher
    from ..memory.store import MemoryStore

log = logging.getLogger(__name__)


class SkillReplayer(StepExecution):
    """Runs skills through ``pipeline`` (the step pipeline the planner loop uses too), finding
    each target by its recorded anchors: templates (``matcher``), then the grounding ladder
    (``ladder`` and ``parser``), landmarks, a pointing model. ``store``: the memory the skills
    come from (their crops are under its root; statistics and healed anchors go back to it)."""

    def __init__(self, pipeline: StepPipeline, *, ladder: Ladder, parser: ScreenParsing | None,
                 store: MemoryStore | None = None, matcher: TemplateMatcher | None = None) -> None:
        self.pipeline = pipeline
        self.settings = pipeline.settings
        self.ladder, self.parser = ladder, parser
        self.store = store
        self._matcher = matcher
        self.live = pipeline.live
        self.control = pipeline.control
        self.stop_event = pipeline.control.stop_event
        self.waiter = Waiter(pipeline.control.stop_event, pipeline.control.pause_event)

    @property
    def hooks(self) -> AgentHooks:
        return self.pipeline.hooks

    @property
    def matcher(self) -> TemplateMatcher:
        if self._matcher is None:
            from ..grounding.template import TemplateMatcher

            self._matcher = TemplateMatcher()
        return self._matcher

    def _low_matcher(self) -> TemplateMatcher:
        """A lenient matcher of the same kind, that only confirms a place the landmarks predicted."""
        return type(self.matcher)(threshold=LANDMARK_TEMPLATE_BAR, near_radius=16)

    # -- screen ------------------------------------------------------------------------------
    def _observe(self) -> Observation:
        return self.pipeline.observe()

    def _settle(self, before: Observation | None) -> Observation:
        return self.pipeline.settle(before)

    # -- the run -----------------------------------------------------------------------------
    def run(self, skill: Skill, params: Mapping[str, Any] | None = None, *, task: str | None = None,
            folder: RunFolder | None = None, first: Observation | None = None,
            first_index: int = 1) -> ReplayResult:
        """Replay ``skill`` with ``params`` (typed and checked first: a bad value raises ConfigError).

        ``folder``: an agent run's folder for the screenshots (else the replay writes its own run
        folder); the caller then appends the returned steps to its log and calls ``on_step``.
        ``first``: the screen the caller already has; ``first_index``: the log number of the
        skill's first step (an agent numbers a skill's steps on from its own).
        """
        started = time.monotonic()
        values = skill.values(params)
        actions = []
        for i, step in enumerate(skill.steps, 1):
            try:
                actions.append(parse_action(step.render(values)))
            except GuiAgentError as exc:
                raise ConfigError(f"skill {skill.name!r} step {i} ({step.action!r}) is not a valid action: "
                                  f"{exc}") from exc
        mask = Masker(skill, values)
        own = folder is None
        folder = folder or RunFolder(self.settings.runs_dir, f"replay {skill.name}", self.settings.save_screenshots,
                                     masker=mask)
        prefix = "" if own else f"skill-{slugify(skill.name, 20)}-{uuid4().hex[:6]}-"
        given = ", ".join(f"{k}={v}" for k, v in (params or {}).items())
        base = task or skill.description or f"run the skill {skill.name}"
        rungs = Rungs(self.ladder, self.parser, self.matcher, self._low_matcher())
        obs = first or self._settle(None)
        texts = [mask(step.render(mask.fill(values))) for step in skill.steps]
        safety_task = f"{base} ({given})" if given else base
        run = ReplayState(skill, folder, prefix, rungs, mask, texts, safety_task, obs, started, first_index,
                          results=[None] * len(skill.steps),
                          step_run=StepRun(safety_task, folder, started, chain(folder.mask, mask), prefix))
        steps: list[StepLog] = []
        outcome, reason, failed = "done", "", None
        for i, (step, action) in enumerate(zip(filled_steps(skill.steps, values), actions, strict=True), 1):
            self.waiter.hold_while_paused()
            if self.stop_event.is_set():
                outcome, reason = "stopped", f"stopped by the user before step {i} of {len(actions)}"
                break
            try:
                log_entry, outcome = self._step(run, i, step, action)
            except GuiAgentError as exc:   # the parser, the matcher or the controller gave up
                error = mask(f"step {i} of {len(actions)} ({texts[i - 1]}): {exc}")
                log_entry = StepLog(first_index + i - 1, f"{skill.name}: step {i} of {len(actions)}",
                                    texts[i - 1], "failed", error=error)
                outcome = "failed"
            steps.append(log_entry)
            if own:   # into a caller's folder the caller logs the steps (and reports them)
                folder.append_step(log_entry)
                if self.hooks.on_step:
                    self.hooks.on_step(log_entry)
            run.results[i - 1] = outcome == "done"
            if outcome != "done":
                reason = log_entry.error
                failed = i if outcome != "stopped" else None
                if outcome == "stopped":
                    run.results[i - 1] = None
                break
        if outcome == "done" and run.step_run.unseen:   # never end on a step whose effect was not seen
            outcome, failed = "failed", len(actions)
            reason = mask(f"the last step changed nothing on the screen, so the skill may not be done: "
                          f"{run.step_run.unseen}")
            run.results[-1] = False
        return self._finish(run, steps, outcome, reason, failed, task, own)

    def _finish(self, run: ReplayState, steps: list[StepLog], outcome: str, reason: str, failed: int | None,
                task: str | None, own: bool) -> ReplayResult:
        skill = run.skill
        updated = replace(skill, steps=tuple(run.healed.get(k, s) for k, s in enumerate(skill.steps))) \
            if run.healed else None
        counts = {"ocr_parses": run.rungs.parses.count, "vlm_calls": run.rungs.calls["vlm_calls"],
                  "template_searches": run.rungs.calls["template_searches"],
                  "landmark_reads": run.rungs.calls["landmark_reads"],
                  **{rung: run.used[rung] for rung in (*TEMPLATE_RUNGS, *LOWER_RUNGS)},
                  "healed": len(run.healed), "steps": len(steps)}
        result = ReplayResult(skill.name, outcome == "done", tuple(steps), run.mask(reason), failed, run.obs,
                              run.folder.path, round(time.monotonic() - run.started, 3), counts, outcome,
                              run.failure_image, tuple(k + 1 for k in sorted(run.healed)), updated)
        if self.store is not None:
            self._remember(skill, updated, run, outcome == "done")
        if own:
            run.folder.finish(result.to_run_result(task or f"replay {skill.name}"))
            (run.folder.path / "replay.json").write_text(json.dumps({
                "skill": skill.name, "ok": result.ok, "outcome": outcome, "reason": result.reason,
                "failed_step": failed, "counts": counts, "healed": list(result.healed),
                "parameters": sorted(p.name for p in skill.parameters),
            }, indent=2), encoding="utf-8")
        return result

    def _remember(self, skill: Skill, updated: Skill | None, run: ReplayState, ok: bool) -> None:
        """Save the healed anchors into the stored skill, then count the run (stored skills only)."""
        stored = self.store.skill(skill.name)
        if stored is None:
            log.info("skill %r is not in the memory store; its statistics and healed anchors are not saved",
                     skill.name)
            return
        if updated is not None and len(stored.steps) == len(skill.steps):
            steps = tuple(replace(s, crop=run.healed[k].crop, box=run.healed[k].box) if k in run.healed else s
                          for k, s in enumerate(stored.steps))
            self.store.save_skill(replace(stored, steps=steps), replace=True)
        try:
            self.store.record_skill_run(skill.name, ok, run.results)
        except SkillNotFound:
            log.warning("skill %r vanished from the memory store during the replay", skill.name)


def _fill(text: str | None, values: Mapping[str, Any]) -> str | None:
    """A step's text field with ``{param}`` placeholders replaced by the values, as shown on screen."""
    if not text:
        return text

    def value(match: re.Match[str]) -> str:
        v = values.get(match.group(1))
        if v is None:
            return match.group(0)
        return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)

    return PLACEHOLDER_RE.sub(value, text)


def filled_steps(steps: Sequence[SkillStep], values: Mapping[str, Any]) -> list[SkillStep]:
    """The steps with parameters filled into what is looked for on screen: a clicked item that is
    a parameter (target ``{item}``), its recorded text, and the text expected afterwards."""
    return [replace(s, target=_fill(s.target, values), ocr_text=_fill(s.ocr_text, values),
                    post_text=_fill(s.post_text, values)) for s in steps]
