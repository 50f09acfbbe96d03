"""Run folders carried back from Ray nodes: capped, text first, the overflow named and shown."""

from __future__ import annotations

import io
import tarfile

import pytest
from PIL import Image

from gui_agent.batch.results import ResultsLog, TaskRecord
from gui_agent.batch.run_transfer import pack_files, unpack
from gui_agent.batch.runner import write_batch_report
from gui_agent.batch.suite import load_suite
from gui_agent.geometry import Point
from gui_agent.trajectory import RunFolder, RunResult, StepLog


def make_files(base, sizes):
    for rel, size in sizes.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * size)


def test_text_first_then_screenshots_in_order_while_under_the_cap(tmp_path):
    base = tmp_path / "node"
    make_files(base, {"runs/t/r/run.json": 300, "runs/t/r/steps.jsonl": 900,
                      "runs/t/r/shots/001-before.png": 20_000,
                      "runs/t/r/shots/002-before.png": 90_000,
                      "runs/t/r/shots/003-before.png": 20_000,
                      "work/t/start-1.log": 100, "work/t/state.json": 50_000})
    bundle = pack_files(base, [base / "runs" / "t"], 60_000, logs_only=[base / "work" / "t"])
    assert len(bundle.data) <= 60_000
    assert bundle.left_out == ("runs/t/r/shots/002-before.png",)  # too big; the next still fits
    with tarfile.open(fileobj=io.BytesIO(bundle.data)) as tar:
        names = tar.getnames()
    assert names == ["runs/t/r/run.json", "runs/t/r/steps.jsonl", "work/t/start-1.log",
                     "runs/t/r/shots/001-before.png", "runs/t/r/shots/003-before.png"]
    unpack(bundle.data, tmp_path / "out")
    assert (tmp_path / "out/runs/t/r/shots/003-before.png").stat().st_size == 20_000
    assert not (tmp_path / "out/work/t/state.json").exists()  # only the logs of the work folder


def test_unpack_refuses_a_path_out_of_the_folder(tmp_path):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo("../escaped.txt")
        info.size = 2
        tar.addfile(info, io.BytesIO(b"hi"))
    with pytest.raises(tarfile.TarError):
        unpack(buffer.getvalue(), tmp_path / "out")
    assert not (tmp_path / "escaped.txt").exists()


def test_the_report_names_what_stayed_out_and_links_only_what_came_back(tmp_path):
    suite_path = tmp_path / "s.yaml"
    suite_path.write_text("tasks:\n  - {id: t, instruction: click B}\n", encoding="utf-8")
    suite = load_suite(suite_path)
    out = tmp_path / "out"
    folder = RunFolder(out / "runs" / "001-t", "click B")
    shots = [folder.save_image(f"00{i}-before", Image.new("RGB", (32, 24), "white"), Point(3, 3))
             for i in (1, 2)]
    steps = tuple(StepLog(i, "click B", "click('B')", "ok", before=shot)
                  for i, shot in enumerate(shots, 1))
    for step in steps:
        folder.append_step(step)
    folder.finish(RunResult("click B", "done", steps=steps, run_dir=folder.path))
    gone = f"runs/001-t/{folder.path.name}/{shots[1]}"
    (out / gone).unlink()
    with ResultsLog(out / "results.jsonl") as log:
        log.append(TaskRecord("t", "passed", agent_outcome="done", instruction="click B",
                              run_dir=str(folder.path), node="10.0.0.7/ab12cd34",
                              left_out=[gone]))
    page = write_batch_report(suite, out, list(suite.tasks)).read_text(encoding="utf-8")
    assert "001-before.png" in page and f"src=\"runs/001-t/{folder.path.name}/{shots[1]}" \
        not in page
    assert "1 file(s) of the run folder were not copied back from node 10.0.0.7/ab12cd34" in page
    assert gone in page
