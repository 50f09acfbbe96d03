"""End to end on a real GTK3 dialog (zenity) under openbox with the accessibility bus: the tree
names what is on the screen where it is, a run grounds on it and reads typed text back from it,
and the same run with --no-a11y sees pixels alone."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.requirements import require_tool
from tests.support.waiting import wait_until

pytestmark = [pytest.mark.e2e("xvfb", "input", "a11y"), pytest.mark.timeout(300)]

FORM = ["zenity", "--forms", "--title=Contact", "--text=New contact", "--add-entry=Name",
        "--add-entry=Email"]


@pytest.fixture
def desktop(tmp_path: Path) -> Iterator[Path]:
    """A display of its own with openbox and an accessible D-Bus session (as a batch worker
    has); yields a folder for files."""
    require_tool("zenity", apt="zenity")
    from gui_agent.batch.desktop_session import DesktopSession, DesktopSpec
    from gui_agent.display import VirtualDisplay

    with VirtualDisplay(size=(1280, 800)):
        session = DesktopSession(DesktopSpec("openbox", True), tmp_path / "logs")
        session.start()
        try:
            yield tmp_path
        finally:
            session.stop()


def _start_form(folder: Path) -> subprocess.Popen:
    out = (folder / "form.out").open("w")
    proc = subprocess.Popen(FORM, stdout=out, stderr=subprocess.DEVNULL)
    from gui_agent.batch.checks import window_titles

    wait_until(lambda: "Contact" in window_titles(), "the zenity form's window", timeout=60)
    return proc


def test_the_tree_names_the_dialogs_controls_where_the_pixels_show_them(desktop: Path):
    from gui_agent.accessibility.atspi import AtspiSource
    from gui_agent.parsing.elements import ElementKind
    from gui_agent.parsing.screen_parser import ScreenParser
    from gui_agent.screen.capture import ScreenCapture

    proc = _start_form(desktop)
    try:
        source = AtspiSource()
        capture = ScreenCapture()

        def read():
            obs = capture.capture(1)
            tree = source.read(obs.monitor, obs.image)
            return (obs, tree) if tree is not None and any(
                e.text == "OK" for e in tree.elements) else None

        obs, tree = wait_until(read, "the form in the accessibility tree", timeout=30)
        kinds = {(e.kind, e.text or e.label) for e in tree.elements}
        assert {(ElementKind.TEXT, "Name"), (ElementKind.TEXT, "Email"),
                (ElementKind.BUTTON, "OK"), (ElementKind.BUTTON, "Cancel")} <= kinds
        fields = [e for e in tree.elements if e.kind == ElementKind.TEXT_FIELD]
        assert len(fields) == 2 and sum(e.accessible.focused for e in fields) == 1
        assert [w.title for w in tree.windows] == ["Contact"]
        # where the tree says "OK" is, the pixels read "OK"
        ok = next(e for e in tree.elements if e.text == "OK")
        read_there = ScreenParser().read_text(obs.image, ok.box, inset=3)
        assert read_there == "OK"
        # a second read of the unchanged window is answered from what was kept
        again = source.read(obs.monitor, obs.image)
        assert again is not None and {e.text for e in again.elements} == {e.text for e in tree.elements}
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _run(task: str, folder: Path, *flags: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.run([sys.executable, "-m", "gui_agent.cli", "run", "--safety", "refuse",
                           "--no-memory", "--runs-dir", str(folder / "runs"), *flags, task],
                          env=env, capture_output=True, text=True, timeout=180)


@pytest.mark.parametrize("flags", [(), ("--no-a11y",)], ids=["tree", "pixels"])
def test_a_run_fills_the_form_with_the_tree_and_without_it(desktop: Path, flags: tuple[str, ...]):
    proc = _start_form(desktop)
    try:
        done = _run('type "Ann" into the Name field, type "ann@example.org" into the Email field, '
                    'then click "OK"', desktop, *flags)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        assert proc.wait(timeout=20) == 0
        assert (desktop / "form.out").read_text() == "Ann|ann@example.org\n"
        sources = [line for line in done.stdout.splitlines() if " via " in line]
        assert len(sources) == 3
        if flags:
            assert all("via a11y" not in line for line in sources), done.stdout
        else:
            assert all("via a11y" in line for line in sources), done.stdout
            assert "read back from the field's accessible value 'Ann'" in done.stdout
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=10)
