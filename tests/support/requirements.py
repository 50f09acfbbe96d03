"""What the suite needs: a missing tool or package fails the test in CI, else skips it.

``require_tool("Xvfb", apt="xvfb")``, ``require_module("PySide6")``, ``require_chromium()``,
``require_qt_xcb()``. In CI (``CI`` set to a true value, as ``.ci/run`` and ``installer/test.sh``
do, and ``GUI_AGENT_ALLOW_SKIPS`` unset) a missing one *fails* the test, naming it and how to
install it; elsewhere the test is skipped with the same words. Use them instead of
``pytest.skip``/``importorskip``/``skipif`` for anything missing; at a module's top they skip or
fail the whole module.
"""

from __future__ import annotations

import functools
import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

DEV_INSTALL = "pip install -e '.[dev]' (installer/test.sh installs it)"
# Shared libraries Qt's xcb platform plugin loads, and the Debian/Ubuntu package of each.
QT_XCB_PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0", "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0", "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0", "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-render.so.0": "libxcb-render0", "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0", "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1", "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1", "libxcb.so.1": "libxcb1", "libX11-xcb.so.1": "libx11-xcb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0", "libxkbcommon.so.0": "libxkbcommon0",
    "libEGL.so.1": "libegl1", "libGL.so.1": "libgl1", "libfontconfig.so.1": "libfontconfig1",
    "libglib-2.0.so.0": "libglib2.0-0", "libdbus-1.so.3": "libdbus-1-3",
}


def _true(value: str | None) -> bool:
    return (value or "").strip().lower() not in ("", "0", "false", "no", "off")


def strict() -> bool:
    """True when a missing tool or package must fail the run (CI, no opt-out)."""
    return _true(os.environ.get("CI")) and not _true(os.environ.get("GUI_AGENT_ALLOW_SKIPS"))


def missing(what: str) -> NoReturn:
    """Fail (CI) or skip (elsewhere) the test, or the module at import time, naming ``what``."""
    if strict():
        pytest.fail(f"missing: {what} (CI is set, so a missing tool fails the run; "
                    "GUI_AGENT_ALLOW_SKIPS=1 skips such tests instead)", pytrace=False)
    pytest.skip(f"missing: {what}", allow_module_level=True)


def require_tool(*names: str, apt: str) -> str:
    """The path of the first of ``names`` on PATH; missing when none is."""
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    missing(f"{' or '.join(names)} is not on PATH: apt-get install {apt}")


def require_module(name: str, pip: str = DEV_INSTALL) -> ModuleType:
    """The imported module ``name``; missing when it cannot be imported."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        missing(f"the Python package {name} cannot be imported ({exc}): {pip}")


def require_icon_fonts() -> None:
    """The icon fonts that name caption-less icons (gui_agent/parsing/icon_fonts.py)."""
    from gui_agent.parsing.icon_fonts import FONTS, PACKAGES

    absent = [str(f.font) for f in FONTS if not (f.font.is_file() and f.names.is_file())]
    if absent:
        missing(f"icon fonts {', '.join(absent)}: apt-get install {PACKAGES}")


def require_cjk_font() -> str:
    """A font with Chinese and Japanese characters, for the pages and buttons written in them."""
    require_tool("fc-list", apt="fontconfig")
    path = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
    if not path.is_file():
        missing(f"{path}: apt-get install fonts-wqy-microhei")
    return str(path)


def require_chromium() -> str:
    """The Chromium the MiniWoB harness would start, and the harness's Python packages."""
    require_module("miniwob")
    require_module("websocket")
    from gui_agent.bench.miniwob.browser import CHROMIUM_NAMES

    return require_tool(*CHROMIUM_NAMES, apt="chromium (chromium-browser on Ubuntu)")


@functools.cache
def _qt_xcb_unresolved() -> tuple[str, ...]:
    pyside = require_module("PySide6")
    plugins = Path(pyside.__file__).parent / "Qt" / "plugins"
    if not sys.platform.startswith("linux") or not (plugins / "platforms" / "libqxcb.so").is_file():
        return ()
    ldd = shutil.which("ldd")
    if ldd is None:
        return ()
    gone: set[str] = set()
    for lib in [plugins / "platforms" / "libqxcb.so", *sorted(plugins.glob("xcbglintegrations/*.so"))]:
        out = subprocess.run([ldd, str(lib)], capture_output=True, text=True, timeout=30).stdout
        gone.update(line.split()[0] for line in out.splitlines() if "not found" in line)
    return tuple(sorted(gone))


def require_qt_xcb() -> None:
    """PySide6, and every shared library its xcb platform plugin (Qt on an X display) loads."""
    gone = _qt_xcb_unresolved()
    if gone:
        packages = sorted({QT_XCB_PACKAGES.get(name, f"<the package with {name}>") for name in gone})
        missing(f"Qt's xcb platform plugin cannot load {', '.join(gone)}: "
                f"apt-get install {' '.join(packages)}")


def require_atspi() -> None:
    """What the accessibility tree needs: a D-Bus daemon, the accessibility bus (at-spi2-core)
    and libatspi through PyGObject in this Python."""
    require_tool("dbus-daemon", apt="dbus")
    if not Path("/usr/share/dbus-1/services/org.a11y.Bus.service").exists():
        missing("the accessibility bus (org.a11y.Bus.service): apt-get install at-spi2-core")
    gi = require_module("gi", pip="pip install 'PyGObject<3.51' (installer/setup.sh installs it "
                                  "with libgirepository1.0-dev and libcairo2-dev)")
    try:
        gi.require_version("Atspi", "2.0")
    except ValueError as exc:
        missing(f"the libatspi typelib ({exc}): apt-get install gir1.2-atspi-2.0")
