"""The README's "Use it from Python" example runs as written, on the playground under Xvfb."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO

pytestmark = pytest.mark.e2e("xvfb", "input", "qt")


def _python_blocks() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", readme, flags=re.S)


def test_the_readme_shows_the_engine_in_about_ten_lines():
    (block,) = _python_blocks()
    code = [line for line in block.splitlines() if line.strip()]
    assert "Engine.from_settings" in block and len(code) <= 10


def test_the_readme_python_example_runs_on_the_playground(xvfb: str, tmp_path: Path) -> None:
    from gui_agent.playground import launch_playground

    (block,) = _python_blocks()
    script = tmp_path / "example.py"
    script.write_text(block, encoding="utf-8")
    env = {**os.environ, "DISPLAY": xvfb, "GUI_AGENT_DATA_DIR": str(tmp_path / "data")}
    with launch_playground(tmp_path / "state.json") as app:
        app.wait_ready()
        run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                             cwd=tmp_path, timeout=240)
    assert run.returncode == 0, run.stderr
    first = run.stdout.splitlines()[0]
    assert first.split()[0] in ("done", "failed", "refused"), run.stdout   # an outcome and its reason
