"""The system clipboard, for typing text that the keyboard cannot produce.

pyperclip does the work everywhere but in one detail on X11: its ``xclip`` child stays
alive, owning the selection, with the caller's stderr, and when the X server goes away
(a virtual display stopped at the end of a demo or a batch) it prints "X connection to :N
broken" into the user's terminal. With xclip present on X11 we run it ourselves, silenced;
anything else goes to pyperclip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from ..errors import ControlError

_TIMEOUT_S = 5.0


def copy(text: str) -> None:
    xclip = _xclip()
    if xclip is None:
        _pyperclip_call(lambda p: p.copy(text))
        return
    try:
        subprocess.run([xclip, "-selection", "clipboard"], input=text.encode("utf-8"), check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError) as exc:
        raise ControlError(f"xclip could not set the clipboard: {exc}") from exc


def paste() -> str:
    xclip = _xclip()
    if xclip is None:
        return _pyperclip_call(lambda p: p.paste())
    try:
        done = subprocess.run([xclip, "-selection", "clipboard", "-o"], capture_output=True,
                              timeout=_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError) as exc:
        raise ControlError(f"xclip could not read the clipboard: {exc}") from exc
    return done.stdout.decode("utf-8", errors="replace")   # an empty clipboard exits 1: ""


def _xclip() -> str | None:
    if not sys.platform.startswith("linux") or not os.environ.get("DISPLAY"):
        return None
    return shutil.which("xclip")


def _pyperclip_call(call):
    import pyperclip

    try:
        return call(pyperclip)
    except pyperclip.PyperclipException as exc:
        raise ControlError(f"{exc}. On Linux install xclip (apt-get install xclip)") from exc
