"""Styling words in a rich-text editor end to end: a contenteditable page in real chromium on
Xvfb, the offline agent selecting with the real mouse (words that wrap onto the next line
too) and pressing the style's keys; the page's own markup says what was styled."""

from __future__ import annotations

import time
import urllib.parse

import pytest

# conftest checks what the groups need (Xvfb; chromium, websocket-client) first
pytestmark = [pytest.mark.e2e("xvfb", "input", "chromium"), pytest.mark.timeout(240)]

TEXT = "The quick brown fox jumps over the lazy dog near the river bank"
PAGE = ("<html><body style='font-family:sans-serif;margin:8px'><div>Notes</div>"
        "<div id=ed contenteditable=true style='border:1px solid #999;width:120px;height:90px;"
        f"padding:4px;font-size:13px;margin-top:8px'>{TEXT}</div></body></html>")


def _style_in_chromium(page: str, text: str, cases: list[tuple[str, str]]) -> None:
    """Each task run by the offline agent on ``page`` in real chromium, its editor (#ed) set to
    ``text`` first; the editor's markup afterwards holds the case's markup."""
    from gui_agent.bench.miniwob.browser import BrowserOptions, Chromium, screen_size
    from gui_agent.config import Settings
    from gui_agent.display import VirtualDisplay
    from gui_agent.engine import Engine

    url = "data:text/html," + urllib.parse.quote(page)
    with VirtualDisplay(size=screen_size(2)) as vd, \
            Chromium(vd.name or "", url, BrowserOptions(scale=2)) as browser:
        time.sleep(1.0)      # (the virtual display is the DISPLAY of this process meanwhile)
        engine = Engine.from_settings(Settings(safety="allow", max_steps=10, max_seconds=60,
                                               accessibility=False), use_memory=False)
        for task, markup in cases:
            browser.cdp.evaluate(f"document.getElementById('ed').innerHTML = {text!r}")
            time.sleep(0.3)
            result = engine.run(task)
            html = browser.cdp.evaluate("document.getElementById('ed').innerHTML")
            assert result.outcome == "done", (task, result.reason)
            assert markup in html, (task, html)


def test_words_are_styled_by_selecting_them_and_pressing_the_styles_keys() -> None:
    _style_in_chromium(PAGE, TEXT, [
        ('bold "quick"', "The <b>quick</b> brown"),
        ('make "over the" bold and underlined', "jumps <b><u>over the</u></b> lazy"),
        ('underline "lazy dog"', "the <u>lazy dog</u> near"),          # wrapped after "lazy"
        ("Using the text editor, give everything the style italics", f"<i>{TEXT}</i>")])

PALETTE = ["#000000", "#e60000", "#ff9900", "#ffff00", "#008a00", "#0066cc", "#9933ff",
           "#ffffff", "#facccc", "#ffebcc", "#ffffcc", "#cce8cc", "#cce0f5", "#ebd6ff",
           "#bbbbbb", "#f06666", "#ffc266", "#ffff66", "#66b966", "#66a3e0", "#c285ff",
           "#888888", "#a10000", "#b26b00", "#b2b200", "#006100", "#0047b2", "#6b24b2",
           "#444444", "#5c0000", "#663d00", "#666600", "#003700", "#002966", "#3d1466"]
# A toolbar with a text colour button (an "A" over a bar) that opens a palette of shades, and a
# bold button; the editor under it. The page keeps the selection while its toolbar is clicked.
COLOUR_PAGE = (
    "<html><head><style>body{font-family:sans-serif;margin:8px}"
    "#bar{border:1px solid #ccc;padding:1px 4px;width:140px;position:relative}"
    "#bar button{border:none;background:none;width:28px;height:24px;padding:2px}"
    "#pal{display:none;position:absolute;top:30px;left:0;width:152px;background:#fff;border:1px solid #ccc;"
    "box-shadow:0 2px 8px rgba(0,0,0,.2);padding:3px 5px;z-index:2}"
    ".sw{display:inline-block;width:16px;height:16px;margin:2px}"
    "#ed{border:1px solid #ccc;width:140px;height:70px;padding:4px;font-size:13px}</style></head><body>"
    "<div id=bar><button id=col onmousedown='event.preventDefault()' onclick=\"var p=document.getElementById("
    "'pal');p.style.display=p.style.display=='block'?'none':'block'\"><svg viewBox='0 0 18 18' width=18 height=18>"
    "<line x1=3 x2=15 y1=15 y2=15 stroke='#444' stroke-width=2></line><polyline points='5.5 11 9 3 12.5 11' "
    "fill=none stroke='#444' stroke-width=2 stroke-linejoin=round></polyline><line x1=11.63 x2=6.38 y1=9 y2=9 "
    "stroke='#444' stroke-width=2></line></svg></button><button onmousedown='event.preventDefault()' "
    "onclick=\"document.execCommand('bold')\"><b>B</b></button><div id=pal>"
    + "".join(f"<span class=sw data-c='{c}' style='background:{c}'></span>" for c in PALETTE)
    + "</div></div><div id=ed contenteditable=true></div><script>"
    "document.querySelectorAll('.sw').forEach(function(s){s.onmousedown=function(e){e.preventDefault()};"
    "s.onclick=function(){document.execCommand('styleWithCSS',false,true);document.execCommand('foreColor',false,"
    "s.dataset.c);document.getElementById('pal').style.display='none'}});</script></body></html>")
COLOUR_TEXT = "The quick brown fox jumps over the lazy dog"


def test_a_text_is_coloured_with_the_editors_colour_button_and_its_palette() -> None:
    _style_in_chromium(COLOUR_PAGE, COLOUR_TEXT, [
        ('give the text "jumps" the color red', '<span style="color: rgb(230, 0, 0);">jumps</span>'),
        ('color "lazy dog" blue', '<span style="color: rgb(0, 102, 204);">lazy dog</span>'),
        ("Using the text editor, make everything the color orange",
         f'<span style="color: rgb(255, 153, 0);">{COLOUR_TEXT}</span>')])
