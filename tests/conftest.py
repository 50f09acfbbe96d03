"""Shared fixtures, what the suite needs, and the end-to-end report.

Tests mirror the package: ``tests/unit/<room>/`` (fast, no display of their own) and
``tests/e2e/`` (Xvfb, real input, real apps); the helpers they share are ``tests/support/``,
imported as ``from tests.support.<module> import ...``. Missing tools and packages:
``require_tool``, ``require_module``, ``require_chromium``, ``require_qt_xcb`` from
``tests.support.requirements`` (a missing one fails the test in CI, else skips it).

End-to-end tests carry ``pytest.mark.e2e(group, ...)``, groups from ``GROUPS``: ``xvfb`` (a
virtual display), ``input`` (real mouse and keyboard input), ``qt`` (Qt windows under Xvfb),
``chromium``, ``torch``, ``a11y`` (a D-Bus session with the accessibility bus, libatspi,
openbox). A test using the ``xvfb`` or ``screen_1280x800`` fixture is in the
``xvfb`` group, one using ``tiny_vlm_dir`` in ``torch``, marked or not. Before such a test
runs, what its groups need is checked (see ``GROUPS``). The run ends with how many
end-to-end tests ran, by group, so that a group that vanished shows.

``xvfb``: one Xvfb screen (1280x800x24) for the whole test session, started through
``gui_agent.display.VirtualDisplay`` on the first free display number. While it runs,
``DISPLAY`` and ``XAUTHORITY`` (an empty file when none existed) are set in ``os.environ``;
both are restored at the end. Set ``GUI_AGENT_TEST_DISPLAY=N`` to pin the display number.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from tests.support.requirements import (
    require_atspi,
    require_chromium,
    require_module,
    require_qt_xcb,
    require_tool,
)

XVFB_SIZE = (1280, 800)


# -- end-to-end groups -----------------------------------------------------------------------
GROUPS: dict[str, tuple[str, Callable[[], object]]] = {
    # group: (its name in the report, the check of what it needs before a test runs)
    "xvfb": ("Xvfb", lambda: require_tool("Xvfb", apt="xvfb")),
    # pyautogui and python-xlib are dependencies; a test that uses xdotool or xclip requires it
    "input": ("real input", lambda: None),
    "qt": ("Qt windows", require_qt_xcb),
    "chromium": ("Chromium", require_chromium),
    "torch": ("torch", lambda: (require_module("torch"), require_module("transformers"))),
    # the accessibility tree: a D-Bus session with the AT-SPI bus, libatspi, a window manager
    "a11y": ("a11y tree", lambda: (require_atspi(), require_tool("openbox", apt="openbox"))),
}
FIXTURE_GROUPS = {"xvfb": ("xvfb",), "screen_1280x800": ("xvfb",), "tiny_vlm_dir": ("torch",)}
_GROUPS_KEY = pytest.StashKey[tuple[str, ...]]()
_ROOT_KEY = pytest.StashKey[str]()


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
    config.stash[_ROOT_KEY] = root
    os.environ.setdefault("GUI_AGENT_DATA_DIR", os.path.join(root, "data"))
    os.environ.setdefault("GUI_AGENT_CONFIG_DIR", os.path.join(root, "config"))
    os.environ["GUI_AGENT_USE_MEMORY"] = "0"
    os.environ.pop("GUI_AGENT_MEMORY", None)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the session's data and config folders."""
    import shutil

    root = config.stash.get(_ROOT_KEY, None)
    if root is not None:
        shutil.rmtree(root, ignore_errors=True)


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
