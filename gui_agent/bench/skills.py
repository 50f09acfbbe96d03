"""`gui-agent bench skills`: what the experience memory saves on repeated task families.

Each family is a kind of task asked with other values (and other phrasings). Every measured task
runs twice on a fresh playground with real input: once from scratch (memory off), and once with
memory on after a few warm-up runs of the family taught it a skill. Counted per task: planner
calls (plan, replan, next action), grounding calls (full OCR parses and region reads; VLM calls
when a model is configured), steps, agent seconds, and success checked on the app's own state.
Every task starts like a fresh `gui-agent run`: the screen parser's caches are emptied first.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

State = dict[str, Any]


@dataclass(frozen=True)
class Case:
    task: str
    check: Callable[[State], bool]


@dataclass(frozen=True)
class Family:
    name: str
    warmup: tuple[Case, ...]     # runs that teach the memory (not measured)
    measured: tuple[Case, ...]   # asked from scratch and again with memory


def _logged_in(user: str) -> Callable[[State], bool]:
    return lambda s: s["login"]["logged_in_as"] == user


def _item_added(name: str) -> Callable[[State], bool]:
    return lambda s: s["items"]["list"][-1:] == [name]


def _name_applied(name: str) -> Callable[[State], bool]:
    return lambda s: s["settings"]["applied"]["name"] == name


def _note_saved(file: str, text: str) -> Callable[[State], bool]:
    return lambda s: any(Path(f["path"]).name == file and f["content"] == text
                         for f in s["editor"]["saved_files"])


def _login(user: str, pw: str, phrasing: int = 0) -> Case:
    forms = (f'type "{user}" into the Username field, type "{pw}" into the Password field, then click "Log in"',
             f'please type "{user}" into the Username field and type "{pw}" into the Password field, '
             'then click "Log in"')
    return Case(forms[phrasing], _logged_in(user))


def _item(name: str, phrasing: int = 0) -> Case:
    forms = (f'click "Items", type "{name}" into the New item field, then click "Add"',
             f'click "Items" and type "{name}" into the New item field, then click "Add" please')
    return Case(forms[phrasing], _item_added(name))


def _rename(name: str, phrasing: int = 0) -> Case:
    forms = (f'click the Settings tab, click "Open settings…", type "{name}" into the Name field, then click "OK"',
             f'click the Settings tab, then click "Open settings…", type "{name}" into the Name field and '
             'click "OK"')
    return Case(forms[phrasing], _name_applied(name))


def _note(text: str, file: str, phrasing: int = 0) -> Case:
    forms = (f'click the Editor tab, click the text area, type "{text}", then press Ctrl+S, type "{file}" '
             'and press Enter',
             f'click the Editor tab and click the text area, type "{text}", press Ctrl+S, then type "{file}" '
             'and press Enter')
    return Case(forms[phrasing], _note_saved(file, text))


FAMILIES: tuple[Family, ...] = (
    Family("sign in", (_login("ann", "pw-one"), _login("bob", "pw-two")),
           (_login("carol", "s3cret"), _login("dave", "hunter22", 1), _login("erin", "pa55word", 1))),
    Family("add an item", (_item("Dates"), _item("Figs")),
           (_item("Kiwis"), _item("Lemons", 1), _item("Mangos", 1))),
    Family("rename in settings", (_rename("Ann Lee"), _rename("Bo Chen")),
           (_rename("Cy Diaz"), _rename("Di Evans", 1), _rename("Ed Fox", 1))),
    Family("save a note", (_note("first note", "a.txt"), _note("second note", "b.txt")),
           (_note("third note", "c.txt"), _note("fourth note", "d.txt", 1), _note("fifth one", "e.txt", 1))),
)


@dataclass(frozen=True)
class CaseResult:
    family: str
    task: str
    mode: str               # scratch | memory | warmup
    ok: bool
    planner_calls: int
    grounding_calls: int
    steps: int
    seconds: float
    skill: str | None
    reason: str = ""


class Bench:
    """One playground per task; one screen parser for the whole bench (OCR models load once)."""

    def __init__(self, out: Path) -> None:
        from ..parsing.screen_parser import ScreenParser

        self.out = out
        self.parser = ScreenParser()

    def run(self, family: Family, case: Case, mode: str, memory: Any | None) -> CaseResult:
        from ..config import Settings
        from ..control.pyautogui_controller import PyAutoGuiController
        from ..desktop import LiveDesktop
        from ..engine import Engine
        from ..grounding.default import default_ladder
        from ..grounding.queries import ScreenQueries
        from ..planner import offline_planner
        from ..playground import launch_playground
        from .counting import CountingParser, counted_planner

        counter: dict[str, int] = {}
        # Each task starts as a new `gui-agent run` would: nothing read before is cached (the OCR
        # models stay loaded, so their load time is left out of both modes).
        self.parser.reset(ocr_cache=True)
        parser = CountingParser(self.parser, counter)
        ladder, _ = default_ladder(parser)
        settings = Settings(safety="refuse", max_steps=25, max_seconds=120, runs_dir=self.out / "runs")
        with tempfile.TemporaryDirectory() as tmp, launch_playground(
                Path(tmp) / "state.json", save_dir=Path(tmp) / "files") as app:
            app.wait_ready()
            queries = ScreenQueries(ladder, parser)
            planner = counted_planner(offline_planner(queries.checked_state, queries.shown_text), counter)
            agent = Engine(LiveDesktop(PyAutoGuiController(), settings.monitor), planner, settings=settings,
                           ladder=ladder, parser=parser, memory=memory)
            result = agent.run(case.task)
            with contextlib.suppress(Exception):
                app.wait_for(lambda s: True, timeout=0.5)
            state = app.state()
        ok = result.ok and case.check(state)
        reason = result.reason if not result.ok else ("" if ok else "the app's state is not as asked")
        return CaseResult(family.name, case.task, mode, ok, counter.get("planner", 0), counter.get("ocr", 0),
                          len(result.steps), result.seconds, result.skill, reason)


def _sum(rows: list[CaseResult], field: str) -> float:
    return sum(getattr(r, field) for r in rows)


def _fewer(a: float, b: float, unit: str = "") -> str:
    """'30 -> 0 (none left)', '25.2 s -> 8.9 s (2.8x less)'."""
    fa, fb = (f"{a:.1f}{unit}", f"{b:.1f}{unit}") if unit else (f"{a:g}", f"{b:g}")
    if not b:
        return f"{fa} -> {fb} (none left)" if a else f"{fa} -> {fb}"
    return f"{fa} -> {fb} ({a / b:.1f}x less)"


def format_table(results: list[CaseResult]) -> str:
    lines = [f"{'family':<20} {'mode':<8} {'ok':>5} {'plan':>5} {'ocr':>5} {'calls':>6} {'steps':>6} "
             f"{'seconds':>8} {'as skill':>8}"]
    families = list(dict.fromkeys(r.family for r in results))
    totals: dict[str, list[CaseResult]] = {"scratch": [], "memory": []}
    for fam in families:
        for mode in ("scratch", "memory"):
            rows = [r for r in results if r.family == fam and r.mode == mode]
            totals[mode].extend(rows)
            lines.append(_row(fam, mode, rows))
        s = [r for r in results if r.family == fam and r.mode == "scratch"]
        m = [r for r in results if r.family == fam and r.mode == "memory"]
        lines.append(f"{'':<20} {'ratio':<8} calls {_fewer(_calls(s), _calls(m))}, "
                     f"time {_fewer(_sum(s, 'seconds'), _sum(m, 'seconds'), ' s')}")
    s, m = totals["scratch"], totals["memory"]
    lines.append(_row("ALL", "scratch", s))
    lines.append(_row("ALL", "memory", m))
    lines.append(f"overall: planner+grounding calls {_fewer(_calls(s), _calls(m))}; agent time "
                 f"{_fewer(_sum(s, 'seconds'), _sum(m, 'seconds'), ' s')}; success "
                 f"{sum(r.ok for r in s)}/{len(s)} from scratch, {sum(r.ok for r in m)}/{len(m)} with memory")
    return "\n".join(lines)


def _calls(rows: list[CaseResult]) -> float:
    return _sum(rows, "planner_calls") + _sum(rows, "grounding_calls")


def _row(fam: str, mode: str, rows: list[CaseResult]) -> str:
    skill = sum(r.skill is not None for r in rows)
    return (f"{fam:<20} {mode:<8} {sum(r.ok for r in rows):>2}/{len(rows):<2} "
            f"{int(_sum(rows, 'planner_calls')):>5} {int(_sum(rows, 'grounding_calls')):>5} "
            f"{int(_calls(rows)):>6} {int(_sum(rows, 'steps')):>6} {_sum(rows, 'seconds'):>8.1f} "
            f"{skill:>4}/{len(rows):<3}")


def run_skills_bench(args: argparse.Namespace) -> int:
    from ..display import ensure_display
    from ..memory.experience import ExperienceMemory
    from ..memory.store import MemoryStore

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    families = [f for f in FAMILIES if not args.families or f.name in args.families.split(",")]
    results: list[CaseResult] = []
    with ensure_display(True if args.headless else None), tempfile.TemporaryDirectory() as tmp:
        bench = Bench(out)
        bench.parser.parse(_blank())  # load the OCR models before anything is timed
        memory = ExperienceMemory(MemoryStore(Path(tmp) / "memory.sqlite3"))
        try:
            for family in families:
                for case in family.measured:
                    results.append(_show(bench.run(family, case, "scratch", None)))
                for case in family.warmup:
                    _show(bench.run(family, case, "warmup", memory))
                for case in family.measured:
                    results.append(_show(bench.run(family, case, "memory", memory)))
            skills = [s.name for s in memory.store.list_skills(include_flagged=True)]
        finally:
            memory.close()
    print(format_table(results))
    print(f"skills learned: {', '.join(skills) or 'none'}")
    seconds = [r.seconds / max(r.steps, 1) for r in results if r.mode == "memory"]
    if seconds:
        print(f"median seconds per step with skills: {statistics.median(seconds):.2f}")
    (out / "skills-bench.json").write_text(json.dumps([asdict(r) for r in results], indent=1), encoding="utf-8")
    print(f"per-task figures: {out / 'skills-bench.json'}")
    return 0 if all(r.ok for r in results) else 1


def _blank() -> Any:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (320, 80), "white")
    ImageDraw.Draw(img).text((10, 30), "warm up", fill="black")
    return img


def _show(r: CaseResult) -> CaseResult:
    via = f" as skill {r.skill!r}" if r.skill else ""
    tail = f" — {r.reason}" if r.reason else ""
    print(f"  [{r.mode:<7}] {'ok ' if r.ok else 'FAIL'} {r.task[:70]!r}: {r.steps} steps, {r.planner_calls} planner, "
          f"{r.grounding_calls} OCR, {r.seconds:.1f}s{via}{tail}", flush=True)
    return r


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", type=Path, default=Path("bench-skills"), help="folder for runs and figures")
    p.add_argument("--families", help="comma-separated family names (default: all)")
    p.add_argument("--headless", action="store_true", help="always use a virtual display")
