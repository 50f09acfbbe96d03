"""HTML report of one or more runs (demo, batch, replay): summary first, failures first."""

from __future__ import annotations

import html
import os
from dataclasses import dataclass
from pathlib import Path

from .trajectory import RunResult


@dataclass(frozen=True)
class ReportEntry:
    """One task in a report: the run, and whether its checked outcome passed."""

    name: str
    result: RunResult
    passed: bool
    check: str = ""      # what was checked, in words
    detail: str = ""     # why it failed, when it did


def write_report(out_dir: Path, title: str, entries: list[ReportEntry]) -> Path:
    """Write ``out_dir/index.html``; screenshots are linked relative to it, not copied."""
    import jinja2

    out_dir.mkdir(parents=True, exist_ok=True)
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("gui_agent", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
    )

    def rel(run_dir: Path | None, path: str | None) -> str | None:
        if not run_dir or not path:
            return None
        return Path(os.path.relpath(Path(run_dir) / path, out_dir)).as_posix()

    ordered = sorted(entries, key=lambda e: e.passed)  # failures first, stable otherwise
    passed = sum(e.passed for e in entries)
    page = env.get_template("report.html.j2").render(
        title=title, entries=ordered, passed=passed, total=len(entries), rel=rel,
        escape=html.escape,
    )
    index = out_dir / "index.html"
    index.write_text(page, encoding="utf-8")
    return index
