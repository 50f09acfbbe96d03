"""Applications start in the user's environment, not the one our libraries altered on import
(opencv-python points Qt at its bundled Qt 5 plugins: a system Qt application started after it
aborted with "no Qt platform plugin could be initialized")."""

from __future__ import annotations

import os
import subprocess

from gui_agent.control import app_env, launcher
from gui_agent.control.app_env import app_environment
from gui_agent.control.app_registry import AppEntry

CV2 = "/venv/lib/python3.11/site-packages/cv2"
ALTERED = {
    "QT_QPA_PLATFORM_PLUGIN_PATH": f"{CV2}/qt/plugins",
    "QT_QPA_FONTDIR": f"{CV2}/qt/fonts",
    "LD_LIBRARY_PATH": f"{CV2}/../../lib64:/opt/mine/lib",
    "QT_PLUGIN_PATH": "/opt/my-qt/plugins",          # the user's own: kept
    "DISPLAY": ":7",
}


def test_what_points_inside_an_altering_package_is_left_out() -> None:
    env = app_environment(ALTERED, package_dirs=(CV2,))
    assert env == {"LD_LIBRARY_PATH": "/opt/mine/lib", "QT_PLUGIN_PATH": "/opt/my-qt/plugins",
                   "DISPLAY": ":7"}
    only_cv2 = app_environment({"LD_LIBRARY_PATH": f"{CV2}/../../lib64:"}, package_dirs=(CV2,))
    assert only_cv2 == {}
    assert app_environment(ALTERED, package_dirs=()) == ALTERED      # nothing altered: as is
    near_miss = {"QT_QPA_FONTDIR": f"{CV2}-extras/fonts"}            # not inside the folder
    assert app_environment(near_miss, package_dirs=(CV2,)) == near_miss


def test_the_altering_package_is_found_where_it_is_installed() -> None:
    import importlib.util

    spec = importlib.util.find_spec("cv2")
    assert spec is not None and spec.submodule_search_locations
    assert os.path.normpath(spec.submodule_search_locations[0]) in app_env._package_dirs()


def test_an_application_is_launched_without_opencvs_qt_plugins(monkeypatch) -> None:
    seen: dict[str, dict[str, str]] = {}

    class FakePopen:
        def __init__(self, argv, **kwargs):
            seen["env"] = kwargs["env"]

    monkeypatch.setattr(subprocess, "Popen", FakePopen)
    monkeypatch.setattr(app_env, "_package_dirs", lambda: (CV2,))
    for name, value in ALTERED.items():
        monkeypatch.setenv(name, value)
    launcher.start(AppEntry("featherpad", ("featherpad",), "test"))
    env = seen["env"]
    assert "QT_QPA_PLATFORM_PLUGIN_PATH" not in env and "QT_QPA_FONTDIR" not in env
    assert env["LD_LIBRARY_PATH"] == "/opt/mine/lib" and env["DISPLAY"] == ":7"
