"""The environment applications are started in: this process's, less what gui-agent's own
libraries changed in it when they were imported.

opencv-python points Qt at the Qt 5 plugins it bundles (``QT_QPA_PLATFORM_PLUGIN_PATH``,
``QT_QPA_FONTDIR``) and puts its own libraries first on ``LD_LIBRARY_PATH``, in ``os.environ``,
on import. A Qt application started afterwards loads those plugins against the system's Qt and
aborts ("no Qt platform plugin could be initialized"). What points inside such a package is
left out; everything else the user set is kept.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from functools import lru_cache

# Packages that change os.environ when imported (their folders are what gets left out).
ALTERING_PACKAGES = ("cv2",)
_PLUGIN_VARIABLES = ("QT_QPA_PLATFORM_PLUGIN_PATH", "QT_QPA_FONTDIR", "QT_PLUGIN_PATH")
_PATH_LISTS = ("LD_LIBRARY_PATH",)


@lru_cache(maxsize=1)
def _package_dirs() -> tuple[str, ...]:
    found = []
    for name in ALTERING_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        for location in (spec.submodule_search_locations or []) if spec else []:
            found.append(os.path.normpath(location))
    return tuple(found)


def _inside(path: str, dirs: tuple[str, ...]) -> bool:
    # opencv writes "…/cv2/../../lib64": the written form starts in its folder
    written = os.path.normpath(path) if ".." not in path else path.rstrip(os.sep)
    return any(written == d or written.startswith(d + os.sep) for d in dirs)


def app_environment(env: Mapping[str, str] | None = None, *,
                    package_dirs: tuple[str, ...] | None = None) -> dict[str, str]:
    """``env`` (default: ``os.environ``) without the entries that point inside a package that
    altered the environment on import."""
    out = dict(os.environ if env is None else env)
    dirs = _package_dirs() if package_dirs is None else package_dirs
    if not dirs:
        return out
    for name in _PLUGIN_VARIABLES:
        if name in out and _inside(out[name], dirs):
            del out[name]
    for name in _PATH_LISTS:
        if name not in out:
            continue
        kept = [p for p in out[name].split(os.pathsep) if p and not _inside(p, dirs)]
        if kept:
            out[name] = os.pathsep.join(kept)
        else:
            del out[name]
    return out
