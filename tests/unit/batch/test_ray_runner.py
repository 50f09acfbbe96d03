"""The Ray driver's fault handling, on a real local Ray instance with desktops that need no
display (``tests/support/ray_desktops.py``): a lost worker's task runs again elsewhere (bounded,
recorded), a hung task is stopped with its worker and Ray replaces the worker, and no task is
reported twice (the driver runs in a child process: ``tests/support/ray_scenarios.py`` says
why). Without Ray, ``--ray`` says how to install it and touches no earlier result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gui_agent.batch.progress import describe_record
from gui_agent.batch.results import TaskRecord, read_records
from tests.support.paths import REPO
from tests.support.ray_scenarios import SCENARIOS
from tests.support.requirements import require_module

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory) -> Path:
    """Every scenario of ``tests/support/ray_scenarios.py``, run once in a child process."""
    require_module("ray")
    folder = tmp_path_factory.mktemp("ray-scenarios")
    done = subprocess.run([sys.executable, "-m", "tests.support.ray_scenarios", str(folder),
                           *SCENARIOS], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=170)
    assert done.returncode == 0, done.stderr[-3000:]
    return folder


def outcome(folder: Path, name: str) -> tuple[str | None, dict[str, TaskRecord]]:
    """The scenario's run error and its records by task; no task may be reported twice."""
    error = json.loads((folder / name / "error.json").read_text(encoding="utf-8"))
    records = read_records(folder / name / "out" / "results.jsonl")
    assert len({r.task for r in records}) == len(records), "a task was reported twice"
    return error, {r.task: r for r in records}


def test_a_task_whose_worker_dies_runs_again_on_a_restarted_worker(scenarios):
    error, records = outcome(scenarios, "lost-once")
    assert error is None
    assert all(r.passed for r in records.values()) and len(records) == 4
    again = records["die-once-a"]
    assert len(again.retries) == 1 and "was lost while running it" in again.retries[0]
    assert describe_record(again).startswith("PASS die-once-a (1 steps, ") and \
        describe_record(again).endswith(", attempt 2)")
    assert all(not records[k].retries for k in ("ok-1", "ok-2", "ok-3"))


def test_retries_are_bounded_and_recorded(scenarios):
    error, records = outcome(scenarios, "lost-always")
    assert error is None
    lost = records["die-always-a"]
    assert (lost.outcome, lost.agent_outcome) == ("failed", "crashed")
    assert "its worker was lost 2 times while running it" in lost.reason
    assert len(lost.retries) == 1  # the first attempt; the reason tells the last
    assert records["ok-1"].passed


def test_a_hung_task_is_stopped_with_its_worker_which_ray_replaces(scenarios):
    error, records = outcome(scenarios, "hung")
    assert error is None
    hung = records["hang-a"]
    assert (hung.outcome, hung.agent_outcome) == ("failed", "hung")
    assert "no result after 3 s (its limit)" in hung.reason and not hung.retries
    assert records["ok-1"].passed and records["ok-2"].passed
    assert records["ok-2"].node != records["ok-1"].node  # another process: the replacement


def test_when_every_worker_is_gone_the_run_ends_with_an_error(scenarios):
    error, records = outcome(scenarios, "all-gone")
    assert error and "every worker is gone" in error
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
