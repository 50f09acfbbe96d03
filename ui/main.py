"""`gui-agent-app`: the desktop app. Opens the window fast; the engine loads on the first Run."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

log = logging.getLogger(__name__)

_IMPORTED_AT = time.monotonic()


def process_age() -> float | None:
    """Seconds since this process started (Linux /proc), None where it cannot be read."""
    try:
        stat = Path("/proc/self/stat").read_text()
        start_ticks = int(stat.rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def _pair(text: str, sep: str) -> tuple[int, int]:
    try:
        a, b = (int(v) for v in text.lower().split(sep))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected two whole numbers like 1{sep}2, not {text!r}") from exc
    return a, b


def keep_running_until_closed(app: object, window: object) -> None:
    """Quit when the main window closes, and only then.

    While the agent acts the main window is hidden; a dialog opened then (a confirmation, a
    question) is the only window, and Qt's default would quit the app when it closes.
    """
    from PySide6.QtCore import Qt

    app.setQuitOnLastWindowClosed(False)  # type: ignore[attr-defined]
    window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)  # type: ignore[attr-defined]
    window.destroyed.connect(lambda *_: _quit(app))  # type: ignore[attr-defined]


def _quit(app: object) -> None:
    app.quit()  # type: ignore[attr-defined]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gui-agent-app", description=__doc__)
    add_arguments(p)
    return p


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The app's options, on its own parser or on `gui-agent app`'s."""
    p.add_argument("--task", default="", help="put this task in the task box")
    p.add_argument("--dry-run", action="store_true", help="start with Dry run checked")
    p.add_argument("--pos", type=lambda t: _pair(t, ","), metavar="X,Y",
                   help="place the window's top-left corner here")
    p.add_argument("--size", type=lambda t: _pair(t, "x"), metavar="WxH", help="window size")
    p.add_argument("--events-file", type=Path, metavar="FILE",
                   help="append a JSON line per app event (ready, runs, steps) for scripts")
    p.add_argument("--startup-check", action="store_true",
                   help="print how long the window took to show, then quit (for tests and measuring)")
    p.add_argument("-v", "--verbose", action="store_true", help="log debug messages")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from .app_events import EventLog
    from .main_window import MainWindow

    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("gui-agent")
    app.setStyle("Fusion")
    events = EventLog(args.events_file)
    window = MainWindow(event_log=events)
    keep_running_until_closed(app, window)
    if args.size:
        window.resize(*args.size)
    if args.pos:
        window.move(*args.pos)
    window.task_box.setText(args.task)
    window.dry_run_box.setChecked(args.dry_run)
    window.show()
    window.task_box.setFocus()
    app.processEvents()
    age = process_age()
    since_import = time.monotonic() - _IMPORTED_AT
    log.info("window shown %.2f s after the process started (%.2f s after ui.main was imported)",
             age if age is not None else float("nan"), since_import)
    events.emit("startup", seconds_since_process_start=age, seconds_since_import=round(since_import, 3))
    if args.startup_check:
        shown_after = "unknown" if age is None else f"{age:.3f}"
        print(f"window shown: {window.isVisible()}; seconds since process start: {shown_after}; "
              f"since ui.main was imported: {since_import:.3f}", flush=True)
        QTimer.singleShot(0, app.quit)   # one turn of the event loop, then quit
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
