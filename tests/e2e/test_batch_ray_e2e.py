"""End to end: `gui-agent batch --ray` on real Ray, each worker an actor with its own Xvfb and
playground apps.

- The shipped playground suite on a local cluster of two nodes (two raylets on this machine,
  ``ray.cluster_utils.Cluster``) passes every task, as the local runner does
  (``test_gate_batch.py``), with both nodes used and every step's screenshot copied back.
- Killing the second node mid-suite still completes the suite: the task that was running there
  runs again on the other node (recorded in its result), and every task is reported once.
- Ctrl+C on the driver (SIGINT to its process group, as a terminal sends it), then a hard kill
  of the driver, then ``--resume``: nothing finished is lost or run again, and no app, display
  or worker folder outlives the run that started it.

The fault tests use a subset of the suite (6 of its 19 tasks: the tab switches and the item
additions) to keep CI time reasonable; the first test runs all 19.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.support.batch_runs import env, processes_mentioning, records
from tests.support.paths import REPO
from tests.support.requirements import require_module
from tests.support.signals import interruptible

pytestmark = [pytest.mark.e2e("xvfb", "input", "qt"), pytest.mark.slow, pytest.mark.timeout(600)]

SUITE = REPO / "datasets" / "suites" / "playground.yaml"
SUBSET = ("--only", "switch-tab*", "--only", "add-item*")
SUBSET_TASKS = {"switch-tab[Contacts]", "switch-tab[Editor]", "switch-tab[Items]",
                "add-item[Dates]", "add-item[Elderberries]", "add-item[Figs]"}


def batch(out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "gui_agent.cli", "batch", str(SUITE), "--headless", "--quiet",
            "--workers", "2", "--out", str(out), *extra]






def failures(out: Path) -> list[str]:
    return [f"{r['task']}: {r['agent_outcome']} {r['reason']}" for r in records(out)
            if r["outcome"] != "passed"]


def node_folder(out: Path) -> Path:
    """Where the run's workers keep their files on this machine (``ray_actor.node_folder``)."""
    run_id = hashlib.sha1(str(out.resolve()).encode()).hexdigest()[:10]
    return Path(tempfile.gettempdir()) / f"gui-agent-ray-{run_id}"




def assert_nothing_left(out: Path, timeout: float = 60) -> None:
    """No app of the run is still running and its worker folders are gone (the guards)."""
    folder = node_folder(out)
    deadline = time.monotonic() + timeout
    while (processes_mentioning(str(folder)) or folder.exists()) and time.monotonic() < deadline:
        time.sleep(0.3)
    assert not processes_mentioning(str(folder))
    assert not folder.exists(), sorted(folder.rglob("*"))[:10]


def wait_for_records(out: Path, proc: subprocess.Popen, count: int, timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while len(records(out)) < count and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    assert len(records(out)) >= count, "no task finished in time"


@pytest.fixture(scope="module")
def two_nodes():
    """A Ray cluster of two raylets on this machine, one desktop worker's room on each."""
    require_module("ray")
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    second = cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    yield cluster, second
    cluster.shutdown()


def test_the_playground_suite_on_two_nodes_passes_as_the_local_runner_does(tmp_path, two_nodes):
    # The local runner passes every task of this suite (tests/e2e/test_gate_batch.py): on Ray
    # each task must end the same way, as "passed" (its expected outcome met).
    cluster, _ = two_nodes
    on_ray = subprocess.run(batch(tmp_path / "ray", "--ray", cluster.address), cwd=tmp_path,
                            env=env(), capture_output=True, text=True, timeout=400)
    assert on_ray.returncode == 0, (failures(tmp_path / "ray"), on_ray.stderr[-3000:])
    by_ray = {r["task"]: r for r in records(tmp_path / "ray")}
    assert len(by_ray) == len(records(tmp_path / "ray")) == 19  # each task once
    assert all(r["outcome"] == "passed" for r in by_ray.values()), failures(tmp_path / "ray")
    assert len({r["node"] for r in by_ray.values()}) == 2  # both raylets ran desktops
    assert f"results: {tmp_path / 'ray' / 'results.jsonl'}; report: " in on_ray.stdout
    page = (tmp_path / "ray" / "index.html").read_text(encoding="utf-8")
    assert "<b>19 / 19</b> tasks passed" in page
    for r in by_ray.values():  # every step's screenshot came back to the driver's folder
        run_dir = Path(r["run_dir"]) if r["run_dir"] else None
        steps = (run_dir / "steps.jsonl").read_text().splitlines() if run_dir else []
        assert len(steps) == r["steps"] and not r["left_out"], r["task"]
        for line in steps:
            assert (run_dir / json.loads(line)["before"]).is_file()
    assert_nothing_left(tmp_path / "ray")


def test_killing_a_node_mid_suite_still_reports_every_task_once(tmp_path, two_nodes):
    cluster, second = two_nodes
    out = tmp_path / "out"
    log = (tmp_path / "driver.log").open("w")
    driver = subprocess.Popen(batch(out, "--ray", cluster.address, *SUBSET), cwd=tmp_path,
                              env=env(), stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for_records(out, driver, 1)
        cluster.remove_node(second)  # its raylet and its worker processes die now
        assert driver.wait(timeout=400) == 0, (failures(out),
                                               (tmp_path / "driver.log").read_text()[-3000:])
    finally:
        if driver.poll() is None:
            driver.kill()
        log.close()
    final = records(out)
    assert Counter(r["task"] for r in final) == Counter(SUBSET_TASKS)  # each once
    assert all(r["outcome"] == "passed" for r in final)
    retried = [r for r in final if r["retries"]]
    assert retried, "no task was running on the node that was killed"
    assert all("was lost while running it" in r["retries"][0] for r in retried)
    assert_nothing_left(out)


def test_ctrl_c_then_a_driver_kill_then_resume_reruns_only_what_had_not_finished(tmp_path):
    require_module("ray")
    out = tmp_path / "out"

    def start(*extra: str, name: str) -> tuple[subprocess.Popen, object]:
        log = (tmp_path / f"{name}.log").open("w")
        proc = subprocess.Popen(batch(out, "--ray", "local", *SUBSET, *extra), cwd=tmp_path,
                                env=env(), stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, preexec_fn=interruptible)
        return proc, log

    first, log = start(name="first")
    try:
        wait_for_records(out, first, 1)
        os.killpg(first.pid, signal.SIGINT)  # Ctrl+C, as a terminal delivers it: to the group
        assert first.wait(timeout=120) == 130, (tmp_path / "first.log").read_text()[-3000:]
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
        log.close()
    assert "interrupted: stopping the workers" in (tmp_path / "first.log").read_text()
    after_ctrl_c = records(out)
    assert 1 <= len(after_ctrl_c) < len(SUBSET_TASKS)
    assert_nothing_left(out)

    second, log = start("--resume", name="second")
    try:
        wait_for_records(out, second, len(after_ctrl_c) + 1)
    finally:
        os.killpg(second.pid, signal.SIGKILL)  # the driver crashes (and its local cluster)
        second.wait()
        log.close()
    after_kill = records(out)
    assert after_kill[: len(after_ctrl_c)] == after_ctrl_c  # nothing finished was lost
    assert_nothing_left(out)

    third = subprocess.run(batch(out, "--ray", "local", *SUBSET, "--resume"), cwd=tmp_path,
                           env=env(), capture_output=True, text=True, timeout=400)
    assert third.returncode == 0, (failures(out), third.stderr[-3000:])
    final = records(out)
    assert final[: len(after_kill)] == after_kill
    passed_before = {r["task"] for r in after_kill if r["outcome"] == "passed"}
    rerun = [r["task"] for r in final[len(after_kill):]]
    assert sorted(rerun) == sorted(SUBSET_TASKS - passed_before)  # only what had not finished
    passed = Counter(r["task"] for r in final if r["outcome"] == "passed")
    assert set(passed) == SUBSET_TASKS and max(passed.values()) == 1
    assert_nothing_left(out)
