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


def test_words_are_styled_by_selecting_them_and_pressing_the_styles_keys() -> None:
    from gui_agent.bench.miniwob.browser import BrowserOptions, Chromium, screen_size
    from gui_agent.config import Settings
    from gui_agent.display import VirtualDisplay
    from gui_agent.engine import Engine

    url = "data:text/html," + urllib.parse.quote(PAGE)
    cases = [('bold "quick"', "The <b>quick</b> brown"),
             ('make "over the" bold and underlined', "jumps <b><u>over the</u></b> lazy"),
             ('underline "lazy dog"', "the <u>lazy dog</u> near"),          # wrapped after "lazy"
             ("Using the text editor, give everything the style italics", f"<i>{TEXT}</i>")]
    with VirtualDisplay(size=screen_size(2)) as vd, \
            Chromium(vd.name or "", url, BrowserOptions(scale=2)) as browser:
        time.sleep(1.0)      # (the virtual display is the DISPLAY of this process meanwhile)
        engine = Engine.from_settings(Settings(safety="allow", max_steps=10, max_seconds=60,
                                               accessibility=False), use_memory=False)
        for task, markup in cases:
            browser.cdp.evaluate(f"document.getElementById('ed').innerHTML = {TEXT!r}")
            time.sleep(0.3)
            result = engine.run(task)
            html = browser.cdp.evaluate("document.getElementById('ed').innerHTML")
            assert result.outcome == "done", (task, result.reason)
            assert markup in html, (task, html)
