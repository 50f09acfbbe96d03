"""The public API: what ``gui_agent`` exports is all the app and the command line import, and
every exported name loads. A plain (non-editable) install: tests/e2e/test_public_api_e2e.py."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import gui_agent
from tests.support.paths import REPO


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
    wrong = [f"{p.name}:{line} imports {module}" for p, line, level, module, _ in _imports(REPO / "ui")
             if level == 0 and module.startswith("gui_agent") and module != "gui_agent"]
    assert wrong == []


def test_the_commands_import_the_engine_only_through_its_public_api():
    wrong = [f"{p.name}:{line} imports {'.' * level}{module}"
             for p, line, level, module, _ in _imports(REPO / "gui_agent" / "commands")
             if (level == 2 and module) or level > 2 or (level == 0 and module.startswith("gui_agent"))]
    assert wrong == []


@pytest.mark.parametrize("folder", ["ui", "gui_agent/commands"])
def test_every_name_they_take_is_exported(folder):
    public = set(gui_agent.__all__)
    taken = {name for _, _, level, module, names in _imports(REPO / folder)
             if (level == 0 and module == "gui_agent") or (level == 2 and not module) for name in names}
    assert taken - public == set()


def test_every_exported_name_loads():
    for name in gui_agent.__all__:
        assert getattr(gui_agent, name) is not None, name


def test_importing_the_package_loads_no_heavy_module():
    code = ("import sys, gui_agent; heavy = [m for m in ('cv2', 'numpy', 'onnxruntime', 'PySide6', "
            "'torch', 'gui_agent.engine') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"
