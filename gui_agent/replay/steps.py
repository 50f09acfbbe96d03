"""One step of a replay: wait for its target, check safety, act, settle, check the postcondition."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

from ..acting import Actor
from ..actions import Action, Done, Type, Wait
from ..actions import target_fields as action_targets
from ..errors import GroundingError, GuiAgentError
from ..geometry import Box, Point
from ..grounding.candidate import Candidate, visible_text
from ..memory.models import Skill, SkillStep
from ..safety import SafetyContext, SafetyGate, TypedSoFar
from ..screen.observation import Observation
from ..trajectory import RunFolder, StepLog
from ..verify import frames_equal
from .conditions import Waiter, region_changed, shifted, text_visible
from .healing import HEALED_NOTE, draw_candidates, heal, load_crop
from .resolve import (
    LOWER_RUNGS,
    Anchors,
    Drift,
    Found,
    Miss,
    Rungs,
    expected_box,
    main_field,
)
from .result import Masker

log = logging.getLogger(__name__)


@dataclass
class ReplayState:
    """What one replay carries from step to step."""

    skill: Skill
    folder: RunFolder
    prefix: str                 # shot-name prefix (a folder shared with an agent run gets one)
    rungs: Rungs
    mask: Masker
    texts: list[str]            # each step's action text as logged (secrets masked)
    safety_task: str
    obs: Observation            # the latest screen
    started: float
    first_index: int = 1        # the log number of step 1
    settled: bool = True        # whether ``obs`` is a settled frame (two equal captures)
    drift: Drift = field(default_factory=Drift)
    used: Counter[str] = field(default_factory=Counter)
    results: list[bool | None] = field(default_factory=list)
    healed: dict[int, SkillStep] = field(default_factory=dict)    # 0-based step index -> healed step
    crops: dict[int, Image.Image | None] = field(default_factory=dict)
    failure_image: Path | None = None
    typed: TypedSoFar = field(default_factory=TypedSoFar)   # consecutive typing, judged as a whole
    unseen: str = ""            # the latest step whose expected change was not seen


class StepExecution:
    """The per-step half of :class:`~gui_agent.replay.runner.SkillReplayer`."""

    desktop: Any
    settings: Any
    hooks: Any
    safety: SafetyGate
    store: Any
    live: bool
    stop_event: threading.Event
    waiter: Waiter

    def _observe(self) -> Observation:
        raise NotImplementedError

    def _settle(self, before: Observation | None) -> Observation:
        raise NotImplementedError

    def _actor(self) -> Actor:
        raise NotImplementedError

    @property
    def _wait_limit(self) -> float:
        return self.settings.settle_timeout + self.settings.settle_change_grace

    @property
    def _interval(self) -> float:
        return max(self.settings.settle_interval, 0.1)

    def _step(self, run: ReplayState, i: int, step: SkillStep, action: Action) -> tuple[StepLog, str]:
        """Run step ``i`` (1-based); its log entry and "done", "failed", "refused" or "stopped"."""
        n, text = len(run.skill.steps), run.texts[i - 1]
        k = run.first_index + i - 1     # the number in the log (messages say "step i of n")
        subtask = f"{run.skill.name}: step {i} of {n}"
        timings: dict[str, float] = {}
        common: dict[str, Any] = {"ocr_text": step.ocr_text, "landmarks": step.landmarks, "expect": step.post_text}
        if isinstance(action, Done):
            return StepLog(k, subtask, text, "ok", why="nothing to do: the skill says it is done", **common), "done"
        targets = action_targets(action)
        name = main_field(targets)
        anchors = {k: self._anchors(run, i, step, v, k == name) for k, v in targets.items()}
        t = time.perf_counter()
        found = self._resolve(run, anchors) if anchors else {}
        timings["resolve"] = time.perf_counter() - t
        if found is None:
            return StepLog(k, subtask, text, "skipped", error="stopped by the user", timings=timings,
                           **common), "stopped"
        if isinstance(found, tuple):
            return self._unresolved(run, i, text, subtask, *found, timings, common), "failed"
        obs = run.obs
        main = found[name] if name else None
        cand = main.candidate if main else None
        if main is not None:
            run.used[main.rung] += 1
            if step.box is not None:
                run.drift.add(step.box, main.candidate.box)
        refusal = self._refusal(run, i, action, cand, step)
        if refusal:
            return StepLog(k, subtask, text, "refused", error=run.mask(refusal), timings=timings, **common), "refused"
        if self.hooks.on_target:
            self.hooks.on_target(obs, action, {k: f.candidate for k, f in found.items()})
        points = {k: obs.to_screen(f.candidate.point) for k, f in found.items()}
        before = run.folder.save_image(f"{run.prefix}{k:03d}-before", obs.image,
                                       cand.point if cand else None, cand.box if cand else None)
        secret = isinstance(action, Type) and run.mask(action.text) != action.text
        try:
            acted = self._actor().act(action, {k: f.candidate for k, f in found.items()}, obs, secret=secret)
        except GuiAgentError as exc:
            return StepLog(k, subtask, text, "failed", error=run.mask(f"step {i} of {n} ({text}): {exc}"),
                           before=before, timings=timings, **common), "failed"
        timings.update(acted.timings)
        after = acted.after
        t = time.perf_counter()
        run.typed.after(action)
        effect = acted.effect
        problem = None
        if not effect.seen and effect.required:
            problem = f"no effect after {acted.attempts} tries: {effect.describe()}"
        else:
            problem, after = self._postcondition(run, step, main, obs, after)
            learned = bool(step.post_text or step.post_region)
            if not problem and not effect.seen and not learned:
                run.unseen = f"step {i} of {n} ({text}): {effect.describe()}"
            elif not problem and (learned or effect.judged):
                run.unseen = ""
        timings["verify"] = timings.get("verify", 0.0) + time.perf_counter() - t
        run.obs, run.settled = after, after is acted.after and not isinstance(action, Wait)
        after_rel = run.folder.save_image(f"{run.prefix}{k:03d}-after", after.image)
        why, crop_rel = f"{main.rung}: {cand.why}" if main and cand else "", None
        if not problem and main is not None and main.rung in LOWER_RUNGS:
            crop_rel = f"crops/{run.prefix}{k:03d}.png"
            run.healed[i - 1] = heal(step, obs.image, main.candidate.box, run.folder.path / crop_rel)
            why = f"{why}; {HEALED_NOTE}"
        point = cand.point if cand else None
        screen = points[name] if name else None
        outcome = "done" if not problem else ("stopped" if self.stop_event.is_set() else "failed")
        entry = StepLog(
            k, subtask, text, "failed" if problem else "ok", target=_described(step, targets),
            point=(point.x, point.y) if point else None, screen_point=(screen.x, screen.y) if screen else None,
            box=cand.box.corners if cand else None, source=main.rung if main else None,
            score=round(cand.score, 3) if cand else None, why=run.mask(why),
            error=run.mask(f"step {i} of {n} ({text}): {problem}") if problem else "",
            before=before, after=after_rel, timings=timings, crop=crop_rel, **common)
        return entry, outcome

    # -- resolving ---------------------------------------------------------------------------
    def _anchors(self, run: ReplayState, i: int, step: SkillStep, value: object, main: bool) -> Anchors:
        described = value if isinstance(value, str) else None
        fixed = value if isinstance(value, Point | Box) else None
        if not main:
            return Anchors((described,) if described else (), fixed=fixed)
        descriptions = [d for d in (step.target or described, f'"{step.ocr_text}"' if step.ocr_text else None) if d]
        if i not in run.crops:
            root = getattr(self.store, "root", None)
            run.crops[i] = load_crop(step.crop, Path(root) if root else None)
            if step.crop and run.crops[i] is None:
                log.warning("step %d's recorded image %s is missing; the template rungs are skipped", i, step.crop)
        return Anchors(tuple(dict.fromkeys(descriptions)), run.crops[i], step.box, step.ocr_text,
                       step.landmarks, fixed)

    def _attempt(self, run: ReplayState, obs: Observation, anchors: dict[str, Anchors],
                 lower: bool) -> dict[str, Found] | tuple[str, Miss]:
        """Every field resolved on ``obs``, or (the field that failed, why)."""
        found: dict[str, Found] = {}
        for name, a in anchors.items():
            miss, got = Miss(), None
            if a.crop is not None:
                try:
                    got = run.rungs.template(obs, a, run.drift.shift, a.expected)
                except GroundingError as exc:
                    log.debug("%s: the template rungs failed: %s", a.expected, exc)
                    miss.add("template", exc)
            if got is None and lower:
                got = run.rungs.lower(obs, a, run.drift, miss)
            if got is None:
                return name, miss
            found[name] = got
        return found

    def _resolve(self, run: ReplayState, anchors: dict[str, Anchors]) -> dict[str, Found] | tuple | None:
        """Poll until every target resolves on a settled screen (bounded); None when stopped.

        Each new frame is tried with the template rungs (cheap); a frame that is settled (equal
        to the one before) is also tried with the rungs below, once. The last failure is returned
        as (field, Miss, Anchors) when the time is up.
        """
        obs, prev, tried = run.obs, None, None
        failure: tuple[str, Miss] | None = None
        deadline = time.monotonic() + self._wait_limit
        while True:
            if tried is None or not frames_equal(tried.image, obs.image):
                settled = not self.live or (run.settled if prev is None else frames_equal(prev.image, obs.image))
                got = self._attempt(run, obs, anchors, lower=settled)
                if isinstance(got, dict):
                    run.obs, run.settled = obs, settled
                    return got
                if settled:
                    tried, failure = obs, got
            if self.stop_event.is_set():
                return None
            if not self.live or time.monotonic() >= deadline:
                if tried is None or not frames_equal(tried.image, obs.image):
                    got = self._attempt(run, obs, anchors, lower=True)
                    if isinstance(got, dict):
                        run.obs, run.settled = obs, False
                        return got
                    failure = got
                run.obs = obs
                assert failure is not None
                return (*failure, anchors[failure[0]])
            self.stop_event.wait(self._interval)
            deadline += self.waiter.hold_while_paused()
            if self.stop_event.is_set():
                return None
            prev, obs = obs, self._observe()

    def _unresolved(self, run: ReplayState, i: int, text: str, subtask: str, name: str, miss: Miss,
                    anchors: Anchors, timings: dict[str, float], common: dict[str, Any]) -> StepLog:
        n, k = len(run.skill.steps), run.first_index + i - 1
        what = "is ambiguous" if miss.ambiguous else "was not found"
        field_note = "" if name in ("target", "into", "source", "at") else f" ({name})"
        reason = (f"step {i} of {n} ({text}): the target {anchors.expected}{field_note} {what}, so nothing "
                  f"was done (never at the recorded place). Tried: {'; '.join(miss.notes)}")
        rel = f"shots/{run.prefix}{k:03d}-failed.png"
        image = draw_candidates(run.obs.image, miss.candidates, expected_box(anchors, run.drift),
                                f"expected {anchors.expected}")
        image.save(run.folder.path / rel, compress_level=1)
        run.failure_image = run.folder.path / rel
        return StepLog(k, subtask, text, "failed", target=anchors.expected,
                       alternatives=tuple(str(c) for c in miss.candidates[:5]), error=run.mask(reason),
                       before=rel, timings=timings, **common)

    # -- safety and verification -------------------------------------------------------------
    def _refusal(self, run: ReplayState, i: int, action: Action, cand: Candidate | None,
                 step: SkillStep) -> str | None:
        """Why the safety policy (or the person asked) does not allow the action, or None."""
        verdict = self.safety.check(action, SafetyContext(
            task=run.safety_task, target_text=visible_text(cand) or step.ocr_text,
            window_title=run.obs.window_title, steps_taken=i - 1, elapsed=time.monotonic() - run.started,
            typed_before=run.typed.before(action)))
        head = f"step {i} of {len(run.skill.steps)} ({run.texts[i - 1]})"
        if verdict.decision == "refuse":
            return f"{head} refused: {verdict.reason}"
        if verdict.decision == "ask":
            allowed = self.hooks.confirm(action, cand, verdict.reason) if self.hooks.confirm else False
            if not allowed:
                return f"{head} not allowed: {verdict.reason}"
            self.safety.approved(action, verdict)
        return None

    def _postcondition(self, run: ReplayState, step: SkillStep, main: Found | None, before: Observation,
                       after: Observation) -> tuple[str | None, Observation]:
        """(what did not hold, or None; the latest screen) after waiting a bounded time."""
        obs = after
        if step.post_text:
            text = step.post_text
            held, obs = self.waiter.poll(lambda o: text_visible(run.rungs.ocr, text, o, run.rungs.elements), obs,
                                         self._observe, self._wait_limit, self._interval, self.live)
            if not held:
                return f'expected "{text}" to appear after it, but it did not', obs
        if step.post_region:
            regions = [shifted(step.post_region, shift) for shift in _region_shifts(step, main, run.drift.shift)]
            # A step with no target of its own (keys typed into whatever has the focus) has no place to
            # tell where its change moved (a dialog centred on a resized window): any change will do.
            anywhere = main is None

            def changed(o: Observation) -> bool:
                return any(region_changed(before, o, r) for r in regions) or (
                    anywhere and not frames_equal(before.image, o.image))

            held, obs = self.waiter.poll(changed, obs, self._observe, self._wait_limit, self._interval, self.live)
            if not held:
                return f"expected the region {regions[0].corners} to change, but it did not", obs
        return None, obs


def _region_shifts(step: SkillStep, main: Found | None, drift: tuple[int, int]) -> list[tuple[int, int]]:
    """Where a learned postcondition region may have moved: with the target (centre to centre, and
    corner to corner: the element found may be the learned one's label or box), else as the earlier
    targets moved."""
    shifts = []
    if main is not None and step.box is not None:
        learned, found = Box.from_corners(*step.box), main.candidate.box
        shifts += [(found.center.x - learned.center.x, found.center.y - learned.center.y),
                   (found.left - learned.left, found.top - learned.top)]
    return list(dict.fromkeys([*shifts, drift]))


def _described(step: SkillStep, targets: dict[str, object]) -> str | None:
    if step.target:
        return step.target
    return str(next(iter(targets.values()))) if targets else None
