"""`gui-agent bench latency`: the time of one agent step, stage by stage, on a real screen.

For each screen size a virtual display is started and the playground app opened full-screen;
the offline agent then does short tasks with real input. Three kinds of step are measured:
*new screen* steps (a step on a screen never seen before: a full OCR read; the four such
tasks are run ``--repeats`` times, the parser's caches emptied before each),
*changing* steps (switch to a tab seen before, type into a field: what changed is read again)
and *unchanged* steps (click a static heading: nothing on screen changes, so parsing is cached).
Reported per stage: the median over all steps of that kind. ``step`` is capture + parse + plan
+ ground + act; ``settle`` (waiting for the application to finish redrawing) is listed apart.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

from ..errors import ConfigError

STAGES = ("capture", "parse", "plan", "ground", "act")
CHANGING_TASKS = (
    'click "Settings"', 'click "Items"', 'type "pear{r}" into the New item field',
    'click "Contacts"', 'click "Login"', 'type "user{r}" into the Username field',
)
UNCHANGED_TASK = 'click "Sign in"'
# Step 2 of each of these acts on a screen the agent has not seen yet.
FIRST_VISIT_TASKS = (
    'click "Settings", then click "Open settings…", then click "Cancel"',
    'click "Items", then click "Bananas"',
    'click "Contacts", then click the Edit button next to Bob',
    'click "Editor", then click "File"',
)


def _sizes(text: str) -> list[tuple[int, int]]:
    try:
        return [tuple(int(v) for v in part.lower().split("x")) for part in text.split(",")]  # type: ignore[misc]
    except ValueError as exc:
        raise ConfigError(f"--sizes takes WxH,WxH (e.g. 1280x800,1920x1080), not {text!r}") from exc


def _medians(steps: list[dict[str, float]]) -> dict[str, float]:
    out = {s: statistics.median(t.get(s, 0.0) for t in steps) for s in (*STAGES, "settle")}
    out["step"] = statistics.median(sum(t.get(s, 0.0) for s in STAGES) for t in steps)
    out["n"] = len(steps)
    return out


def measure_size(width: int, height: int, repeats: int) -> dict[str, dict[str, float]]:
    from ..config import Settings
    from ..display import VirtualDisplay
    from ..engine import Engine
    from ..playground import launch_playground

    with tempfile.TemporaryDirectory() as tmp, VirtualDisplay(size=(width, height)):
        settings = Settings(safety="allow", save_screenshots=False, runs_dir=Path(tmp) / "runs",
                            max_steps=10)
        with launch_playground(Path(tmp) / "state.json", size=(width, height)) as app:
            app.wait_ready()
            agent = Engine.from_settings(settings, use_memory=False)
            agent.run('click "Login"')  # warm-up: load the OCR models
            first: list[dict[str, float]] = []
            changing: list[dict[str, float]] = []
            unchanged: list[dict[str, float]] = []
            for _ in range(repeats):
                for task in FIRST_VISIT_TASKS:
                    if agent.parser is not None:   # step 2 then reads a screen never seen
                        agent.parser.reset(ocr_cache=True)
                    result = agent.run(task)
                    first += [s.timings for s in result.steps[1:2] if s.outcome == "ok"]
                agent.run("press Escape")    # close what the last task left open
            for task in FIRST_VISIT_TASKS:       # unmeasured: the changing steps below are on
                agent.run(task)                  # screens seen before, which the resets forgot
            agent.run("press Escape")
            for r in range(repeats):
                for task in CHANGING_TASKS:
                    result = agent.run(task.format(r=r))
                    changing += [s.timings for s in result.steps if s.outcome == "ok"]
                agent.run('click "Login"')
                for _ in range(2):
                    result = agent.run(UNCHANGED_TASK)
                    unchanged += [s.timings for s in result.steps if s.outcome == "ok"]
    if not first or not changing or not unchanged:
        raise ConfigError("the benchmark's steps failed; run `gui-agent demo` to see why")
    return {"new screen": _medians(first), "changing": _medians(changing),
            "unchanged": _medians(unchanged)}


def run_latency_bench(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    results: dict[str, dict[str, dict[str, float]]] = {}
    for w, h in _sizes(args.sizes):
        results[f"{w}x{h}"] = measure_size(w, h, args.repeats)
    table = Table(title="median seconds per agent step (offline planner, real input, Xvfb)")
    table.add_column("screen", no_wrap=True)
    table.add_column("kind of step", no_wrap=True)
    for col in (*STAGES, "step", "settle", "n"):
        table.add_column(col, justify="right")
    for size, kinds in results.items():
        for kind, m in kinds.items():
            table.add_row(size, kind, *(f"{m[c]:.3f}" for c in (*STAGES, "step", "settle")), str(m["n"]))
    Console(width=140).print(table)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
        print(f"wrote {args.json}")
    return 0
