"""docs/make_screenshots.py: its help and its PNG size limit (one real picture under Xvfb:
tests/e2e/test_screenshots_script_e2e.py)."""

from __future__ import annotations

import importlib.util
import os
import random
import subprocess
import sys

from tests.support.paths import REPO

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
