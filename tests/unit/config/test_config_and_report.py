from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from gui_agent.config import Settings, load_settings
from gui_agent.errors import ConfigError
from gui_agent.report import ReportEntry, write_report
from gui_agent.trajectory import RunFolder, RunResult, StepLog, load_run


def test_settings_layer_defaults_file_and_environment(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('[agent]\nmax_steps = 12\nsafety = "refuse"\nallow = ["delete"]\n')
    s = load_settings(cfg, env={"GUI_AGENT_MAX_SECONDS": "42", "GUI_AGENT_MAX_STEPS": "7"})
    assert (s.max_steps, s.safety, s.allow, s.max_seconds) == (7, "refuse", ("delete",), 42.0)
    assert s.with_overrides(max_steps=None, monitor=2).monitor == 2


@pytest.mark.parametrize(
    ("content", "env", "message"),
    [
        ("[agent]\nmax_step = 3\n", {}, "unknown setting 'max_step'"),
        ("[agent\n", {}, "not a valid TOML"),
        ('[agent]\nsafety = "maybe"\n', {}, "safety must be one of"),
        ("", {"GUI_AGENT_MAX_STEPS": "lots"}, "GUI_AGENT_MAX_STEPS"),
    ],
)
def test_bad_settings_are_clear_errors(tmp_path, content, env, message):
    cfg = tmp_path / "config.toml"
    cfg.write_text(content)
    with pytest.raises(ConfigError, match=message):
        load_settings(cfg, env=env)


def test_report_lists_failures_first_with_screenshots(tmp_path):
    runs = tmp_path / "runs"
    results = []
    for task, outcome in (("click A", "done"), ("click B", "failed")):
        folder = RunFolder(runs, task)
        shot = folder.save_image("001-before", Image.new("RGB", (50, 40), "white"))
        step = StepLog(1, task, f"click('{task[-1]}')", "ok" if outcome == "done" else "failed",
                       before=shot, timings={"parse": 0.1})
        folder.append_step(step)
        result = RunResult(task, outcome, "" if outcome == "done" else "could not find 'B'",
                           steps=(step,), run_dir=folder.path, seconds=1.0)
        folder.finish(result)
        results.append(load_run(folder.path))
    entries = [ReportEntry(r.task, r, r.outcome == "done", "checked") for r in results]
    index = write_report(tmp_path / "report", "Test report", entries)
    page = index.read_text()
    assert "1 / 2" in page
    assert page.index("click B") < page.index("click A")  # failures first
    img = page.split('<img src="', 1)[1].split('"', 1)[0]
    assert (index.parent / img).resolve().exists()


def test_run_folder_keeps_finished_steps_when_the_run_dies(tmp_path):
    folder = RunFolder(tmp_path, "task")
    folder.append_step(StepLog(1, "task", "click('A')", "ok"))
    # no finish(): the process died; the step line is already on disk
    lines = (folder.path / "steps.jsonl").read_text().splitlines()
    assert len(lines) == 1 and "click('A')" in lines[0]
    assert isinstance(Settings().runs_dir, Path)
