"""The demonstrations of `gui-agent bench replay`: scripted real input on the playground.

Each demonstration is a list of acts a person would do (click the target that reads X, type,
press keys), driven with xdotool so that the recorder hears them like a person's input (it
ignores gui-agent's own). Every click's intended element is kept as a :class:`ClickTruth`, so
that a replay's clicks can be judged against the app's own ``targets`` later, and each
demonstration has a check on the playground's state that says whether the task was done.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

State = dict[str, Any]
SECRET = "Tr0ub4dor-3"        # the password typed in the demonstrations (a secret parameter)
PAUSE_S = 0.4                # between acts: the recorder's frames and the app settle


@dataclass(frozen=True)
class Act:
    """One input of a demonstration.

    ``kind``: "click" (the target whose text is ``value``, of ``target`` kind, on the row of the
    text ``row`` when the text is shown more than once), "type" (``value``; ``secret``: the
    password), or "key" (``value`` in xdotool's spelling, e.g. "ctrl+s", "Return").
    """

    kind: str
    value: str
    target: str | None = None
    row: str | None = None
    secret: bool = False


@dataclass(frozen=True)
class ClickTruth:
    """The element a recorded click was meant for: its kind, text, window and row text."""

    point: tuple[int, int]
    kind: str
    text: str
    window: str
    row: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ClickTruth:
        return cls(tuple(data["point"]), data["kind"], data["text"], data["window"], data.get("row"))


@dataclass(frozen=True)
class Demo:
    name: str
    acts: tuple[Act, ...]
    check: Callable[[State], bool]
    expect: str                       # what the check wants, in words


def click(text: str, kind: str, row: str | None = None) -> Act:
    return Act("click", text, kind, row)


def type_(text: str, secret: bool = False) -> Act:
    return Act("type", text, secret=secret)


def key(combo: str) -> Act:
    return Act("key", combo)


def _clicked(state: State, text: str) -> list[Any]:
    return [e.get("context") for e in state["events"] if e.get("action") == "click" and e.get("text") == text]


def _saved(state: State, name: str) -> str | None:
    return next((f["content"] for f in state["editor"]["saved_files"] if Path(f["path"]).name == name), None)


DEMOS: tuple[Demo, ...] = (
    Demo("login-and-add", (
        click("Username", "field"), type_("ann"), click("Password", "field"), type_(SECRET, True),
        click("Remember me", "checkbox"), click("Log in", "button"), click("Items", "tab"),
        click("New item", "field"), type_("Dates"), click("Add", "button"),
        click("New item", "field"), type_("Figs"), key("Return"), click("Dates", "list_item")),
        lambda s: (s["login"]["logged_in_as"] == "ann" and s["login"]["remember_me"]
                   and s["items"]["list"][-2:] == ["Dates", "Figs"] and s["items"]["selected"] == "Dates"),
        "signed in as ann (remembered), Dates and Figs added, Dates selected"),
    Demo("settings-dialog", (
        click("Settings", "tab"), click("Open settings…", "button"), click("Name", "field"), type_("Ann Lee"),
        click("Email", "field"), type_("ann@example.com"), click("Color", "combo"), key("Up"), key("Return"),
        click("Auto-save", "checkbox"), click("Large", "radio"), click("Advanced", "tab"),
        click("Verbose logging", "checkbox"), click("OK", "button")),
        lambda s: s["dialog"] is None and s["settings"]["applied"] == {
            **s["settings"]["applied"], "name": "Ann Lee", "email": "ann@example.com", "color": "Green",
            "auto_save": True, "size": "Large", "verbose_logging": True},
        "settings applied: Ann Lee, ann@example.com, Green, auto-save, large, verbose logging"),
    Demo("delete-items", (
        click("Items", "tab"), click("Apples", "list_item"), click("Delete", "button"), click("Yes", "button"),
        click("Cherries", "list_item"), click("Delete", "button"), click("No", "button"),
        click("New item", "field"), type_("Grapes"), click("Add", "button"), click("Grapes", "list_item"),
        click("Delete", "button"), click("Yes", "button")),
        lambda s: (s["dialog"] is None and s["items"]["deleted"] == ["Apples", "Grapes"]
                   and sorted(s["items"]["list"]) == ["Bananas", "Cherries"]),
        "Apples and Grapes deleted, Cherries kept"),
    Demo("contacts-edit", (
        click("Contacts", "tab"), click("Edit", "button", "alice@example.com"), click("Login", "tab"),
        click("Username", "field"), type_("dana"), click("Password", "field"), type_(SECRET, True),
        key("Return"), click("Contacts", "tab"), click("Edit", "button", "carol@example.com"),
        click("Items", "tab"), click("New item", "field"), type_("Call Alice"), key("Return")),
        lambda s: (s["login"]["logged_in_as"] == "dana" and _clicked(s, "Edit") == ["Alice", "Carol"]
                   and s["items"]["list"][-1] == "Call Alice"),
        "edited Alice then Carol (by row), signed in as dana, 'Call Alice' added"),
    Demo("editor-save-as", (
        click("Editor", "tab"), click("Text", "text_area"), type_("Hello from the demo"), key("Return"),
        type_("second line"), key("ctrl+s"), type_("notes.txt"), click("Save", "button"),
        click("File", "menu"), click("New", "menu_item"), click("Text", "text_area"), type_("fresh start")),
        lambda s: (s["dialog"] is None and _saved(s, "notes.txt") == "Hello from the demo\nsecond line"
                   and s["editor"]["text"] == "fresh start" and s["editor"]["path"] is None),
        "notes.txt saved with two lines, then a new text 'fresh start'"),
    Demo("login-retry-settings", (
        click("Username", "field"), type_("bob"), click("Log in", "button"), click("Password", "field"),
        type_(SECRET, True), click("Log in", "button"), click("Settings", "tab"),
        click("Open settings…", "button"), click("Advanced", "tab"), click("Verbose logging", "checkbox"),
        click("Apply", "button"), click("General", "tab"), click("Enable notifications", "checkbox"),
        click("Cancel", "button")),
        lambda s: (s["login"]["logged_in_as"] == "bob" and s["login"]["attempts"] == 2 and s["dialog"] is None
                   and s["settings"]["applied"]["verbose_logging"] and s["settings"]["applied"]["notifications"]
                   and s["settings"]["apply_count"] == 1),
        "signed in as bob at the 2nd attempt, verbose logging applied, the notifications change cancelled"),
)

# Renamed in the "renamed" perturbation: each demonstration clicks at least one of them.
RENAMES = {"Log in": "Enter", "Add": "Append", "OK": "Done", "Yes": "Proceed", "Edit": "Change",
           "Save": "Store"}


def demo_named(name: str) -> Demo:
    for demo in DEMOS:
        if demo.name == name:
            return demo
    raise KeyError(name)


# -- targets ---------------------------------------------------------------------------------
def _centre(box: Sequence[int]) -> tuple[int, int]:
    return box[0] + box[2] // 2, box[1] + box[3] // 2


def click_point(target: dict[str, Any]) -> tuple[int, int]:
    """Where a person clicks a target: a list item on its word (at the left), the rest in the middle."""
    left, top, width, height = target["box"]
    if target["kind"] == "list_item":
        return left + min(24, width // 2), top + height // 2
    return _centre(target["box"])


def _same_row(a: Sequence[int], b: Sequence[int]) -> bool:
    ya, yb = a[1] + a[3] / 2, b[1] + b[3] / 2
    return abs(ya - yb) <= max(a[3], b[3]) / 2


def row_text(target: dict[str, Any], targets: Sequence[dict[str, Any]]) -> str | None:
    """For a text shown more than once in its window: the nearest label left of it on its row."""
    twins = [t for t in targets if (t["kind"], t["text"], t["window"]) == (target["kind"], target["text"],
                                                                            target["window"])]
    if len(twins) < 2:
        return None
    left = [t for t in targets if t["kind"] == "label" and t["window"] == target["window"]
            and _same_row(t["box"], target["box"]) and t["box"][0] + t["box"][2] <= target["box"][0]]
    return max(left, key=lambda t: t["box"][0])["text"] if left else None


def matching(targets: Sequence[dict[str, Any]], kind: str, text: str, row: str | None,
             window: str | None = None) -> list[dict[str, Any]]:
    """The targets that are this element (its kind, text, window and, for twins, row text)."""
    out = [t for t in targets if t["kind"] == kind and t["text"] == text and window in (None, t["window"])]
    if row is not None:
        out = [t for t in out if row_text(t, targets) == row]
    return out


# -- driving real input ----------------------------------------------------------------------
def xdotool(*args: str) -> None:
    subprocess.run(["xdotool", *args], check=True, timeout=20, capture_output=True)


def perform_act(app: Any, act: Act, timeout: float = 10.0) -> ClickTruth | None:
    """Do ``act`` with xdotool on the playground ``app`` (a PlaygroundProcess); a click's truth."""
    truth = None
    if act.kind == "click":
        assert act.target is not None
        state = app.wait_for(lambda s: bool(matching(s["targets"], act.target, act.value, act.row)), timeout)
        target = matching(state["targets"], act.target, act.value, act.row)[0]
        x, y = click_point(target)
        truth = ClickTruth((x, y), target["kind"], target["text"], target["window"], act.row)
        xdotool("mousemove", str(x), str(y), "click", "1")
    elif act.kind == "type":
        xdotool("type", "--delay", "40", act.value)
    elif act.kind == "key":
        xdotool("key", act.value)
    else:
        raise ValueError(f"unknown act kind {act.kind!r}")
    time.sleep(PAUSE_S)
    return truth


def record_demo(app: Any, demo: Demo, folder: Path, *, parser: Any = None) -> tuple[Any, list[ClickTruth]]:
    """Record ``demo`` driven on ``app`` into ``folder``: (the Demonstration, the click truths)."""
    from ..recording import Recorder

    recorder = Recorder(folder, demo.name, parser=parser)
    recorder.start()
    truths: list[ClickTruth] = []
    try:
        time.sleep(0.3)
        for act in demo.acts:
            truth = perform_act(app, act)
            if truth is not None:
                truths.append(truth)
        time.sleep(0.4)
    finally:
        recorder.stop()
        demonstration = recorder.finish()
    return demonstration, truths
