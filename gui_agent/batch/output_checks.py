"""`python -m gui_agent.batch.output_checks CHECK ...`: checks on what an application itself
produced, for task suites (never on what the agent says it did).

    lines FILE LINE...             the file's lines are exactly these (a dialog's stdout)
    status FILE CODE               the file holds this exit status (a dialog's answer)
    clipboard TEXT                 the X clipboard holds exactly this text (xclip)
    cell FILE CELL VALUE           a spreadsheet's cell (A1, B3 ...) holds this value (ssconvert)
    number FILE VALUE              the file's text is this number (12 = 12.0 = 12,0)

``--wait S`` retries for up to S seconds (an application may write a moment after the agent
is done). Exit status 0 when the check holds, 1 (saying what was found) when it does not.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

Check = Callable[[], tuple[bool, str]]


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def lines(path: Path, expected: Sequence[str]) -> Check:
    def check() -> tuple[bool, str]:
        text = _read(path)
        if text is None:
            return False, f"{path} does not exist"
        got = text.rstrip("\n").split("\n") if text.strip() else []
        return got == list(expected), f"{path} holds {got!r}, expected {list(expected)!r}"
    return check


def status(path: Path, code: int) -> Check:
    def check() -> tuple[bool, str]:
        text = _read(path)
        if text is None or not text.strip():
            return False, f"{path} holds no exit status (the application did not end)"
        return text.strip() == str(code), f"the exit status was {text.strip()}, expected {code}"
    return check


def clipboard(expected: str) -> Check:
    def check() -> tuple[bool, str]:
        xclip = shutil.which("xclip")
        if xclip is None:
            return False, "xclip is not installed (apt-get install xclip)"
        try:
            done = subprocess.run([xclip, "-o", "-selection", "clipboard"], capture_output=True,
                                  text=True, timeout=5, check=False)
        except subprocess.TimeoutExpired:
            return False, "the clipboard did not answer"
        got = done.stdout if done.returncode == 0 else ""
        return got.strip() == expected, f"the clipboard holds {got[:200]!r}, expected {expected!r}"
    return check


def _cell_index(cell: str) -> tuple[int, int]:
    m = re.fullmatch(r"([A-Za-z]+)(\d+)", cell)
    if m is None:
        raise SystemExit(f"not a cell name: {cell!r} (A1, B3 ...)")
    col = 0
    for c in m.group(1).upper():
        col = col * 26 + ord(c) - ord("A") + 1
    return int(m.group(2)) - 1, col - 1


def cell(path: Path, name: str, expected: str) -> Check:
    row, col = _cell_index(name)

    def check() -> tuple[bool, str]:
        if not path.exists():
            return False, f"{path} does not exist"
        ssconvert = shutil.which("ssconvert")
        if ssconvert is None:
            return False, "ssconvert is not installed (apt-get install gnumeric)"
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "sheet.csv"
            done = subprocess.run([ssconvert, str(path), str(out)], capture_output=True, text=True,
                                  timeout=60, check=False)
            text = _read(out)
        if done.returncode != 0 or text is None:
            return False, f"ssconvert could not read {path}: {done.stderr.strip()[-200:]}"
        rows = list(csv.reader(io.StringIO(text)))
        got = rows[row][col] if row < len(rows) and col < len(rows[row]) else ""
        return _same(got, expected), f"cell {name} holds {got!r}, expected {expected!r}"
    return check


def number(path: Path, expected: str) -> Check:
    def check() -> tuple[bool, str]:
        text = _read(path)
        if text is None:
            return False, f"{path} does not exist"
        return _same(text.strip(), expected), f"{path} holds {text.strip()!r}, expected {expected}"
    return check


def _same(got: str, expected: str) -> bool:
    """Equal as texts, or as numbers (12 = 12.0; a decimal comma counts)."""
    if got.strip() == expected.strip():
        return True
    try:
        return float(got.replace(",", ".")) == float(expected.replace(",", "."))
    except ValueError:
        return False


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gui_agent.batch.output_checks",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--wait", type=float, default=0.0, help="retry for up to this many seconds")
    sub = parser.add_subparsers(dest="check", required=True)
    p = sub.add_parser("lines")
    p.add_argument("file", type=Path)
    p.add_argument("lines", nargs="*")
    p = sub.add_parser("status")
    p.add_argument("file", type=Path)
    p.add_argument("code", type=int)
    p = sub.add_parser("clipboard")
    p.add_argument("text")
    p = sub.add_parser("cell")
    p.add_argument("file", type=Path)
    p.add_argument("cell")
    p.add_argument("value")
    p = sub.add_parser("number")
    p.add_argument("file", type=Path)
    p.add_argument("value")
    args = parser.parse_args(argv)
    check = {
        "lines": lambda: lines(args.file, args.lines),
        "status": lambda: status(args.file, args.code),
        "clipboard": lambda: clipboard(args.text),
        "cell": lambda: cell(args.file, args.cell, args.value),
        "number": lambda: number(args.file, args.value),
    }[args.check]()
    deadline = time.monotonic() + args.wait
    while True:
        ok, detail = check()
        if ok or time.monotonic() >= deadline:
            break
        time.sleep(0.3)
    if not ok:
        print(detail)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
