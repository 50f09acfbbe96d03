"""A plain (non-editable) install works on its own: a wheel of the checkout in a fresh venv."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from PIL import Image

from tests.support.paths import REPO


@pytest.mark.e2e
def test_a_plain_install_finds_its_data_and_runs(tmp_path):
    """`pip install .` (not editable): the model registry, prompts and the planner's language
    ship inside the package, so `gui-agent models` and a dry run on a screenshot work."""
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(REPO)],
                   check=True, capture_output=True, timeout=300)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # The dependencies come from this environment; gui-agent itself only from the wheel, installed
    # by the new environment's own pip (this environment's pip would uninstall the checkout's).
    (site / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    wheel = next(wheels.glob("gui_agent-*.whl"))
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "-q", str(wheel)],
                   check=True, capture_output=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    where = subprocess.run([str(python), "-c", "import gui_agent; print(gui_agent.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, env=env, check=True)
    assert str(venv) in where.stdout, where.stdout           # not the checkout
    models = subprocess.run([str(python), "-m", "gui_agent.cli", "models"], capture_output=True, text=True,
                            cwd=tmp_path, env=env, timeout=120)
    assert models.returncode == 0 and "ui-tars" in models.stdout, models.stdout + models.stderr
    shot = tmp_path / "shot.png"
    Image.new("RGB", (320, 200), "white").save(shot)
    run = subprocess.run([str(python), "-m", "gui_agent.cli", "run", "--screenshot", str(shot), "--dry-run",
                          "--runs-dir", str(tmp_path / "runs"), "press Enter"],
                         capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert run.returncode == 0 and "would" in run.stdout, run.stdout + run.stderr
