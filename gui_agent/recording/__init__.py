"""Record a demonstration with the real mouse and keyboard, and compile it into a skill.

``gui-agent record NAME`` listens to global input (pynput), keeps a ring buffer of screen frames
(mss) so that the frame before each input is truly from before it, coalesces the input as a
person means it, and writes a *demonstration folder*; ``gui-agent compile DEMO`` (run after
recording too) turns the folder into a skill (see :mod:`.compiler`).

Demonstration folder (format version 1)::

    NAME-YYYYmmdd-HHMMSS/
      meta.json       {"format": "gui-agent-demonstration", "version": 1, "name": "login",
                       "created": "2025-01-31T09:12:00+00:00", "created_at": 1738314720.0,
                       "duration": 14.2, "events": 5, "platform": "linux",
                       "screen": {"monitor": 1, "left": 0, "top": 0, "width": 1280, "height": 800,
                                  "scale": 1.0, "pixels": [1280, 800]},
                       "window": {"title": "gui-agent playground", "box": [0, 0, 1024, 700]},
                       "stop_reason": "stop hotkey", "stop_hotkey": "<ctrl>+<alt>+<esc>",
                       "parameters": [{"name": "username", "event": 2, "label": "Username", "secret": false},
                                      {"name": "password", "event": 4, "label": "Password",
                                       "secret": true}]}
      events.jsonl    one event per line, in order:
                      {"index": 1, "kind": "click", "t": 1.52, "end": 1.61, "point": [556, 203],
                       "button": "left", "clicks": 1, "window": "gui-agent playground",
                       "window_box": [0, 0, 1024, 700], "before": "0001-before.png", "after": "0001-after.png"}
                      {"index": 2, "kind": "type", "text": "ann", ...}
                      {"index": 4, "kind": "type", "text": "{secret:password}", "secret": "password", ...}
                      {"index": 6, "kind": "hotkey", "keys": ["ctrl", "a"], ...}
                      {"index": 7, "kind": "key", "keys": ["enter"], ...}
                      {"index": 8, "kind": "scroll", "point": [600, 400], "direction": "down", "amount": 5, ...}
                      {"index": 9, "kind": "drag", "point": [100, 100], "end_point": [300, 120],
                       "button": "left", ...}
      frames/         NNNN-before.png, NNNN-after.png: the monitor just before the event and once
                      the screen settled after it (only frames an event names; an event may name
                      another event's frame when they are the same picture)
      crops/          written by the compiler: the image anchor of each step's target

Times ``t``/``end`` are seconds from the start; points are screen (input) coordinates; frames are
the monitor's pixels (``screen.scale`` pixels per input unit). Text typed into a password field
(its label says password/passcode/PIN, or it shows only dots, or the user marked it with
``--secret-field LABEL`` or the secret hotkey) is never written: the event holds the placeholder
``{secret:NAME}`` and meta.json lists the parameter as secret (the compiled skill names it
``secret_NAME`` and gives it no default). Parameter names in meta.json may be edited before
compiling: the compiled skill uses them.
"""

from __future__ import annotations

from .compiler import compile_demo
from .demo_folder import DemoMeta, Demonstration, DemoParameter, load_demo
from .events import DemoEvent, RawEvent
from .recorder import Recorder

__all__ = ["DemoEvent", "DemoMeta", "DemoParameter", "Demonstration", "RawEvent", "Recorder",
           "compile_demo", "load_demo"]
