"""Conditions a batch worker waits for or verifies: an app is ready, a task's outcome holds.

Readiness: a window whose title contains a text is shown (X11 window tree, no window manager
needed), a text is visible on the screen (OCR), or a fixed wait. Outcome checks: a command's
exit status, a text visible at the end, a file that exists with the given content.
"""

from __future__ import annotations

import logging
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .suite import Check, Readiness, show_command, substitute

log = logging.getLogger(__name__)

TextProbe = Callable[[str], bool]


@dataclass(frozen=True)
class CheckContext:
    values: Mapping[str, str]        # placeholder values (runtime names and task parameters)
    cwd: Path                        # the suite's folder: relative paths start here
    env: Mapping[str, str]
    text_visible: TextProbe          # OCR on the current screen


def window_titles(display: str | None = None) -> list[str]:
    """Titles of the viewable windows on an X display (empty when it cannot be read)."""
    try:
        from Xlib import X
        from Xlib import display as xdisplay

        from ..screen.capture import x11_window_title
    except ImportError:
        return []
    try:
        conn = xdisplay.Display(display)
    except Exception as exc:  # a display that cannot be opened has no windows to offer
        log.debug("cannot open display %s: %s", display, exc)
        return []
    titles: list[str] = []
    try:
        stack = [(conn.screen().root, 0)]
        while stack:
            window, depth = stack.pop()
            try:
                children = window.query_tree().children
            except Exception:  # the window went away while we looked
                continue
            for child in children:
                try:
                    if child.get_attributes().map_state != X.IsViewable:
                        continue
                    title = x11_window_title(conn, child)
                except Exception:  # destroyed meanwhile (BadWindow)
                    continue
                if title:
                    titles.append(title)
                if depth < 3:
                    stack.append((child, depth + 1))
    finally:
        conn.close()
    return titles


class NotReady(Exception):
    """An application did not become ready; the message says why."""


def wait_ready(ready: Readiness, *, exited: Callable[[], int | None], text_visible: TextProbe,
               display: str | None, values: Mapping[str, str], interval: float = 0.2) -> float:
    """Wait until the condition holds; returns the seconds it took. Raises NotReady."""
    start = time.monotonic()
    deadline = start + ready.timeout
    window = substitute(ready.window, values) if ready.window else None
    text = substitute(ready.text, values) if ready.text else None
    while True:
        code = exited()
        if code is not None:
            raise NotReady(f"it exited with status {code} before it was ready")
        if window is None and text is None:
            if time.monotonic() >= deadline:
                return time.monotonic() - start
        else:
            seen = window is None or any(window in t for t in window_titles(display))
            if seen and (text is None or text_visible(text)):
                return time.monotonic() - start
            if time.monotonic() >= deadline:
                what = " and ".join(
                    [f"no window titled {window!r} appeared"] * (window is not None and not seen)
                    + [f"the text {text!r} was not visible"] * (text is not None and seen))
                raise NotReady(f"it was not ready within {ready.timeout:g} s: {what}")
        time.sleep(interval)


def _command(check: Check, ctx: CheckContext) -> tuple[bool, str]:
    argv = [substitute(a, ctx.values) for a in check.argv]
    shown = show_command(argv)
    try:
        proc = subprocess.run(argv, cwd=ctx.cwd, env=dict(ctx.env), capture_output=True,
                              text=True, errors="replace", timeout=check.timeout, check=False)
    except FileNotFoundError:
        return False, f"check command not found: {argv[0]}"
    except subprocess.TimeoutExpired:
        return False, f"check `{shown}` did not finish within {check.timeout:g} s"
    if proc.returncode == check.exit_code:
        return True, ""
    said = (proc.stdout.strip() or proc.stderr.strip()).splitlines()
    tail = f": {said[-1]}" if said else ""
    return False, f"check `{shown}` exited with {proc.returncode}, expected {check.exit_code}{tail}"


def _text(check: Check, ctx: CheckContext) -> tuple[bool, str]:
    text = substitute(check.text, ctx.values)
    deadline = time.monotonic() + check.timeout
    while True:
        if ctx.text_visible(text):
            return True, ""
        if time.monotonic() >= deadline:
            return False, f'"{text}" was not visible on the screen at the end'
        time.sleep(0.3)


def _file(check: Check, ctx: CheckContext) -> tuple[bool, str]:
    path = Path(substitute(check.path, ctx.values))
    path = path if path.is_absolute() else ctx.cwd / path
    want = substitute(check.content, ctx.values) if check.content is not None else None
    part = substitute(check.contains, ctx.values) if check.contains is not None else None
    deadline = time.monotonic() + check.timeout
    while True:
        try:
            content: str | None = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            content = None
        if content is not None and (want is None or content == want) and (
                part is None or part in content):
            return True, ""
        if time.monotonic() >= deadline:
            if content is None:
                return False, f"the file {path} does not exist"
            if want is not None:
                return False, f"the file {path} holds {content[:200]!r}, expected {want!r}"
            return False, f"the file {path} does not contain {part!r}"
        time.sleep(0.2)


def run_check(check: Check, ctx: CheckContext) -> tuple[bool, str]:
    """Whether one check holds, and why not."""
    if check.kind == "command":
        return _command(check, ctx)
    if check.kind == "text":
        return _text(check, ctx)
    return _file(check, ctx)


def run_checks(checks: tuple[Check, ...], ctx: CheckContext) -> tuple[bool, str]:
    """All checks in order; stops at the first that fails and says why."""
    for check in checks:
        ok, detail = run_check(check, ctx)
        if not ok:
            return False, detail
    return True, ""
