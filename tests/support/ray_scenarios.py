"""The Ray driver's fault-handling scenarios, run in a process of their own.

``python -m tests.support.ray_scenarios FOLDER NAME…`` starts one local Ray instance and runs
each named scenario (``SCENARIOS``) on the display-free ``FakeDesktop``; each leaves
``FOLDER/NAME/out/results.jsonl`` and ``FOLDER/NAME/error.json`` (the run's error or null).

Why not in the pytest process: ``ray.init`` installs Ray's own fatal-signal handlers there,
replacing faulthandler's, so a later crash anywhere in the suite died without a word.
"""

from __future__ import annotations

import json
import logging
import sys
import textwrap
from pathlib import Path

from gui_agent.batch.options import BatchOptions
from gui_agent.batch.progress import BatchProgress
from gui_agent.batch.results import ResultsLog
from gui_agent.batch.suite import load_suite
from tests.support.ray_desktops import FakeDesktop

# name: (task ids, workers, the suite's ray section)
SCENARIOS: dict[str, tuple[list[str], int, str]] = {
    "lost-once": (["ok-1", "die-once-a", "ok-2", "ok-3"], 2, "task_timeout: 60"),
    "lost-always": (["die-always-a", "ok-1"], 2, "task_retries: 1\nrestarts: 3\n"),
    "hung": (["ok-1", "hang-a", "ok-2"], 1, "task_timeout: 3\n"),
    "all-gone": (["die-always-a", "ok-1"], 1, "task_retries: 5\nrestarts: 1\n"),
}


def run_scenario(folder: Path, ids: list[str], workers: int, ray_section: str) -> str | None:
    """Run one suite of fake tasks on the connected Ray; the run's error, if any."""
    from gui_agent.batch.ray_runner import RayBatchRun

    folder.mkdir(parents=True, exist_ok=True)
    suite_path = folder / "s.yaml"
    tasks = "".join(f"  - {{id: {i}, instruction: click OK}}\n" for i in ids)
    suite_path.write_text(f"tasks:\n{tasks}ray:\n" + textwrap.indent(ray_section, "  "),
                          encoding="utf-8")
    suite = load_suite(suite_path)
    out = folder / "out"
    opts = BatchOptions(suite.path, out, workers=workers, quiet=True, ray="local")
    with ResultsLog(out / "results.jsonl") as results, \
            BatchProgress(len(suite.tasks), quiet=True) as progress:
        batch = RayBatchRun(opts, suite, list(suite.tasks), results, progress,
                            desktop=FakeDesktop)
        try:
            batch.run()
        finally:
            batch.stop_all(graceful=batch.error is None)
    return batch.error


def main(argv: list[str]) -> int:
    import ray

    folder, names = Path(argv[0]), argv[1:]
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             logging_level=logging.ERROR)
    try:
        for name in names:
            ids, workers, section = SCENARIOS[name]
            error = run_scenario(folder / name, ids, workers, section)
            (folder / name / "error.json").write_text(json.dumps(error), encoding="utf-8")
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
