"""The playground's observable state: one JSON document, rewritten atomically on every change.

No Qt here: the app feeds this recorder, and tests, the launcher and demos read the file.
Secrets never reach it: the login section holds ``password_length``, never the password.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

MAX_EVENTS = 50
STATE_VERSION = 1

SETTINGS_DEFAULTS: dict[str, Any] = {
    "name": "",
    "email": "",
    "notifications": True,
    "auto_save": False,
    "line_numbers": True,
    "size": "Medium",
    "color": "Blue",
    "retries": 3,
    "verbose_logging": False,
}

INITIAL_ITEMS = ("Apples", "Bananas", "Cherries")
CONTACTS = (
    ("Alice", "alice@example.com"),
    ("Bob", "bob@example.com"),
    ("Carol", "carol@example.com"),
)


def initial_state(
    *, save_dir: Path, theme: str, font_scale: float, reorder: bool = False
) -> dict[str, Any]:
    """The state of a freshly started playground, before the window is shown.

    ``reorder``: the Items list and the Contacts rows start in reverse order (the pages are
    built from this state, so ``items.list`` and ``contacts.rows`` say what is shown).
    """
    order = (lambda seq: list(reversed(seq))) if reorder else list
    return {
        "version": STATE_VERSION,
        "ready": False,
        "running": True,
        "pid": os.getpid(),
        "seq": 0,
        "updated_at": time.time(),
        "theme": theme,
        "font_scale": font_scale,
        "window": {"title": "", "x": 0, "y": 0, "width": 0, "height": 0},
        "current_tab": "Login",
        "dialog": None,
        "login": {
            "username": "",
            "password_length": 0,
            "remember_me": False,
            "status": "",
            "logged_in_as": None,
            "attempts": 0,
        },
        "settings": {
            "pending": dict(SETTINGS_DEFAULTS),
            "applied": dict(SETTINGS_DEFAULTS),
            "dialog_tab": None,
            "apply_count": 0,
        },
        "items": {"list": order(INITIAL_ITEMS), "selected": None, "new_item": "", "deleted": []},
        "editor": {
            "text": "",
            "path": None,
            "modified": False,
            "save_dir": str(save_dir),
            "saved_files": [],
        },
        "contacts": {"rows": order([name for name, _ in CONTACTS]), "last_edit": None},
        "last_clicked": None,
        "targets": [],
        "events": [],
    }


def write_json_atomically(path: Path, document: dict[str, Any]) -> None:
    """Write ``document`` to ``path`` so that a reader never sees a half-written file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(document, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


class StateRecorder:
    """Holds the state document and rewrites the state file (if any) after every change."""

    def __init__(self, state: dict[str, Any], path: Path | None = None) -> None:
        self._state = state
        self._path = path
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._flush()

    @property
    def path(self) -> Path | None:
        return self._path

    def snapshot(self) -> dict[str, Any]:
        """A deep copy of the current state (what the file holds)."""
        return copy.deepcopy(self._state)

    def get(self, section: str) -> Any:
        return copy.deepcopy(self._state[section])

    def set(self, key: str, value: Any) -> None:
        """Replace a top-level key."""
        if self._state.get(key) == value:
            return
        self._state[key] = copy.deepcopy(value)
        self._flush()

    def update(self, section: str, **values: Any) -> None:
        """Update keys inside a top-level section (a dict); no write if nothing changed."""
        target = self._state[section]
        changed = {k: v for k, v in values.items() if target.get(k) != v}
        if not changed:
            return
        target.update(copy.deepcopy(changed))
        self._flush()

    def update_nested(self, section: str, sub: str, **values: Any) -> None:
        """Update keys inside ``state[section][sub]``, e.g. ``settings.pending``."""
        target = self._state[section][sub]
        changed = {k: v for k, v in values.items() if target.get(k) != v}
        if not changed:
            return
        target.update(copy.deepcopy(changed))
        self._flush()

    def event(self, action: str, **detail: Any) -> None:
        """Append a discrete user action to the event log (the last MAX_EVENTS are kept)."""
        events = self._state["events"]
        events.append({"t": round(time.time(), 3), "action": action, **copy.deepcopy(detail)})
        del events[:-MAX_EVENTS]
        self._flush()

    def click(self, text: str, context: str | None = None) -> None:
        """Record a button click as ``last_clicked`` and as an event."""
        self._state["last_clicked"] = {"text": text, "context": context, "t": round(time.time(), 3)}
        self.event("click", text=text, context=context)

    def _flush(self) -> None:
        self._state["seq"] += 1
        self._state["updated_at"] = round(time.time(), 3)
        if self._path is None:
            return
        try:
            write_json_atomically(self._path, self._state)
        except OSError as exc:  # the app keeps running; the reader will notice the stale seq
            log.error("could not write the playground state file %s: %s", self._path, exc)


def find_target(
    targets: list[dict[str, Any]], text: str, kind: str | None = None, index: int = 0
) -> dict[str, Any]:
    """The ``index``-th visible target with this text (and kind), from ``state["targets"]``."""
    matches = [t for t in targets if t["text"] == text and (kind is None or t["kind"] == kind)]
    if len(matches) <= index:
        seen = sorted({t["text"] for t in targets})
        raise KeyError(f"no target {text!r} (kind={kind}, index={index}); visible: {seen}")
    return matches[index]


def target_center(target: dict[str, Any]) -> tuple[int, int]:
    """The centre of a target's box, in screen coordinates."""
    left, top, width, height = target["box"]
    return left + width // 2, top + height // 2
