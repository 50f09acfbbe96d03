"""The README's multi-machine Ray recipe, run as written on this machine.

`ray start --head --num-cpus=0`, `ray start --address=HEAD:PORT ... --resources='{"desktop": N}'`
and `gui-agent batch suite.yaml --ray HEAD:PORT`, with only the address, the sizes and the suite
filled in: the head gets no desktop, the suite's `ray: {resources: {desktop: 1}}` sends its
worker to the desktop node, and the tasks pass.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.e2e.test_batch_ray_e2e import SUBSET_TASKS, SUITE, assert_nothing_left, failures
from tests.support.batch_runs import env, processes_mentioning, records
from tests.support.paths import REPO
from tests.support.requirements import require_module

pytestmark = [pytest.mark.e2e("xvfb", "input", "qt"), pytest.mark.slow, pytest.mark.timeout(600)]


def _stop_processes_mentioning(text: str) -> None:
    """Stop the Ray processes of this cluster only (`ray stop` would stop every Ray here)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for line in processes_mentioning(text):
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(line.split(":")[0]), sig)
        deadline = time.monotonic() + 15
        while processes_mentioning(text) and time.monotonic() < deadline:
            time.sleep(0.3)


def _readme_cluster_recipe() -> list[str]:
    """The README's multi-machine recipe: the fenced lines around `ray start --head`."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = next(b for b in text.split("```")[1::2] if "ray start --head" in b)
    return [line.split("#")[0].strip() for line in block.splitlines()[1:] if line.split("#")[0].strip()]


def test_the_readme_cluster_recipe_runs_as_written(tmp_path):
    """`ray start --head`, `ray start --address=...` and `gui-agent batch --ray HEAD:PORT`, as the
    README shows them, on this machine: a head with no CPUs, one desktop node, the suite's
    `ray: {resources: {desktop: 1}}` sending the worker there."""
    require_module("ray")

    ray = Path(sys.executable).with_name("ray")
    assert ray.exists(), "the ray command is installed with the cluster extra"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    suite_dir = tmp_path / "suite"
    suite_dir.mkdir()
    for csv in SUITE.parent.glob("*.csv"):
        shutil.copy(csv, suite_dir)
    (suite_dir / "suite.yaml").write_text(
        SUITE.read_text(encoding="utf-8") + "\nray:\n  resources: {desktop: 1}\n", encoding="utf-8")
    recipe = _readme_cluster_recipe()
    assert [line.split()[:2] for line in recipe] == [
        ["ray", "start"], ["ray", "get-auth-token"], ["export", "RAY_AUTH_MODE=token"],
        ["ray", "start"], ["gui-agent", "batch"]]
    fill = {"HEAD_IP": "127.0.0.1", "6379": str(port), "--num-cpus=8": "--num-cpus=1",
            '{"desktop": 8}': '{"desktop": 1}', "--workers 16": "--workers 1",
            "suite.yaml": str(suite_dir / "suite.yaml")}
    out = tmp_path / "out"
    # a short folder of its own: Ray's socket paths must stay under 108 characters, and its
    # processes are told apart from any other Ray on the machine by it
    ray_tmp = tempfile.mkdtemp(prefix="gar-")
    shell = {**env(), "RAY_TMPDIR": ray_tmp}
    token = ""
    try:
        for line in recipe:
            for placeholder, value in {**fill, "TOKEN": token}.items():
                line = line.replace(placeholder, value)
            argv = shlex.split(line)
            if argv[0] == "export":       # the shell's export, as the README's reader runs it
                shell.update(word.split("=", 1) for word in argv[1:])
                continue
            if argv[0] == "gui-agent":
                argv = [sys.executable, "-m", "gui_agent.cli", *argv[1:], "--headless", "--quiet",
                        "--out", str(out), "--only", "add-item*"]
            else:
                argv = [str(ray), *argv[1:]]
            done = subprocess.run(argv, cwd=tmp_path, env=shell, capture_output=True, text=True,
                                  timeout=400)
            assert done.returncode == 0, (line, failures(out), done.stdout[-2000:],
                                          done.stderr[-3000:])
            if argv[1] == "get-auth-token":
                token = done.stdout.strip()
                assert len(token) >= 32, done.stdout
    finally:
        _stop_processes_mentioning(ray_tmp)
        shutil.rmtree(ray_tmp, ignore_errors=True)
    final = records(out)
    assert sorted(r["task"] for r in final) == sorted(t for t in SUBSET_TASKS if t.startswith("add-item"))
    assert all(r["outcome"] == "passed" for r in final)
    assert_nothing_left(out)
