"""Shared fixtures, what the suite needs, and the end-to-end report.

Missing tools and packages: ``require_tool("Xvfb", apt="xvfb")``, ``require_module("PySide6")``,
``require_chromium()``, ``require_qt_xcb()``. In CI (``CI`` set to a true value, as
``.ci/run`` and ``installer/test.sh`` do, and ``GUI_AGENT_ALLOW_SKIPS`` unset) a missing one
*fails* the test, naming it and how to install it; elsewhere the test is skipped with the same
words. Use them instead of ``pytest.skip``/``importorskip``/``skipif`` for anything missing.

End-to-end tests carry ``pytest.mark.e2e(group, ...)``, groups from ``GROUPS``: ``xvfb`` (a
virtual display), ``input`` (real mouse and keyboard input), ``qt`` (Qt windows under Xvfb),
``chromium``, ``torch``. A test using the ``xvfb`` or ``screen_1280x800`` fixture is in the
``xvfb`` group, one using ``tiny_vlm_dir`` in ``torch``, marked or not. Before such a test
runs, what its groups need is checked (see ``GROUPS``). The run ends with how many
end-to-end tests ran, by group, so that a group that vanished shows.

``xvfb``: one Xvfb screen (1280x800x24) for the whole test session, started through
``gui_agent.display.VirtualDisplay`` on the first free display number. While it runs,
``DISPLAY`` and ``XAUTHORITY`` (an empty file when none existed) are set in ``os.environ``;
both are restored at the end. Set ``GUI_AGENT_TEST_DISPLAY=N`` to pin the display number.
"""

from __future__ import annotations

import functools
import importlib
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

XVFB_SIZE = (1280, 800)
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


# -- missing tools and packages ----------------------------------------------------------------
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


# -- end-to-end groups -----------------------------------------------------------------------
GROUPS: dict[str, tuple[str, Callable[[], object]]] = {
    # group: (its name in the report, the check of what it needs before a test runs)
    "xvfb": ("Xvfb", lambda: require_tool("Xvfb", apt="xvfb")),
    # pyautogui and python-xlib are dependencies; a test that uses xdotool or xclip requires it
    "input": ("real input", lambda: None),
    "qt": ("Qt windows", require_qt_xcb),
    "chromium": ("Chromium", require_chromium),
    "torch": ("torch", lambda: (require_module("torch"), require_module("transformers"))),
}
FIXTURE_GROUPS = {"xvfb": ("xvfb",), "screen_1280x800": ("xvfb",), "tiny_vlm_dir": ("torch",)}
_GROUPS_KEY = pytest.StashKey[tuple[str, ...]]()


def e2e_groups(item: pytest.Item) -> tuple[str, ...]:
    """The item's groups: its ``e2e`` markers' arguments and those of the fixtures it uses."""
    found = [g for mark in item.iter_markers("e2e") for g in mark.args]
    found += [g for fixture in getattr(item, "fixturenames", ()) for g in FIXTURE_GROUPS.get(fixture, ())]
    return tuple(dict.fromkeys(found))


def pytest_configure(config: pytest.Config) -> None:
    """Keep the suite off the user's own data, config and memory; memory off unless a test opts in.

    Subprocesses (the CLI, batch workers) inherit these variables.
    """
    import tempfile

    config.addinivalue_line(
        "markers", "e2e(*groups): end-to-end test; groups: " + ", ".join(GROUPS)
        + " (see tests/conftest.py)")
    root = tempfile.mkdtemp(prefix="gui-agent-tests-")
    os.environ.setdefault("GUI_AGENT_DATA_DIR", os.path.join(root, "data"))
    os.environ.setdefault("GUI_AGENT_CONFIG_DIR", os.path.join(root, "config"))
    os.environ["GUI_AGENT_USE_MEMORY"] = "0"
    os.environ.pop("GUI_AGENT_MEMORY", None)


@pytest.hookimpl(tryfirst=True)  # before `-m e2e` selects: the fixture-found ones are marked
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        groups = e2e_groups(item)
        unknown = [g for g in groups if g not in GROUPS]
        if unknown:
            raise pytest.UsageError(f"{item.nodeid}: unknown e2e group(s) {unknown}; "
                                    f"known: {', '.join(GROUPS)}")
        if set(groups) - {g for mark in item.iter_markers("e2e") for g in mark.args}:
            item.add_marker(pytest.mark.e2e(*groups))
        item.stash[_GROUPS_KEY] = groups


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Check what the item's groups need before its fixtures start anything."""
    for group in item.stash.get(_GROUPS_KEY, ()):
        GROUPS[group][1]()


# -- the end-to-end report -----------------------------------------------------------------------
_E2E: dict[str, dict] = {}  # nodeid -> {"groups": (...), "outcome": ...} of the selected e2e tests


def pytest_collection_finish(session: pytest.Session) -> None:
    _E2E.clear()
    for item in session.items:
        if item.get_closest_marker("e2e") is not None:
            _E2E[item.nodeid] = {"groups": item.stash.get(_GROUPS_KEY, ()), "outcome": "not run"}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    entry = _E2E.get(report.nodeid)
    if entry is None:
        return
    if report.when == "call":
        entry["outcome"] = "skipped" if report.skipped else "passed" if report.passed else "failed"
    elif entry["outcome"] == "not run" and (report.skipped or report.failed):
        entry["outcome"] = "skipped" if report.skipped else "error"  # in setup: never ran


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    """How many end-to-end tests ran (passed or failed), in all and by group."""
    if config.option.collectonly:
        return
    tr = terminalreporter
    tr.section("end-to-end tests (pytest -m e2e)")
    if not _E2E:
        tr.write_line("none selected")
        return

    def line(label: str, outcomes: list[str]) -> str:
        n = Counter(outcomes)
        ran = n["passed"] + n["failed"]
        text = (f"{label:<12} {ran:>3} ran of {len(outcomes):>3} ({n['passed']} passed, "
                f"{n['failed']} failed); {n['skipped']} skipped, {n['error']} errors in setup, "
                f"{n['not run']} not reached")
        return text + ("   <-- NONE RAN" if outcomes and not ran else "")

    tr.write_line(line("all", [r["outcome"] for r in _E2E.values()]))
    for group, (label, _check) in GROUPS.items():
        tr.write_line(line(label, [r["outcome"] for r in _E2E.values() if group in r["groups"]]))
    ungrouped = [r["outcome"] for r in _E2E.values() if not r["groups"]]
    if ungrouped:
        tr.write_line(line("no group", ungrouped))


# -- fixtures -----------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def xvfb() -> Iterator[str]:
    """The display name (':N') of a session-wide 1280x800x24 Xvfb, set as DISPLAY."""
    require_tool("Xvfb", apt="xvfb")
    from gui_agent.display import VirtualDisplay

    pinned = os.environ.get("GUI_AGENT_TEST_DISPLAY")
    number = int(pinned.lstrip(":")) if pinned else None
    with VirtualDisplay(size=XVFB_SIZE, depth=24, display=number) as display:
        assert display.name is not None
        yield display.name


@pytest.fixture
def screen_1280x800(xvfb: str) -> Iterator[object]:
    """A ScreenCapture of the session Xvfb (1280x800), closed after the test."""
    from gui_agent.screen.capture import ScreenCapture

    capture = ScreenCapture()
    try:
        yield capture
    finally:
        capture.close()


def wait_until(condition: Callable[[], object], what: str, timeout: float = 30.0,
               interval: float = 0.05) -> object:
    """Poll ``condition`` until it returns something true (returned); fail naming ``what``.

    ``timeout`` is a ceiling for a busy machine, not a measure: waits end when the condition holds.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}", pytrace=False)
        time.sleep(interval)


def unused_display() -> str:
    """A display name no X server listens on now (for tests of what happens without one)."""
    for number in range(900, 1000):
        if not (Path(f"/tmp/.X{number}-lock").exists() or Path(f"/tmp/.X11-unix/X{number}").exists()):
            return f":{number}"
    raise RuntimeError("every display from :900 to :999 is taken")
