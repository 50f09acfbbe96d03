"""One step of a replay: wait for its target, hand it to the step pipeline (safety, act, settle,
effect), then check the step's learned postcondition."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image

from ..actions import Action, Done
from ..actions import target_fields as action_targets
from ..config import Settings
from ..errors import GroundingError, GuiAgentError, SafetyRefusal
from ..geometry import Box, Point
from ..memory.models import Skill, SkillStep
from ..screen.observation import Observation
from ..step import Performed, RunControl, StepPipeline, StepRun
from ..trajectory import RunFolder, StepLog
from ..verify import frames_equal
from ..verify.settle import Expectation, expecting
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

if TYPE_CHECKING:
    from ..memory.store import MemoryStore

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
    step_run: StepRun | None = None   # what the step pipeline keeps over the replay's steps


class StepExecution:
    """The per-step half of :class:`~gui_agent.replay.runner.SkillReplayer` (which provides the
    pipeline, the settings, the store and the screen)."""

    pipeline: StepPipeline
    settings: Settings
    store: MemoryStore | None
    live: bool
    control: RunControl
    stop_event: threading.Event
    waiter: Waiter
    _observe: Callable[[], Observation]

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
        if main is not None:
            run.used[main.rung] += 1
            if step.box is not None:
                run.drift.add(step.box, main.candidate.box)
        try:
            with expecting(_STEP_EXPECTATION):
                done = self.pipeline.perform(run.step_run, k, subtask, action,
                                             {f: c.candidate for f, c in found.items()}, obs,
                                             target=_described(step, targets),
                                             target_text=step.ocr_text, timings=timings)
        except SafetyRefusal as exc:
            return StepLog(k, subtask, text, "refused", error=run.mask(f"step {i} of {n} ({text}): {exc}"),
                           timings=timings, **common), "refused"
        except GuiAgentError as exc:
            return StepLog(k, subtask, text, "failed", error=run.mask(f"step {i} of {n} ({text}): {exc}"),
                           timings=timings, **common), "failed"
        return self._verified(run, i, step, action, main, obs, done, common)

    def _verified(self, run: ReplayState, i: int, step: SkillStep, action: Action, main: Found | None,
                  obs: Observation, done: Performed, common: dict[str, Any]) -> tuple[StepLog, str]:
        """The learned postcondition after the step's own effect; a lower rung's find heals the
        step's image for next time."""
        n = len(run.skill.steps)
        problem = done.log.error or None
        after = done.after
        if problem is None:
            t = time.perf_counter()
            problem, after = self._postcondition(run, step, main, obs, after)
            done.log.timings["verify"] = done.log.timings.get("verify", 0.0) + time.perf_counter() - t
            run.step_run.note(run.texts[i - 1], done.effect, checked_otherwise=bool(step.post_text or step.post_region))
        # The step's frame is the first that showed its effect, not a settled one (see
        # _STEP_EXPECTATION): the next step finds its target on it, or waits for a settled one.
        run.obs, run.settled = after, not self.live
        why, crop_rel = (f"{main.rung}: {main.candidate.why}" if main else ""), None
        if not problem and main is not None and main.rung in LOWER_RUNGS:
            crop_rel = f"crops/{run.prefix}{done.log.index:03d}.png"
            run.healed[i - 1] = heal(step, obs.image, main.candidate.box, run.folder.path / crop_rel)
            why = f"{why}; {HEALED_NOTE}"
        if after is not done.after:   # the postcondition waited on: keep the screen it ended on
            run.folder.save_image(f"{run.prefix}{done.log.index:03d}-after", after.image)
        effect_why = done.log.why.rsplit("; effect ", 1)[-1] if "; effect " in done.log.why else ""
        entry = replace(
            done.log, outcome="failed" if problem else "ok", source=main.rung if main else None,
            why=run.mask("; ".join(w for w in (why, f"effect {effect_why}" if effect_why else "") if w)),
            error=run.mask(f"step {i} of {n} ({run.texts[i - 1]}): {problem}") if problem else "",
            crop=crop_rel, **common)
        outcome = "done" if not problem else ("stopped" if self.control.stop_event.is_set() else "failed")
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

    # -- verification ----------------------------------------------------------------------
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


def _effect_shown(before: Observation, after: Observation) -> bool:
    """Whether a frame shows a change since the step's input (what a click, a key or a drag
    is judged by: any pixel, a caret appearing in a clicked field included)."""
    return not frames_equal(before.image, after.image)


# A skill step goes on at the first frame that shows its effect: its learned postcondition is
# polled next, and the next step polls for its own target, so waiting for two equal frames
# would only add time. A step that changed nothing still gets the settle grace (and is then
# performed once more), as every step does.
_STEP_EXPECTATION = Expectation(ready=_effect_shown)


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
