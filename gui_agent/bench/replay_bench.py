"""`gui-agent bench replay`: record demonstrations once, replay them on a perturbed playground.

Each demonstration (:mod:`.replay_cases`) is recorded with real input (xdotool) through the
:class:`~gui_agent.recording.Recorder` and compiled into a skill; its final state is checked, so
the baseline is known good. Then every skill is replayed on a fresh playground under each
perturbation, twice: by :class:`~gui_agent.replay.SkillReplayer` (ours) and by a naive replay of
the recorded events at the recorded points, keys and pace (the baseline). Clicks are judged on the
playground's own targets (:mod:`.replay_judge`); a replay completes when the app's final state
passes the demonstration's check. Figures: a table per perturbation and ``replay-bench.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError, GuiAgentError
from .replay_cases import DEMOS, RENAMES, SECRET, ClickTruth, Demo, demo_named, record_demo
from .replay_judge import (
    ReplayCase,
    describe_case,
    first_renamed,
    format_rungs,
    format_table,
    judge_click,
    step_truths,
    verdict,
    write_results,
)

RECORD_SCREEN = (1280, 800)
FINAL_WAIT_S = 2.0      # the app writes its state a moment after the last input


@dataclass(frozen=True)
class Perturbation:
    name: str
    description: str
    launch: Mapping[str, Any] = field(default_factory=dict)   # launch_playground options
    screen: tuple[int, int] | None = None                    # another Xvfb of this size
    keeps_target: bool = True


PERTURBATIONS: tuple[Perturbation, ...] = (
    Perturbation("none", "the app as recorded (control)"),
    Perturbation("moved", "window moved from (0, 0) to (180, 70)", {"pos": (180, 70)}),
    Perturbation("resized", "window 1200x780 instead of 1024x700", {"size": (1200, 780)}),
    Perturbation("resolution", "screen 1600x1000 instead of 1280x800, the window centred on it",
                 {"pos": (288, 150)}, screen=(1600, 1000)),
    Perturbation("dark", "dark theme", {"theme": "dark"}),
    Perturbation("font125", "fonts at 125%", {"font_scale": 1.25}),
    Perturbation("font150", "fonts at 150%", {"font_scale": 1.5}),
    Perturbation("reordered", "the Items list and the Contacts rows reversed", {"reorder": True}),
    Perturbation("extra-widget", "an info bar inserted above every page's content", {"extra_widget": True}),
    Perturbation("renamed", "buttons renamed: " + ", ".join(f"{a} -> {b}" for a, b in RENAMES.items()),
                 {"rename": RENAMES}, keeps_target=False),
)


def perturbation_named(name: str) -> Perturbation:
    for p in PERTURBATIONS:
        if p.name == name:
            return p
    raise ConfigError(f"unknown perturbation {name!r}; known: {', '.join(p.name for p in PERTURBATIONS)}")


@dataclass
class Prepared:
    """A recorded, checked and compiled demonstration."""

    demo: Demo
    folder: Path
    skill: Any
    events: tuple[Any, ...]
    screen: dict[str, Any]
    truths: list[ClickTruth]
    step_truths: list[ClickTruth | None]


class ReplayBench:
    """One screen parser and template matcher for everything (models load once)."""

    def __init__(self, out: Path, parser: Any = None) -> None:
        from ..grounding.template import TemplateMatcher

        if parser is None:
            from ..parsing.screen_parser import ScreenParser

            parser = ScreenParser()
        self.out = Path(out)
        self.parser = parser
        self.matcher = TemplateMatcher()
        self.files = self.out / "files"    # one save folder: the save dialog shows the same path
        self._record_parser: Any = None

    @property
    def record_parser(self) -> Any:
        """The recorder's parser (it reads field labels on cut-outs: not incremental); same OCR models."""
        if self._record_parser is None:
            from ..parsing.screen_parser import ScreenParser

            self._record_parser = ScreenParser(getattr(self.parser, "ocr", None), incremental=False)
        return self._record_parser

    @contextlib.contextmanager
    def playground(self, name: str, launch: Mapping[str, Any]) -> Iterator[Any]:
        from ..playground import launch_playground

        work = self.out / "apps" / name
        with launch_playground(work / "state.json", save_dir=self.files, **launch) as app:
            app.wait_ready(timeout=30)
            time.sleep(0.3)
            yield app

    # -- recording -------------------------------------------------------------------------
    def prepare(self, demo: Demo, reuse: bool = False) -> Prepared:
        """Record ``demo`` with real input, check the app's final state, compile the skill.

        ``reuse``: compile the demonstration recorded (and checked) by an earlier run in the same
        folder, when there is one.
        """
        from ..recording import compile_demo, load_demo

        folder = self.out / "demos" / demo.name
        truth_file = folder / "truth.json"
        if reuse and truth_file.is_file():
            recorded = load_demo(folder / "demo")
            truths = [ClickTruth.from_json(t) for t in json.loads(truth_file.read_text(encoding="utf-8"))]
        else:
            shutil.rmtree(folder, ignore_errors=True)
            with self.playground(f"record-{demo.name}", {}) as app:
                recorded, truths = record_demo(app, demo, folder / "demo", parser=self.record_parser)
                state = _final_state(app, demo.check)
            if not demo.check(state):
                raise GuiAgentError(f"the recording of {demo.name!r} did not end as expected ({demo.expect}); "
                                    f"see {folder / 'demo'}")
        skill = compile_demo(recorded, parser=self.parser)
        truth_file.write_text(json.dumps([t.to_json() for t in truths], indent=1), encoding="utf-8")
        (folder / "skill.json").write_text(json.dumps(_skill_json(skill), indent=1), encoding="utf-8")
        return Prepared(demo, folder, skill, recorded.events, recorded.meta.screen, truths,
                        step_truths(skill.steps, truths, recorded.meta.screen))

    # -- ours ------------------------------------------------------------------------------
    def replay_ours(self, p: Prepared, pert: Perturbation) -> ReplayCase:
        from ..config import Settings
        from ..control.pyautogui_controller import PyAutoGuiController
        from ..desktop import LiveDesktop
        from ..engine import Engine
        from ..replay.resolve import main_field
        from ..step import AgentHooks

        case = ReplayCase(p.demo.name, pert.name, "ours", len(p.skill.steps),
                          expected_stop=None if pert.keeps_target else first_renamed(p.step_truths, RENAMES))
        settings = Settings(safety="allow", runs_dir=self.out / "runs" / pert.name)
        with self.playground(f"{pert.name}-{p.demo.name}-ours", pert.launch) as app:
            calls = [0]

            def on_target(obs: Any, action: Any, found: dict[str, Any]) -> None:
                step, calls[0] = calls[0] + 1, calls[0] + 1
                truth = p.step_truths[step - 1] if step <= len(p.step_truths) else None
                name = main_field(found)
                if truth is not None and name is not None:
                    point = obs.to_screen(found[name].point)
                    case.clicks.append(judge_click(app.state()["targets"], (point.x, point.y), truth, step))

            desktop = LiveDesktop(PyAutoGuiController(), settings.monitor)
            engine = Engine(desktop, settings=settings, parser=self.parser, matcher=self.matcher,
                            hooks=AgentHooks(on_target=on_target))
            try:
                result = engine.replay(p.skill, _params(p.skill))
            finally:
                desktop.capture.close()
            state = _final_state(app, p.demo.check)
        bad = {c.step for c in case.clicks if not c.ok}
        done = [i for i, s in enumerate(result.steps, 1) if s.outcome == "ok"]
        case.resolved = sum(1 for i in done if i not in bad)
        case.replay_ok = result.ok
        case.completed = result.ok and p.demo.check(state)
        case.stopped_at = None if result.ok else (result.failed_step or len(result.steps))
        case.wrong_clicks = len(bad)
        case.step_seconds = [round(sum(s.timings.values()), 3) for s in result.steps if s.timings]
        case.seconds = result.seconds
        case.reason = result.reason
        case.rungs = {k: v for k, v in result.counts.items() if v}
        case.run_dir = str(result.run_dir) if result.run_dir else None
        return case

    # -- the baseline ----------------------------------------------------------------------
    def replay_baseline(self, p: Prepared, pert: Perturbation) -> ReplayCase:
        """The recorded events again at the recorded points, keys and pace (pyautogui)."""
        from ..control.pyautogui_controller import PyAutoGuiController
        from ..geometry import Point

        case = ReplayCase(p.demo.name, pert.name, "baseline", len(p.skill.steps),
                          expected_stop=None if pert.keeps_target else first_renamed(p.step_truths, RENAMES))
        controller = PyAutoGuiController(failsafe=False)
        step_of = {id(t): i for i, t in enumerate(p.step_truths, 1) if t is not None}
        truths = list(p.truths)
        with self.playground(f"{pert.name}-{p.demo.name}-baseline", pert.launch) as app:
            started, first = time.monotonic(), p.events[0].time
            for event in p.events:
                time.sleep(max(0.0, started + event.time - first - time.monotonic()))
                if event.kind == "click":
                    truth = next((t for t in truths if t.point == tuple(event.point)), None)
                    if truth is not None:
                        truths.remove(truth)
                        check = judge_click(app.state()["targets"], tuple(event.point), truth, step_of.get(id(truth), 0))
                        case.clicks.append(check)
                    controller.click(Point(*event.point), event.button or "left", event.clicks)
                elif event.kind == "type":
                    controller.type_text(SECRET if event.secret else event.text or "")
                elif event.kind in ("key", "hotkey"):
                    controller.hotkey(*event.keys)
            elapsed = time.monotonic() - started
            state = _final_state(app, p.demo.check)
        bad_steps = {c.step for c in case.clicks if not c.ok}
        case.resolved = case.steps - len(bad_steps)
        case.replay_ok = True
        case.completed = p.demo.check(state)
        case.wrong_clicks = sum(not c.ok for c in case.clicks)
        case.step_seconds = [round(elapsed / case.steps, 3)] * case.steps
        case.seconds = round(elapsed, 3)
        return case


def _params(skill: Any) -> dict[str, str]:
    return {p.name: SECRET for p in skill.parameters if p.secret}


def _final_state(app: Any, check: Any) -> dict[str, Any]:
    from ..playground import PlaygroundError

    try:
        return app.wait_for(check, timeout=FINAL_WAIT_S)
    except PlaygroundError:
        return app.state()


def _skill_json(skill: Any) -> dict[str, Any]:
    from ..memory.rows import skill_to_json

    return skill_to_json(skill, [s.crop for s in skill.steps])


@contextlib.contextmanager
def _screen(size: tuple[int, int] | None) -> Iterator[None]:
    """Another virtual screen of ``size`` for a while (DISPLAY points at it), or nothing."""
    if size is None:
        yield
        return
    from ..display import VirtualDisplay

    with VirtualDisplay(size=size):
        yield


def run_bench(out: Path, demos: Sequence[Demo], perturbations: Sequence[Perturbation], *,
              parser: Any = None, baseline: bool = True, reuse: bool = False,
              log: Any = print) -> list[ReplayCase]:
    """Record ``demos``, replay each under each perturbation (ours, then the baseline)."""
    bench = ReplayBench(out, parser)
    prepared = []
    for demo in demos:
        t = time.monotonic()
        prepared.append(bench.prepare(demo, reuse))
        log(f"recorded and compiled {demo.name!r}: {len(prepared[-1].skill.steps)} steps "
            f"({time.monotonic() - t:.1f}s)")
    cases: list[ReplayCase] = []
    for pert in perturbations:
        with _screen(pert.screen):
            for p in prepared:
                runs = [bench.replay_ours] + ([bench.replay_baseline] if baseline else [])
                for run in runs:
                    case = run(p, pert)
                    cases.append(case)
                    log(describe_case(case))
    return cases


def run_replay_bench(args: argparse.Namespace) -> int:
    """The `gui-agent bench replay` command: 0 when ours meets every target, 1 otherwise."""
    from ..display import ensure_display

    demos = [demo_named(n) for n in _names(args.demos, [d.name for d in DEMOS], "demo")]
    perts = [perturbation_named(n) for n in _names(args.perturbations, [p.name for p in PERTURBATIONS],
                                                   "perturbation")]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if shutil.which("xdotool") is None:
        raise ConfigError("the replay bench drives real input with xdotool: install it (apt-get install xdotool)")
    with ensure_display(True if args.headless else None, size=RECORD_SCREEN):
        cases = run_bench(out, demos, perts, baseline=not args.no_baseline, reuse=args.reuse_demos)
    keeps = [(p.name, p.keeps_target) for p in perts]
    print(format_table(cases, keeps))
    print(format_rungs(cases, [p.name for p in perts]))
    misses = verdict(cases, keeps)
    print("targets met: 100% completed where the target stays, zero wrong clicks, median < 1 s/step"
          if not misses else "missed targets:\n  " + "\n  ".join(misses))
    print(f"per-replay figures: {write_results(out, cases, perts, demos)}")
    return 0 if not misses else 1


def _names(text: str | None, known: list[str], what: str) -> list[str]:
    if not text:
        return known
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ConfigError(f"unknown {what}(s) {', '.join(unknown)}; known: {', '.join(known)}")
    return names


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", type=Path, default=Path("bench-replay"),
                   help="folder for the demonstrations, replays' run folders and figures")
    p.add_argument("--demos", help=f"comma-separated demonstrations (default: all: {', '.join(d.name for d in DEMOS)})")
    p.add_argument("--perturbations",
                   help=f"comma-separated perturbations (default: all: {', '.join(p.name for p in PERTURBATIONS)})")
    p.add_argument("--no-baseline", action="store_true", help="skip the naive recorded-coordinate replays")
    p.add_argument("--reuse-demos", action="store_true",
                   help="compile the demonstrations an earlier run recorded in --out instead of recording anew")
    p.add_argument("--headless", action="store_true", help="always use a virtual display")
