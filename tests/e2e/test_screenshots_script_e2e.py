"""docs/make_screenshots.py makes one real picture on the test's Xvfb."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from tests.support.paths import REPO
from tests.support.requirements import require_tool

SCRIPT = REPO / "docs" / "make_screenshots.py"


def _script():
    spec = importlib.util.spec_from_file_location("make_screenshots", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.e2e("xvfb", "input", "qt")
def test_the_task_picture_is_made_on_the_test_display(xvfb, tmp_path):
    require_tool("xdotool", apt="xdotool")
    out = subprocess.run([sys.executable, str(SCRIPT), "--use-display", "--only", "task", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=90, env=dict(os.environ))
    assert out.returncode == 0, out.stdout + out.stderr
    from PIL import Image

    made = sorted(p.name for p in tmp_path.iterdir())
    assert made == ["app-task.png"], made
    picture = Image.open(tmp_path / "app-task.png")
    x, y, w, h = _script().APP
    assert picture.size == (w, h) and (tmp_path / "app-task.png").stat().st_size < 250_000
    colours = picture.convert("RGB").getcolors(1 << 16)
    assert colours is None or len(colours) > 50               # a real window, not a blank screen
