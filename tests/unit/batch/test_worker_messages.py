"""What a batch worker quotes from an app that did not start: the cause, not blank lines."""

from __future__ import annotations

from pathlib import Path

from gui_agent.batch.worker import _last_lines

QT_ABORT = """\
qt.qpa.xcb: could not connect to display :7
qt.qpa.plugin: Could not load the Qt platform plugin "xcb" in "" even though it was found.
This application failed to start because no Qt platform plugin could be initialized.

Available platform plugins are: minimal, offscreen, xcb.

"""


def test_the_last_lines_skip_blank_ones_so_the_cause_is_quoted(tmp_path: Path) -> None:
    log = tmp_path / "start-1.log"
    log.write_text(QT_ABORT, encoding="utf-8")
    said = _last_lines(log)
    assert said.startswith('qt.qpa.plugin: Could not load the Qt platform plugin "xcb"')
    assert said.endswith("Available platform plugins are: minimal, offscreen, xcb.")
    assert said.count(" / ") == 2


def test_a_missing_or_empty_log_quotes_nothing(tmp_path: Path) -> None:
    assert _last_lines(tmp_path / "absent.log") == ""
    (tmp_path / "empty.log").write_text("\n\n", encoding="utf-8")
    assert _last_lines(tmp_path / "empty.log") == ""
