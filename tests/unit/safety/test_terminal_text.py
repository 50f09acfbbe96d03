"""printable(): model, screen and file text loses every escape and control sequence."""

from __future__ import annotations

import pytest

from gui_agent.terminal_text import printable, say

ESC = "\x1b"

CASES = {
    "clear screen and home (CSI)": (f"ok{ESC}[2J{ESC}[Hdone", "okdone"),
    "colour (CSI with parameters)": (f"{ESC}[1;31mred{ESC}[0m", "red"),
    "window title (OSC, BEL)": (f"a{ESC}]0;pwned\x07b", "ab"),
    "clipboard write (OSC 52, ST)": (f"a{ESC}]52;c;aGVsbG8=" + ESC + "\\b", "ab"),
    "clipboard write unterminated": (f"a{ESC}]52;c;aGVsbG8=", "a"),
    "hyperlink (OSC 8)": (f"{ESC}]8;;http://x{ESC}\\link{ESC}]8;;{ESC}\\", "link"),
    "sixel (DCS)": (f"a{ESC}Pq#0;2;0;0;0{ESC}\\b", "ab"),
    "application program command (APC)": (f"a{ESC}_payload{ESC}\\b", "ab"),
    "terminal reset (ESC c)": (f"e{ESC}creset", "ereset"),
    "charset switch (ESC ( 0)": (f"a{ESC}(0b", "ab"),
    "8-bit CSI": ("a\x9b31mred", "ared"),
    "8-bit OSC": ("a\x9d0;title\x9cb", "ab"),
    "OSC cut short by a CSI": (f"a{ESC}]0;t{ESC}[31mred", "ared"),
    "bidi override": ("file\u202eexe.txt", "fileexe.txt"),
    "bidi isolates and embeddings": ("\u2066a\u2069\u202ab\u202c", "ab"),
    "carriage return overwriting the line": ("done\rFAILED", "doneFAILED"),
    "backspace, bell, NUL, DEL": ("a\x08\x07\x00\x7fb", "ab"),
}


@pytest.mark.parametrize("raw,clean", CASES.values(), ids=CASES.keys())
def test_escape_and_control_sequences_are_removed(raw: str, clean: str) -> None:
    assert printable(raw) == clean


def test_ordinary_text_is_unchanged() -> None:
    text = 'type("Ann", into="the Name field")\n\tcafé 中文 ✓ 100% {x} [1] \\ ~'
    assert printable(text) == text


def test_windows_line_ends_become_newlines() -> None:
    assert printable("one\r\ntwo") == "one\ntwo"


def test_nothing_dangerous_survives_anywhere_in_a_long_mix() -> None:
    raw = "".join(raw for raw, _ in CASES.values()) * 3
    out = printable(raw)
    assert not any(ch in out for ch in (ESC, "\x07", "\r", "\x9b", "\x9d", "\u202e", "\u2066"))
    assert all(ch in "\n\t" or ch.isprintable() for ch in out)


def test_non_text_is_converted_first() -> None:
    assert printable(3.5) == "3.5"


def test_say_prints_the_printable_text(capsys) -> None:
    import io

    say(f"step {ESC}]0;title\x07done")
    assert capsys.readouterr().out == "step done\n"
    buffer = io.StringIO()
    say(f"{ESC}[31mred", file=buffer)
    assert buffer.getvalue() == "red\n"
