"""The public API: what ``gui_agent`` exports is all the app and the command line import, every
exported name loads, and a plain (non-editable) install works on its own."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from PIL import Image

import gui_agent

ROOT = Path(__file__).resolve().parents[1]


def _imports(folder: Path) -> list[tuple[Path, int, int, str, list[str]]]:
    """(file, line, level, module, names) of every ``from ... import`` under ``folder``."""
    found = []
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                found.append((path, node.lineno, node.level, node.module or "", [a.name for a in node.names]))
            elif isinstance(node, ast.Import):
                found += [(path, node.lineno, 0, a.name, []) for a in node.names]
    return found


def test_the_app_imports_the_engine_only_through_its_public_api():
    wrong = [f"{p.name}:{line} imports {module}" for p, line, level, module, _ in _imports(ROOT / "ui")
             if level == 0 and module.startswith("gui_agent") and module != "gui_agent"]
    assert wrong == []


def test_the_commands_import_the_engine_only_through_its_public_api():
    wrong = [f"{p.name}:{line} imports {'.' * level}{module}"
             for p, line, level, module, _ in _imports(ROOT / "gui_agent" / "commands")
             if (level == 2 and module) or level > 2 or (level == 0 and module.startswith("gui_agent"))]
    assert wrong == []


@pytest.mark.parametrize("folder", ["ui", "gui_agent/commands"])
def test_every_name_they_take_is_exported(folder):
    public = set(gui_agent.__all__)
    taken = {name for _, _, level, module, names in _imports(ROOT / folder)
             if (level == 0 and module == "gui_agent") or (level == 2 and not module) for name in names}
    assert taken - public == set()


def test_every_exported_name_loads():
    for name in gui_agent.__all__:
        assert getattr(gui_agent, name) is not None, name


def test_importing_the_package_loads_no_heavy_module():
    code = ("import sys, gui_agent; heavy = [m for m in ('cv2', 'numpy', 'onnxruntime', 'PySide6', "
            "'torch', 'gui_agent.engine') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


@pytest.mark.e2e
def test_a_plain_install_finds_its_data_and_runs(tmp_path):
    """`pip install .` (not editable): the model registry, prompts and the planner's language
    ship inside the package, so `gui-agent models` and a dry run on a screenshot work."""
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
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
