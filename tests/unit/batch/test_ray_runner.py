"""The Ray driver's fault handling, on a real local Ray instance with desktops that need no
display (``tests/support/ray_desktops.py``): a lost worker's task runs again elsewhere (bounded,
recorded), a hung task is stopped with its worker and Ray replaces the worker, and no task is
reported twice. Without Ray, ``--ray`` says how to install it and touches no earlier result."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap

import pytest

from gui_agent.batch.options import BatchOptions
from gui_agent.batch.progress import BatchProgress, describe_record
from gui_agent.batch.results import ResultsLog, read_records
from gui_agent.batch.suite import load_suite
from tests.support.paths import REPO
from tests.support.ray_desktops import FakeDesktop
from tests.support.requirements import require_module

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def ray():
    ray = require_module("ray")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             logging_level=logging.ERROR)
    yield ray
    ray.shutdown()


def run(ray, tmp_path, ids, workers=2, ray_section="task_timeout: 60"):
    from gui_agent.batch.ray_runner import RayBatchRun

    suite_path = tmp_path / "s.yaml"
    tasks = "".join(f"  - {{id: {i}, instruction: click OK}}\n" for i in ids)
    suite_path.write_text(f"tasks:\n{tasks}ray:\n" + textwrap.indent(ray_section, "  "),
                          encoding="utf-8")
    suite = load_suite(suite_path)
    out = tmp_path / "out"
    opts = BatchOptions(suite.path, out, workers=workers, quiet=True, ray="local")
    with ResultsLog(out / "results.jsonl") as results, \
            BatchProgress(len(suite.tasks), quiet=True) as progress:
        batch = RayBatchRun(opts, suite, list(suite.tasks), results, progress,
                            desktop=FakeDesktop)
        try:
            batch.run()
        finally:
            batch.stop_all(graceful=batch.error is None)
    records = read_records(out / "results.jsonl")
    assert len({r.task for r in records}) == len(records), "a task was reported twice"
    return batch, {r.task: r for r in records}


def test_a_task_whose_worker_dies_runs_again_on_a_restarted_worker(ray, tmp_path):
    batch, records = run(ray, tmp_path, ["ok-1", "die-once-a", "ok-2", "ok-3"])
    assert batch.error is None
    assert all(r.passed for r in records.values()) and len(records) == 4
    again = records["die-once-a"]
    assert len(again.retries) == 1 and "was lost while running it" in again.retries[0]
    assert describe_record(again).startswith("PASS die-once-a (1 steps, ") and \
        describe_record(again).endswith(", attempt 2)")
    assert all(not records[k].retries for k in ("ok-1", "ok-2", "ok-3"))


def test_retries_are_bounded_and_recorded(ray, tmp_path):
    batch, records = run(ray, tmp_path, ["die-always-a", "ok-1"],
                         ray_section="task_retries: 1\nrestarts: 3\n")
    assert batch.error is None
    lost = records["die-always-a"]
    assert (lost.outcome, lost.agent_outcome) == ("failed", "crashed")
    assert "its worker was lost 2 times while running it" in lost.reason
    assert len(lost.retries) == 1  # the first attempt; the reason tells the last
    assert records["ok-1"].passed


def test_a_hung_task_is_stopped_with_its_worker_which_ray_replaces(ray, tmp_path):
    batch, records = run(ray, tmp_path, ["ok-1", "hang-a", "ok-2"], workers=1,
                         ray_section="task_timeout: 3\n")
    assert batch.error is None
    hung = records["hang-a"]
    assert (hung.outcome, hung.agent_outcome) == ("failed", "hung")
    assert "no result after 3 s (its limit)" in hung.reason and not hung.retries
    assert records["ok-1"].passed and records["ok-2"].passed
    assert records["ok-2"].node != records["ok-1"].node  # another process: the replacement


def test_when_every_worker_is_gone_the_run_ends_with_an_error(ray, tmp_path):
    batch, records = run(ray, tmp_path, ["die-always-a", "ok-1"], workers=1,
                         ray_section="task_retries: 5\nrestarts: 1\n")
    assert batch.error and "every worker is gone" in batch.error
    assert "ok-1" not in records  # not run, so not recorded: --resume runs it


def test_without_ray_the_command_says_how_to_install_it_and_keeps_results(tmp_path):
    suite = tmp_path / "s.yaml"
    suite.write_text("tasks:\n  - {id: a, instruction: click OK}\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.jsonl").write_text(json.dumps({"task": "a", "outcome": "passed"}) + "\n")
    code = ("import sys; sys.modules['ray'] = None\n"  # as if Ray were not installed
            "from gui_agent.cli import main\n"
            f"sys.exit(main(['batch', {str(suite)!r}, '--ray', 'local', '--out', {str(out)!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "gui-agent: error: --ray needs Ray, which is not installed (import of ray halted; None in "
        "sys.modules): pip install 'gui-agent[cluster]' (or: pip install ray); or leave out "
        "--ray to run the workers as local processes"]
    assert (out / "results.jsonl").read_text().count("passed") == 1


def test_an_address_where_nothing_answers_fails_at_once_in_words(tmp_path):
    require_module("ray")
    suite = tmp_path / "s.yaml"
    suite.write_text("tasks:\n  - {id: a, instruction: click OK}\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "gui_agent.cli", "batch", str(suite), "--ray",
                           "127.0.0.1:1", "--out", str(tmp_path / "out")], capture_output=True,
                          text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)},
                          timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "gui-agent: error: --ray 127.0.0.1:1: nothing answers at 127.0.0.1:1 (Connection "
        "refused); give the head node's address as `ray start --head` prints it, or use --ray "
        "local"]


def test_a_cluster_that_asks_for_a_token_says_how_to_give_it():
    """Ray >= 2.5x starts `ray start --head` with token authentication; without the token Ray
    only says "Failed to connect", the reason being in the error it chains."""
    from types import SimpleNamespace

    from gui_agent.batch.ray_cluster import _connect
    from gui_agent.batch.ray_options import RayOptions
    from gui_agent.errors import ConfigError

    def refused(**_: object) -> None:
        try:
            raise RuntimeError("Failed to connect to GCS: RPC error: InvalidAuthToken: "
                               "Authentication token is missing or incorrect")
        except RuntimeError as cause:
            raise ConnectionError("Failed to connect to Ray cluster at 10.0.0.1:6379") from cause

    def absent(**_: object) -> None:
        raise ConnectionError("Could not find any running Ray instance")

    with pytest.raises(ConfigError, match=r"asks for a token .* RAY_AUTH_MODE=token and "
                                          r"RAY_AUTH_TOKEN to what `ray get-auth-token` prints"):
        _connect(SimpleNamespace(init=refused), "auto", 1, RayOptions())
    with pytest.raises(ConfigError, match="no Ray cluster there"):
        _connect(SimpleNamespace(init=absent), "auto", 1, RayOptions())
