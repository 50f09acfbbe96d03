"""docs/make_screenshots.py: its help, its PNG size limit, and one real picture under Xvfb."""

from __future__ import annotations

import importlib.util
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_tool

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "docs" / "make_screenshots.py"


def _script():
    spec = importlib.util.spec_from_file_location("make_screenshots", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_help_names_every_picture():
    out = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, timeout=30,
                         env=dict(os.environ, COLUMNS="1000"))
    assert out.returncode == 0, out.stderr
    for name in _script().SHOTS:
        assert f"app-{name}.png" in out.stdout


def test_an_unknown_picture_is_refused_with_the_names_to_choose_from():
    out = subprocess.run([sys.executable, str(SCRIPT), "--only", "task,splash"], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 2 and "splash" in out.stderr and "after-run" in out.stderr


def test_a_picture_over_the_limit_gets_fewer_colours_then_smaller(tmp_path):
    from PIL import Image

    rng = random.Random(7)
    noisy = Image.frombytes("RGB", (400, 300), bytes(rng.randrange(256) for _ in range(400 * 300 * 3)))
    size = _script().save_png(noisy, tmp_path / "noisy.png", limit=60_000)
    saved = Image.open(tmp_path / "noisy.png")
    assert size == (tmp_path / "noisy.png").stat().st_size <= 60_000
    assert saved.mode == "P" and saved.width < 400           # quantised, and still too big: downscaled
    flat = Image.new("RGB", (400, 300), "#336699")
    _script().save_png(flat, tmp_path / "flat.png", limit=60_000)
    assert Image.open(tmp_path / "flat.png").size == (400, 300)   # small enough as it is


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
