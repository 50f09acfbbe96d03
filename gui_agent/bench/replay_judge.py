"""Judging replays for `gui-agent bench replay`: which clicks hit the element the demonstration
meant, per-replay results, the table per perturbation (ours vs the baseline) and the JSON file.

A click is judged on the playground's own ground truth (``state["targets"]``, read just before
the click): it is right when the point lies inside the element the recorded click was meant
for (same kind, same text, same window; for a text shown more than once, the same row text).
Anywhere else (another element, a renamed one, nothing) it is a wrong click.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .replay_cases import ClickTruth, matching

METHODS = ("ours", "baseline")
_PLAIN = ("label", "group")    # what a click "hits" only when nothing more specific is there


@dataclass(frozen=True)
class ClickCheck:
    step: int          # the skill step (1-based) the click belongs to
    ok: bool
    meant: str         # e.g. "button 'Add'"
    hit: str           # what is under the point: "button 'Append'", "nothing"
    point: tuple[int, int]


@dataclass
class ReplayCase:
    """One replay of one demonstration under one perturbation, by one method."""

    demo: str
    perturbation: str
    method: str                       # ours | baseline
    steps: int                        # steps of the compiled skill
    resolved: int = 0                 # steps done, their click (if any) on the meant element
    completed: bool = False           # the app's final state passes the demonstration's check
    replay_ok: bool = False           # ours: the replay said it finished (baseline: it ran through)
    stopped_at: int | None = None     # ours: the step the replay stopped at
    expected_stop: int | None = None  # renamed: the first step whose target was renamed
    wrong_clicks: int = 0
    clicks: list[ClickCheck] = field(default_factory=list)
    step_seconds: list[float] = field(default_factory=list)
    seconds: float = 0.0
    reason: str = ""
    rungs: dict[str, int] = field(default_factory=dict)
    run_dir: str | None = None

    @property
    def stopped_cleanly(self) -> bool:
        """The replay stopped (not finished) and clicked nothing wrong before it stopped."""
        return not self.replay_ok and self.wrong_clicks == 0 and (
            self.expected_stop is None or self.stopped_at == self.expected_stop)


def _inside(box: Sequence[int], point: Sequence[int]) -> bool:
    return box[0] <= point[0] < box[0] + box[2] and box[1] <= point[1] < box[1] + box[3]


def describe_target(target: dict[str, Any] | None) -> str:
    return "nothing" if target is None else f"{target['kind']} {target['text']!r}"


def element_under(targets: Sequence[dict[str, Any]], point: Sequence[int]) -> dict[str, Any] | None:
    """The most specific target under ``point`` (a control before a label or a group box)."""
    under = [t for t in targets if _inside(t["box"], point)]
    if not under:
        return None
    return min(under, key=lambda t: (t["kind"] in _PLAIN, t["box"][2] * t["box"][3]))


def judge_click(targets: Sequence[dict[str, Any]], point: tuple[int, int], truth: ClickTruth,
                step: int) -> ClickCheck:
    """Whether a click at ``point`` (screen) hits the element ``truth`` names, on these targets."""
    meant = matching(targets, truth.kind, truth.text, truth.row, truth.window)
    ok = any(_inside(t["box"], point) for t in meant)
    where = f" on the row of {truth.row!r}" if truth.row else ""
    return ClickCheck(step, ok, f"{truth.kind} {truth.text!r}{where}", describe_target(element_under(targets, point)),
                      (int(point[0]), int(point[1])))


def step_truths(steps: Sequence[Any], truths: Sequence[ClickTruth],
                screen: dict[str, Any] | None = None) -> list[ClickTruth | None]:
    """For each skill step, the recorded click it was compiled from (None: a step without one).

    The compiler gives each click one step with a learned box (frame pixels), in order; the box
    lies on the click's row (it may be the row's text beside the point, in a list or a menu).
    """
    from ..recording.targets import image_point

    out: list[ClickTruth | None] = []
    k = 0
    for step in steps:
        found = None
        if step.box is not None:
            _, top, _, bottom = step.box
            for j in range(k, len(truths)):
                if top - 8 <= image_point(truths[j].point, screen or {}).y < bottom + 8:
                    found, k = truths[j], j + 1
                    break
        out.append(found)
    return out


def first_renamed(truths: Sequence[ClickTruth | None], renames: dict[str, str]) -> int | None:
    """The first step (1-based) whose meant element is renamed, or None."""
    return next((i for i, t in enumerate(truths, 1) if t is not None and t.text in renames), None)


# -- the table -------------------------------------------------------------------------------
def median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def summary(cases: Sequence[ReplayCase], keeps_target: bool) -> dict[str, Any]:
    """Totals of one perturbation and method."""
    seconds = [s for c in cases for s in c.step_seconds]
    return {"replays": len(cases), "steps": sum(c.steps for c in cases),
            "resolved": sum(c.resolved for c in cases),
            "completed": sum(c.completed for c in cases),
            "stopped_cleanly": sum(c.stopped_cleanly for c in cases),
            "wrong_clicks": sum(c.wrong_clicks for c in cases),
            "median_s_per_step": round(m, 3) if (m := median(seconds)) is not None else None,
            "keeps_target": keeps_target}


def format_table(cases: Sequence[ReplayCase], perturbations: Sequence[tuple[str, bool]]) -> str:
    """One block per perturbation: ours, then the baseline. ``perturbations``: (name, keeps the target).

    Where the target is gone (renamed) the outcome column counts clean stops (stopped at the
    renamed step, no wrong click) instead of completed replays.
    """
    head = f"{'perturbation':<13} {'method':<9} {'steps resolved':>15} {'outcome':>16} {'wrong clicks':>13} " \
           f"{'median s/step':>14}"
    lines = [head, "-" * len(head)]
    for name, keeps in perturbations:
        for method in METHODS:
            rows = [c for c in cases if c.perturbation == name and c.method == method]
            if not rows:
                continue
            s = summary(rows, keeps)
            outcome = (f"{s['completed']}/{s['replays']} completed" if keeps
                       else f"{s['stopped_cleanly']}/{s['replays']} stopped")
            sps = "-" if s["median_s_per_step"] is None else f"{s['median_s_per_step']:.2f}"
            lines.append(f"{name if method == METHODS[0] else '':<13} {method:<9} "
                         f"{s['resolved']:>7}/{s['steps']:<7} {outcome:>16} {s['wrong_clicks']:>13} {sps:>14}")
    return "\n".join(lines)


RUNGS = ("template", "template-anywhere", "ocr", "landmarks", "vlm")


def format_rungs(cases: Sequence[ReplayCase], perturbations: Sequence[str]) -> str:
    """Which rung found our steps' targets, per perturbation (and how many images were healed)."""
    lines = ["found by (ours): " + ", ".join(RUNGS) + "; healed"]
    for name in perturbations:
        rows = [c for c in cases if c.perturbation == name and c.method == "ours"]
        if rows:
            counts = [str(sum(c.rungs.get(r, 0) for c in rows)) for r in (*RUNGS, "healed")]
            lines.append(f"  {name:<13} " + " / ".join(counts))
    return "\n".join(lines)


def verdict(cases: Sequence[ReplayCase], perturbations: Sequence[tuple[str, bool]],
            max_seconds: float = 1.0) -> list[str]:
    """Where ours misses the issue's targets (empty: every target met)."""
    misses: list[str] = []
    ours = [c for c in cases if c.method == "ours"]
    for name, keeps in perturbations:
        rows = [c for c in ours if c.perturbation == name]
        for c in rows:
            if keeps and not c.completed:
                misses.append(f"{name}: {c.demo} not completed ({c.reason or 'the final state is wrong'})")
            if c.wrong_clicks:
                bad = "; ".join(f"step {k.step}: meant {k.meant}, hit {k.hit}" for k in c.clicks if not k.ok)
                misses.append(f"{name}: {c.demo} made {c.wrong_clicks} wrong click(s): {bad}")
            if not keeps and not c.stopped_cleanly:
                misses.append(f"{name}: {c.demo} did not stop cleanly at step {c.expected_stop} "
                              f"(stopped at {c.stopped_at}, replay ok: {c.replay_ok})")
    seconds = [s for c in ours for s in c.step_seconds]
    if seconds and statistics.median(seconds) >= max_seconds:
        misses.append(f"median seconds per step {statistics.median(seconds):.2f} >= {max_seconds}")
    return misses


def describe_case(c: ReplayCase) -> str:
    """One line per replay, for the terminal."""
    outcome = "completed" if c.completed else (f"stopped at step {c.stopped_at}" if c.stopped_at else "NOT completed")
    wrong = f", {c.wrong_clicks} WRONG click(s)" if c.wrong_clicks else ""
    why = f" — {c.reason[:160]}" if c.reason and not c.completed else ""
    return (f"  [{c.perturbation:<12}] {c.method:<8} {c.demo:<21} {c.resolved}/{c.steps} steps, {outcome}"
            f"{wrong}, {c.seconds:.1f}s{why}")


def write_results(out: Path, cases: Sequence[ReplayCase], perturbations: Sequence[Any],
                  demos: Sequence[Any]) -> Path:
    """``replay-bench.json``: the perturbations, demonstrations, totals, misses and every replay."""
    keeps = [(p.name, p.keeps_target) for p in perturbations]
    data = {
        "perturbations": [{"name": p.name, "description": p.description, "keeps_target": p.keeps_target}
                          for p in perturbations],
        "demos": [{"name": d.name, "expect": d.expect} for d in demos],
        "summary": {name: {m: summary([c for c in cases if c.perturbation == name and c.method == m], k)
                           for m in ("ours", "baseline")} for name, k in keeps},
        "misses": verdict(cases, keeps),
        "cases": [asdict(c) for c in cases],
    }
    path = Path(out) / "replay-bench.json"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path
