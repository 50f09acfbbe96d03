"""Make the README's pictures of the desktop app, with real input on a virtual display.

``.venv/bin/python docs/make_screenshots.py [--out docs/screenshots] [--only task,confirm]`` starts
its own Xvfb (1280x800), temporary data and config folders (never yours), the playground and the
app (``python -m ui --events-file``), drives the app with gui-agent's controller (pyautogui) and
the part being recorded with xdotool (the recorder ignores gui-agent's own input), waits on the
app's events file and the playground's state file, and finds buttons in the app's dialogs by
their text with gui-agent's OCR. Every process it started is ended, on success or not.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from gui_agent.errors import ConfigError, GuiAgentError  # noqa: E402  (light modules, after the path is set)
from gui_agent.geometry import Point  # noqa: E402

SCREEN = (1280, 800)
APP = (160, 40, 1080, 720)                 # x, y, width, height of the app's window
MAX_BYTES = 250_000
TASK = "click the Contacts tab, then click the Edit button next to Bob"
RISKY_TASK = 'click "Items", click "Cherries", then click "Delete"'
SKILL, PARAM, EXAMPLE = "add an item", "item", "add Pears to the shopping list"
DESCRIPTION = "Add an item to the playground's shopping list (Items page)"
SHOTS = {   # name -> what it shows (the stage that makes it runs only when one of its shots is wanted)
    "task": "the main window with a task typed in", "running": "a run: the playground and the status panel",
    "after-run": "the main window after the run: step log and live view",
    "confirm": "the confirmation of a risky action", "recording": "the recording indicator over the playground",
    "review": "the review of the recorded skill", "library": "the skill library and a skill's Run form"}


def save_png(image: Any, path: Path, limit: int = MAX_BYTES) -> int:
    """Save ``image`` as an optimised PNG under ``limit`` bytes (fewer colours, then smaller); its size."""
    from PIL import Image

    image = image.convert("RGB")
    first = True
    while True:
        for candidate in ([image] if first else []) + [image.quantize(256, dither=Image.Dither.NONE)]:
            candidate.save(path, optimize=True)
            if (size := path.stat().st_size) <= limit:
                return size
        first, image = False, image.resize((image.width * 17 // 20, image.height * 17 // 20),
                                           Image.Resampling.LANCZOS)


def _norm(text: str) -> str:
    return re.sub(r"[^0-9a-z{}]", "", text.casefold())


class Stage:
    """One session: display, playground, app; the steps that make the pictures."""

    def __init__(self, out: Path, work: Path, wanted: set[str]) -> None:
        from gui_agent.control.pyautogui_controller import PyAutoGuiController

        self.out, self.work, self.wanted, self.events_file = out, work, wanted, work / "events.jsonl"
        self.made: dict[str, int] = {}               # picture -> bytes
        self.used: dict[str, int] = {}               # event kind -> how many were returned
        self.app: subprocess.Popen | None = None
        self.playground: Any = None
        self._parser: Any = None
        self._capture: Any = None
        self.ready: dict[str, Any] = {}
        self.controller = PyAutoGuiController()

    def start(self, stack: contextlib.ExitStack) -> None:
        from gui_agent.playground import launch_playground
        from gui_agent.screen.capture import ScreenCapture

        self.playground = stack.enter_context(launch_playground(self.work / "playground.json",
                                                                save_dir=self.work / "files"))
        self.playground.wait_ready(timeout=60)
        log = stack.enter_context((self.work / "app.log").open("w"))
        env = dict(os.environ, QT_QPA_PLATFORM="xcb", QT_FONT_DPI="96", QT_ACCESSIBILITY="0",
                   PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p))
        self.app = subprocess.Popen([sys.executable, "-m", "ui", "--pos", f"{APP[0]},{APP[1]}",
                                     "--size", f"{APP[2]}x{APP[3]}", "--events-file", str(self.events_file)],
                                    env=env, stdout=log, stderr=subprocess.STDOUT, cwd=REPO)
        stack.callback(self._end_app)
        self._capture = stack.enter_context(ScreenCapture())
        self.ready = self.next_event("ready", 60)

    def _end_app(self) -> None:
        if self.app is not None and self.app.poll() is None:
            self.app.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.app.wait(10)
            self.app.kill()                          # a no-op when it has ended
            self.app.wait(10)

    def next_event(self, kind: str, timeout: float) -> dict[str, Any]:
        """The next event of ``kind`` not returned before, waiting up to ``timeout`` seconds."""
        from ui.app_events import read_events

        deadline = time.monotonic() + timeout
        while True:
            found = [e for e in read_events(self.events_file) if e["event"] == kind]
            if len(found) > self.used.get(kind, 0):
                self.used[kind] = self.used.get(kind, 0) + 1
                return found[self.used[kind] - 1]
            if self.app is not None and self.app.poll() is not None:
                raise GuiAgentError(f"the app exited ({self.app.returncode}) before {kind!r}:\n{self.app_log()}")
            if time.monotonic() > deadline:
                raise GuiAgentError(f"no {kind!r} event within {timeout:.0f} s\n{self.app_log()}")
            time.sleep(0.05)

    def app_log(self) -> str:
        path = self.work / "app.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""

    def window(self, title: str, timeout: float = 30, move_to: tuple[int, int] | None = None) -> tuple[int, ...]:
        """(x, y, width, height) of the visible window called exactly ``title``, first moved to
        ``move_to`` if given (no window manager: no frames, so this is the window's content)."""
        deadline = time.monotonic() + timeout
        while not (found := subprocess.run(["xdotool", "search", "--onlyvisible", "--name", f"^{re.escape(title)}$"],
                                           capture_output=True, text=True, timeout=10).stdout.split()):
            if time.monotonic() > deadline:
                raise GuiAgentError(f"no window {title!r} appeared within {timeout:.0f} s\n{self.app_log()}")
            time.sleep(0.1)
        if move_to is not None:
            subprocess.run(["xdotool", "windowmove", "--sync", found[-1], *map(str, move_to)], timeout=10, check=True)
        shell = subprocess.run(["xdotool", "getwindowgeometry", "--shell", found[-1]], capture_output=True,
                               text=True, timeout=10, check=True).stdout
        geo = dict(line.split("=", 1) for line in shell.split())
        return int(geo["X"]), int(geo["Y"]), int(geo["WIDTH"]), int(geo["HEIGHT"])

    def find_text(self, text: str, region: tuple[int, int, int, int], *, last: bool = False,
                  contains: bool = False, avoid_braces: bool = False) -> Any:
        """The screen point of the topmost (or ``last``: bottom-most) element reading ``text`` (or
        ``contains`` it) in ``region`` (x, y, w, h), read with gui-agent's own screen parser."""
        if self._parser is None:
            from gui_agent.parsing.screen_parser import ScreenParser

            self._parser = ScreenParser(incremental=False)
        x, y, w, h = region
        parse = self._parser.parse(self._capture.capture(1).image.crop((x, y, x + w, y + h)))
        want = _norm(text).strip("{}")
        hits = sorted((e for e in parse.elements if (want in _norm(e.text) if contains else
                                                     _norm(e.text).rstrip(".") == want)
                       and not (avoid_braces and "{" in e.text)), key=lambda e: (e.box.top, e.box.left))
        if not hits:
            raise GuiAgentError(f"{text!r} is not on screen in {region}; read: {[e.text for e in parse.elements]}")
        box = hits[-1 if last else 0].box
        return Point(x + box.center.x, y + box.center.y)

    def click_text(self, text: str, region: tuple[int, int, int, int], clicks: int = 1, **kw: Any) -> None:
        self.controller.click(self.find_text(text, region, **kw), clicks=clicks)

    def click_box(self, rect: list[int]) -> None:
        x, y, w, h = rect
        self.controller.click(Point(x + w // 2, y + h // 2))

    def by_hand(self, *args: str, click: tuple[str, str] | None = None) -> None:
        """xdotool ``args`` or a ``click`` on the playground's (kind, text), heard as a person's input."""
        time.sleep(0.5)
        if click is not None:
            args = ("mousemove", *map(str, self.playground_point(*click)), "click", "1")
        subprocess.run(["xdotool", *args], check=True, timeout=20, capture_output=True)

    def click_playground(self, kind: str, text: str) -> None:
        """gui-agent's own click (never recorded) on the playground's ``kind`` called ``text``."""
        self.controller.click(Point(*self.playground_point(kind, text)))
        self.playground.wait_for(lambda s: kind != "tab" or s["current_tab"] == text, timeout=10)

    def playground_point(self, kind: str, text: str) -> tuple[int, int]:
        state = self.playground.wait_for(lambda s: any(t["kind"] == kind and t["text"] == text
                                                       for t in s.get("targets", [])), timeout=10)
        x, y, w, h = next(t["box"] for t in state["targets"] if t["kind"] == kind and t["text"] == text)
        return x + w // 2, y + h // 2

    def shot(self, name: str, region: tuple[int, int, int, int] | None = None, settle: float = 0.4) -> None:
        if name not in self.wanted:
            return
        time.sleep(settle)
        image = self._capture.capture(1).image
        if region is not None:
            x, y, w, h = region
            image = image.crop((max(0, x), max(0, y), min(image.width, x + w), min(image.height, y + h)))
        path = self.out / f"app-{name}.png"
        self.made[name] = save_png(image, path)
        print(f"{path}: {image.width}x{image.height}, {self.made[name] // 1024} KB", flush=True)

    def retype(self, text: str) -> None:
        """Replace the text in the focused field."""
        self.controller.hotkey("ctrl", "a")
        self.controller.type_text(text)

    def run_ended(self, outcome: str, what: str, timeout: float = 120) -> None:
        end = self.next_event("run_finished", timeout)
        if end["outcome"] != outcome:
            raise GuiAgentError(f"{what} ended {end['outcome']}, not {outcome}: {end['reason']}\n{self.app_log()}")

    def type_task(self, task: str, picture: str = "") -> None:
        """Type ``task`` in the task box (then take ``picture``), press Run, wait until it starts."""
        self.click_box(self.ready["task_box"])
        self.retype(task)
        self.shot(picture, APP)
        if picture and not self.wanted & {"running", "after-run"}:
            return
        self.click_box(self.ready["run_button"])
        self.next_event("run_started", 20)

    def first_task(self) -> None:
        self.type_task(TASK, picture="task")
        if not self.wanted & {"running", "after-run"}:
            return
        self.next_event("step", 120)
        self.shot("running", settle=0.2)
        self.run_ended("done", "the first task")
        self.next_event("window_restored", 10)
        time.sleep(0.5)
        # the last step, selected: the live view shows the screen it started from, its target drawn
        self.click_text("click(", (APP[0] + APP[2] // 2, APP[1], APP[2] // 2, APP[3]), last=True, contains=True)
        self.shot("after-run", APP, settle=0.8)

    def risky_action(self) -> None:
        self.type_task(RISKY_TASK)
        dialog = self.window("gui-agent asks before acting", 120)
        self.shot("confirm", dialog, settle=0.6)
        self.click_text("Deny", dialog)
        if (answer := self.next_event("confirm", 10))["choice"] != "deny":
            raise GuiAgentError(f"Deny was pressed, but the app heard {answer}")
        self.run_ended("refused", "the risky task", 30)
        self.next_event("window_restored", 10)

    def record(self) -> None:
        self.click_playground("tab", "Login")            # the recording starts on another page
        self.click_box(self.ready["record_button"])
        started = self.next_event("recording_started", 30)
        self.by_hand(click=("tab", "Items"))
        self.by_hand(click=("field", "New item"))
        self.by_hand("type", "--delay", "60", "Pears")
        self.shot("recording", settle=0.5)
        self.by_hand(click=("button", "Add"))
        self.playground.wait_for(lambda s: s["items"]["list"][-1:] == ["Pears"], timeout=10)
        time.sleep(0.6)
        self.click_box(started["stop_button"])
        self.next_event("recording_stopped", 10)
        self.click_playground("tab", "Login")            # so that the replay has a page to change
        compiled = self.next_event("recording_compiled", 180)
        if compiled["steps"][-1:] != ["click('\"Add\"')"] or len(compiled["parameters"]) != 1:
            raise GuiAgentError(f"the recording compiled to {compiled['steps']} {compiled['parameters']}")
        review = self.window("Review the recorded skill", 30)
        time.sleep(0.5)
        name = self.find_text("Name", review)            # the label; its field is to its right
        self.controller.click(Point(name.x + 250, name.y))
        time.sleep(0.4)                                  # the click gives the dialog the keyboard
        for text in (SKILL, EXAMPLE, DESCRIPTION):       # Name, Tab, Example task, Tab, Description
            self.retype(text)
            self.controller.press("tab")
        self.click_text(compiled["parameters"][0], review, clicks=2, avoid_braces=True)
        time.sleep(0.3)
        self.retype(PARAM)
        self.controller.press("enter")
        self.shot("review", review, settle=0.5)
        self.click_text("Save", review, contains=True)     # "Save skill", after its icon
        saved = self.next_event("skill_saved", 10)
        from gui_agent.config import load_settings
        from gui_agent.memory.store import MemoryStore

        with contextlib.closing(MemoryStore(load_settings().memory_path)) as store:
            skill = store.require_skill(saved["name"])
        if (skill.name, [p.name for p in skill.parameters], skill.examples[:1]) != (SKILL, [PARAM], (EXAMPLE,)):
            raise GuiAgentError(f"the review saved {skill.name!r} with {skill.parameters} and {skill.examples}")

    def replay(self) -> None:
        library = self.window("Skill library", 20)
        time.sleep(1.0)                           # the library reads the store after it is shown
        self.click_text("Run…", library)
        form = self.window(f"Run skill: {SKILL}", 20)    # moved aside, as a person would, off the steps
        form = self.window(f"Run skill: {SKILL}", 10, move_to=(library[0] + 40, library[1] + library[3] - form[3] - 80))
        self.click_text("It will do:", form)         # a label: the keyboard stays in the first field
        time.sleep(0.4)
        self.retype("Plums")
        x0, y0 = min(library[0], form[0]), min(library[1], form[1])
        x1, y1 = max(library[0] + library[2], form[0] + form[2]), max(library[1] + library[3], form[1] + form[3])
        self.shot("library", (x0, y0, x1 - x0, y1 - y0), settle=0.6)
        self.click_text("Run", form)
        self.next_event("run_started", 20)
        self.run_ended("done", "the replay")
        self.playground.wait_for(lambda s: s["items"]["list"][-1:] == ["Plums"], timeout=10)


def run(out: Path, wanted: set[str], use_display: bool) -> dict[str, int]:
    out.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="gui-agent-shots-")))
        for name in [k for k in os.environ if k.startswith("GUI_AGENT_")]:
            del os.environ[name]                  # the person's own settings would change the pictures
        for name, value in (("GUI_AGENT_DATA_DIR", work / "data"), ("GUI_AGENT_CONFIG_DIR", work / "config"),
                            ("GUI_AGENT_RUNS_DIR", work / "runs"), ("XDG_RUNTIME_DIR", work / "xdg")):
            Path(value).mkdir(parents=True, exist_ok=True)
            os.environ[name] = str(value)
        os.environ["GUI_AGENT_SAFETY"] = "ask"
        if not use_display:
            from gui_agent.display import VirtualDisplay

            stack.enter_context(VirtualDisplay(size=SCREEN, depth=24))
        elif not os.environ.get("DISPLAY"):
            raise ConfigError("--use-display needs DISPLAY set")
        stage = Stage(out, work, wanted)
        stage.start(stack)
        steps: list[tuple[set[str], Callable[[], None]]] = [
            ({"task", "running", "after-run"}, stage.first_task), ({"confirm"}, stage.risky_action),
            ({"recording", "review", "library"}, stage.record), ({"library"}, stage.replay)]
        for step in (step for shots, step in steps if wanted & shots):
            step()
        return stage.made


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] + " Pictures: "
                                + "; ".join(f"app-{k}.png ({v})" for k, v in SHOTS.items()) + ".")
    p.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots", help="where the PNGs go")
    p.add_argument("--only", default=",".join(SHOTS), metavar="NAMES", help=f"pictures to make (default: {','.join(SHOTS)})")
    p.add_argument("--use-display", action="store_true", help="use $DISPLAY (1280x800) instead of starting Xvfb")
    args = p.parse_args(argv)
    wanted = {n.strip() for n in args.only.split(",") if n.strip()}
    unknown = wanted - set(SHOTS)
    if unknown or not wanted:
        p.error(f"unknown picture(s) {sorted(unknown)}; choose from {', '.join(SHOTS)}")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # clean up on kill, too
    try:
        made = run(args.out, wanted, args.use_display)
    except (GuiAgentError, subprocess.SubprocessError) as exc:
        print(f"make_screenshots: {exc}", file=sys.stderr)
        return 1
    if missing := wanted - set(made):
        print(f"make_screenshots: not made: {sorted(missing)}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
