"""`gui-agent screenshot FILE [--monitor N]`: save what a monitor shows, as gui-agent sees it."""

from __future__ import annotations

import argparse
from pathlib import Path

EXIT_OK = 0


def add_screenshot_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("screenshot", help="save a screenshot of a monitor",
                       description="Capture a monitor of the current display, exactly as the agent "
                       "sees it, and write it to FILE (PNG, JPEG, ... from the extension). The "
                       "file can be planned against with `gui-agent run --screenshot FILE`.")
    p.add_argument("file", type=Path, metavar="FILE", help="where to write the image")
    p.add_argument("--monitor", type=int, default=1, metavar="N",
                   help="monitor to capture: 1, 2, ... or 0 for all of them (default 1)")


def screenshot_command(args: argparse.Namespace) -> int:
    from .. import DisplayError, ScreenCapture, display_available, no_display_message, printable

    if not display_available():  # a screenshot of a fresh virtual display would show nothing
        raise DisplayError(no_display_message(headless_hint=False))
    with ScreenCapture() as capture:
        path = capture.save_screenshot(args.file, monitor=args.monitor)
    print(f"saved {printable(path)}")
    return EXIT_OK
