"""Text from models, screens, files and runs made safe to print on a terminal.

A model's answer, an OCR'd label, a window title or a suite's task name is data: printed
raw, its escape sequences could clear the screen, retitle the window or write the
clipboard (OSC 52), and a bidi override could make a line read other than it is. Every
place the CLI prints such text passes it through ``printable`` first.
"""

from __future__ import annotations

import re
import sys
from typing import TextIO

__all__ = ["printable", "say"]

# Strings a terminal consumes up to a terminator: OSC, DCS, SOS, PM, APC, in 7-bit
# (ESC ] ... ) and 8-bit (U+009D ...) form. They end at BEL or ST (ESC \ or U+009C); an
# unterminated one runs to the next ESC or the end of the text, as a terminal swallows it.
_STRING = r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c|(?=\x1b)|$)"
# CSI: ESC [ (or U+009B), parameter and intermediate bytes, one final byte (or the end).
_CSI = r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*(?:[\x40-\x7e]|$)"
# Any other escape: ESC, intermediate bytes, one final byte (ESC c resets the terminal).
_ESC = r"\x1b[\x20-\x2f]*[\x30-\x7e]?"
# What is left: C0 controls but tab and newline, DEL, C1 controls, bidi embeddings,
# overrides and isolates (U+202A..U+202E, U+2066..U+2069).
_CONTROL = r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"

_UNSAFE = re.compile(f"{_STRING}|{_CSI}|{_ESC}|{_CONTROL}")


def printable(text: object) -> str:
    """``text`` (``str()`` of it) without escape sequences, control characters but newline
    and tab, and bidi overrides: what it says, never what it would make a terminal do."""
    return _UNSAFE.sub("", str(text).replace("\r\n", "\n"))


def say(text: object = "", *, file: TextIO | None = None, flush: bool = False) -> None:
    """``print`` for text that holds data: the line goes out through ``printable``."""
    print(printable(text), file=file if file is not None else sys.stdout, flush=flush)
