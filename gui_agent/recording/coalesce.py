"""Raw input -> events as a person means them.

Rules: printable characters typed in a row become one ``type`` event (Backspace edits the
pending text; Enter, Tab, a click, a hotkey end it); a key with Ctrl/Alt/Win held (or Shift with
a key that types nothing) is a ``hotkey``; any other key that types nothing is a ``key``; two
clicks of a button within the double-click interval and a few pixels are one double click
(three: a triple click); press, move beyond ``drag_px``, release is a ``drag``; wheel steps in
one direction at one place follow each other into one ``scroll`` with the total amount.

Input marked as injected (gui-agent's own) is dropped, and so is the release that pairs with
an injected press. The stop combination ends the recording and is never recorded itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .events import MODIFIERS, DemoEvent, RawEvent

HOTKEY_MODIFIERS = frozenset(MODIFIERS) - {"shift"}
TEXT_ENDERS = ("enter", "tab")


def parse_combination(text: str | None) -> frozenset[str] | None:
    """'<ctrl>+<alt>+r' (pynput's form) -> {'ctrl', 'alt', 'r'}; None stays None."""
    if not text:
        return None
    from ..control.keys import parse_hotkey

    return frozenset(parse_hotkey(text))


@dataclass
class _Press:
    raw: RawEvent
    end: tuple[int, int]
    moved: bool = False


class Coalescer:
    """Feed raw events in order; collect the finished events each call returns."""

    def __init__(self, *, stop_hotkey: str | None = None, secret_hotkey: str | None = None,
                 double_click_s: float = 0.5, double_click_px: int = 4, drag_px: int = 5,
                 scroll_gap_s: float = 1.0, scroll_px: int = 10) -> None:
        self.stop_keys = parse_combination(stop_hotkey)
        self.secret_keys = parse_combination(secret_hotkey)
        self.double_click_s = double_click_s
        self.double_click_px = double_click_px
        self.drag_px = drag_px
        self.scroll_gap_s = scroll_gap_s
        self.scroll_px = scroll_px
        self.stopped = False
        self.mark_secret = False          # the next (or current) typed run is a secret
        self._held: list[str] = []        # modifiers held down, in press order
        self._ignored: set[str] = set()   # keys/buttons whose press we dropped
        self._text: DemoEvent | None = None
        self._text_secret = False
        self._click: DemoEvent | None = None
        self._scroll: DemoEvent | None = None
        self._press: _Press | None = None

    # -- public ---------------------------------------------------------------------
    def feed(self, raw: RawEvent) -> list[DemoEvent]:
        if self.stopped:
            return []
        handler = {"press": self._mouse_down, "release": self._mouse_up, "move": self._move,
                   "scroll": self._wheel, "key_down": self._key_down, "key_up": self._key_up}
        return handler[raw.kind](raw)

    def due(self, now: float) -> list[DemoEvent]:
        """Pending clicks and scroll runs that can no longer grow (their interval passed)."""
        out: list[DemoEvent] = []
        if self._click is not None and now - self._click.end > self.double_click_s:
            out += self._flush_click()
        if self._scroll is not None and now - self._scroll.end > self.scroll_gap_s:
            out += self._flush_scroll()
        return out

    def flush(self) -> list[DemoEvent]:
        """Everything still pending (the recording ends)."""
        return self._flush_text() + self._flush_click() + self._flush_scroll()

    # -- flushing -------------------------------------------------------------------
    def _flush_text(self) -> list[DemoEvent]:
        event, self._text = self._text, None
        secret, self._text_secret = self._text_secret, False
        if event is None or not event.text:
            return []
        return [replace(event, secret="text") if secret else event]

    def _flush_click(self) -> list[DemoEvent]:
        event, self._click = self._click, None
        return [event] if event is not None else []

    def _flush_scroll(self) -> list[DemoEvent]:
        event, self._scroll = self._scroll, None
        return [event] if event is not None else []

    def _flush_all_but(self, keep: str) -> list[DemoEvent]:
        out: list[DemoEvent] = []
        if keep != "text":
            out += self._flush_text()
        if keep != "click":
            out += self._flush_click()
        if keep != "scroll":
            out += self._flush_scroll()
        return out

    # -- mouse ----------------------------------------------------------------------
    def _mouse_down(self, raw: RawEvent) -> list[DemoEvent]:
        if raw.injected:
            self._ignored.add(f"button:{raw.button}")
            return []
        out = self._flush_text() + self._flush_scroll()
        self._press = _Press(raw, (raw.x, raw.y))
        return out

    def _move(self, raw: RawEvent) -> list[DemoEvent]:
        press = self._press
        if press is not None and not raw.injected:
            press.end = (raw.x, raw.y)
            if math.dist(press.end, (press.raw.x, press.raw.y)) > self.drag_px:
                press.moved = True
        return []

    def _mouse_up(self, raw: RawEvent) -> list[DemoEvent]:
        if f"button:{raw.button}" in self._ignored:
            self._ignored.discard(f"button:{raw.button}")
            return []
        press, self._press = self._press, None
        if press is None or press.raw.button != raw.button or raw.injected:
            return []
        start = press.raw
        end = (raw.x, raw.y)
        common = {"time": start.time, "end": raw.time, "point": (start.x, start.y),
                  "button": raw.button, "before": start.before, "after": raw.after,
                  **self._window(start)}
        if press.moved or math.dist(end, (start.x, start.y)) > self.drag_px:
            return self._flush_click() + [DemoEvent("drag", end_point=end, **common)]
        last = self._click
        if (last is not None and last.button == raw.button and last.clicks < 3
                and start.time - last.end <= self.double_click_s
                and math.dist(last.point or (0, 0), (start.x, start.y)) <= self.double_click_px):
            self._click = replace(last, clicks=last.clicks + 1, end=raw.time, after=raw.after)
            return []
        out = self._flush_click()
        self._click = DemoEvent("click", **common)
        return out

    def _wheel(self, raw: RawEvent) -> list[DemoEvent]:
        if raw.injected or (raw.dx == 0 and raw.dy == 0):
            return []
        if raw.dy:
            direction, amount = ("up" if raw.dy > 0 else "down"), abs(raw.dy)
        else:
            direction, amount = ("right" if raw.dx > 0 else "left"), abs(raw.dx)
        out = self._flush_all_but("scroll")
        run = self._scroll
        if (run is not None and run.direction == direction
                and raw.time - run.end <= self.scroll_gap_s
                and math.dist(run.point or (0, 0), (raw.x, raw.y)) <= self.scroll_px):
            self._scroll = replace(run, amount=run.amount + amount, end=raw.time, after=raw.after)
            return out
        out += self._flush_scroll()
        self._scroll = DemoEvent("scroll", raw.time, raw.time, point=(raw.x, raw.y),
                                 direction=direction, amount=amount, before=raw.before,
                                 after=raw.after, **self._window(raw))
        return out

    # -- keyboard -------------------------------------------------------------------
    def _key_down(self, raw: RawEvent) -> list[DemoEvent]:
        if raw.injected:
            self._ignored.add(f"key:{raw.key_id}")
            return []
        if raw.key in MODIFIERS:
            if raw.key not in self._held:
                self._held.append(raw.key)
            return []
        name = self._key_name(raw)
        held = set(self._held)
        printable = raw.char is not None and len(raw.char) == 1 and raw.char.isprintable()
        combo = frozenset(held | {name})
        if self.stop_keys is not None and combo == self.stop_keys:
            self.stopped = True
            return []
        if self.secret_keys is not None and combo == self.secret_keys:
            self.mark_secret = True
            if self._text is not None:
                self._text_secret = True
            return []
        if held & HOTKEY_MODIFIERS or (held and not printable):
            keys = tuple(m for m in MODIFIERS if m in held) + (name,)
            return self._flush_all_but("") + [self._keys_event("hotkey", keys, raw)]
        if printable:
            return self._typed(raw)
        if name == "backspace" and self._text is not None and self._text.text:
            self._text = replace(self._text, text=self._text.text[:-1], end=raw.time,
                                 after=raw.after)
            return []
        return self._flush_all_but("") + [self._keys_event("key", (name,), raw)]

    def _key_up(self, raw: RawEvent) -> list[DemoEvent]:
        key = f"key:{raw.key_id}"
        if key in self._ignored:
            self._ignored.discard(key)
            return []
        if raw.key in self._held:
            self._held.remove(raw.key)
        if self._text is not None and not raw.injected:
            self._text = replace(self._text, after=raw.after, end=max(self._text.end, raw.time))
        return []

    def _typed(self, raw: RawEvent) -> list[DemoEvent]:
        out = self._flush_all_but("text")
        if self._text is None:
            self._text = DemoEvent("type", raw.time, raw.time, text="", before=raw.before,
                                   after=raw.after, **self._window(raw))
            self._text_secret = self.mark_secret
            self.mark_secret = False
        self._text = replace(self._text, text=(self._text.text or "") + (raw.char or ""),
                             end=raw.time, after=raw.after)
        return out

    def _keys_event(self, kind: str, keys: tuple[str, ...], raw: RawEvent) -> DemoEvent:
        return DemoEvent(kind, raw.time, raw.time, keys=keys, before=raw.before, after=raw.after,
                         point=None, **self._window(raw))

    @staticmethod
    def _key_name(raw: RawEvent) -> str:
        if raw.key:
            return raw.key
        char = raw.char or ""
        if len(char) == 1 and ord(char) < 32:       # Ctrl+A arrives as "\x01" on some platforms
            return chr(ord(char) + 96)
        return char.lower() if char else "unknown"

    @staticmethod
    def _window(raw: RawEvent) -> dict:
        if raw.window is None:
            return {}
        return {"window": raw.window.title, "window_box": raw.window.box}
