"""OCR from several threads at once (the app's run thread, a recording's compile thread, Qt's).

onnxruntime sessions are made and run one at a time per process (a whole test run once died
with a segfault while a compile thread made a session), and a process whose daemon threads are
still reading text exits cleanly instead of aborting in onnxruntime's teardown.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

from PIL import Image, ImageDraw, ImageFont

from gui_agent.parsing.ocr import OcrEngine
from gui_agent.parsing.ocr_cache import OcrCache
from tests.support.paths import REPO
from tests.support.requirements import require_module

LINES = ("Save changes", "Open file 42")


def _screen() -> Image.Image:
    image = Image.new("RGB", (420, 120), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=20)
    for n, text in enumerate(LINES):
        draw.text((16, 16 + 50 * n), text, fill="black", font=font)
    return image


def test_engines_made_and_used_in_many_threads_at_once_take_turns_in_onnxruntime(monkeypatch):
    ort = require_module("onnxruntime")
    busy, peak, count = [0], [0], threading.Lock()

    def one_at_a_time(real):
        def call(*args, **kwargs):
            with count:
                busy[0] += 1
                peak[0] = max(peak[0], busy[0])
            try:
                time.sleep(0.005)   # widen the window in which a second call could come in
                return real(*args, **kwargs)
            finally:
                with count:
                    busy[0] -= 1
        return call

    monkeypatch.setattr(ort.InferenceSession, "__init__", one_at_a_time(ort.InferenceSession.__init__))
    monkeypatch.setattr(ort.InferenceSession, "run", one_at_a_time(ort.InferenceSession.run))
    screen, shared = _screen(), OcrEngine(threads=1)
    start = threading.Barrier(6)
    reads: list[list[str]] = []
    errors: list[BaseException] = []

    def read(engine_of_its_own: bool) -> None:
        try:
            start.wait(timeout=60)
            for _ in range(2):
                engine = OcrEngine(threads=1) if engine_of_its_own else shared
                if not engine_of_its_own:
                    engine.cache = OcrCache()   # nothing from the cache: every crop is recognised
                reads.append(sorted(line.text for line in engine.read(screen)))
        except BaseException as exc:  # reported below, with the thread's own traceback
            errors.append(exc)

    threads = [threading.Thread(target=read, args=(n < 4,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads), "a reading thread hung"
    assert errors == []
    assert reads == [sorted(LINES)] * 12
    assert peak[0] == 1, f"{peak[0]} onnxruntime calls ran at once"


def test_a_process_exits_cleanly_while_its_daemon_threads_read_text(tmp_path):
    code = """
import threading, time
from PIL import Image, ImageDraw
from gui_agent.parsing.ocr import OcrEngine
from gui_agent.parsing.ocr_cache import OcrCache

screen = Image.new("RGB", (600, 200), "white")
draw = ImageDraw.Draw(screen)
for n in range(5):
    draw.text((10, 10 + 35 * n), f"Line {n} of the text", fill="black")
reading = threading.Barrier(4)

def read_for_ever():
    engine = OcrEngine(threads=1)
    engine.read(screen)
    reading.wait()
    while True:
        engine.cache = OcrCache()
        engine.read(screen)

for _ in range(3):
    threading.Thread(target=read_for_ever, daemon=True).start()
reading.wait(timeout=120)
time.sleep(0.3)
print("exiting", flush=True)
"""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for _ in range(3):   # each exit caught a thread inside onnxruntime before the fix, most often
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=300, cwd=tmp_path, env=env)
        assert done.returncode == 0 and done.stdout.strip() == "exiting", done.stderr[-2000:]
        assert "terminate called" not in done.stderr
