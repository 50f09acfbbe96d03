"""Did a step have its effect? The check that keeps a run from reporting a success it did not see.

After a step has settled, the screen must show what the action was for:

- **typing** into a field: where the accessibility tree has the field, its accessible value
  must hold the text (read back, not guessed); else the field's content changed (its pixels, a
  caret aside: no OCR needed), or, for a fill, the field reads the text it already held; when it
  did not change, the text is looked for elsewhere to say where it went. A secret is never read
  back. Typing with no target: the screen changed, or the text is on it;
- **a click, a drag, a key press**: something on the screen changed (a caret appearing in the
  clicked field counts); a copy shortcut has no visible effect, so the clipboard must hold text
  instead. Such an action may rightly change nothing (a click on the tab already open): the run
  goes on, but it never ends on a step whose effect was not seen;
- **scrolling, moving the mouse, waiting** have nothing to see for certain (the end of a list,
  a hover without a tooltip): they are not judged, and the step says so.

The caller performs a step whose effect was not seen once more; then a *required* effect
(typing) fails the step with what was expected and what was seen (:class:`Effect`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image

from ..actions import Action, Click, Drag, Hotkey, OpenApp, Resize, Type
from ..geometry import Box
from ..grounding.matching import ocr_fold
from ..parsing.elements import Element, ElementKind, ScreenParse, ScreenParsing
from .settle import changed_mask, changed_region

# A changed area thinner or flatter than this is a caret blinking, not the effect of a step.
MIN_CHANGE_PX = 4
# A field's border (and its focus ring) lies within this many pixels of its box.
BORDER_PX = 3
# A long typed text may show only in part (a field scrolls): this many folded characters of its
# start or its end, read in the field, are enough.
PARTIAL_CHARS = 10
# Typing changes its field alone (and its focus ring): a change reaching further than this many
# pixels around it is looked at for a dialog that popped up over the field.
DIALOG_MARGIN = 8
_FIELDS = (ElementKind.TEXT_FIELD,)
COPY_KEYS = (frozenset({"ctrl", "c"}), frozenset({"ctrl", "insert"}), frozenset({"command", "c"}))


TextReader = ScreenParsing   # what the check needs: elements, and a direct read of one box


@dataclass(frozen=True)
class Effect:
    """The verdict on one step's effect: ``seen`` it or not, with what was expected and seen."""

    seen: bool
    expected: str            # what had to be seen
    observed: str = ""       # what was seen (what confirmed it, or what was there instead)
    judged: bool = True      # False: the action has no effect that can be seen for certain
    # True: without its effect the step failed (typed text that did not land). False: a change
    # was expected, but the action may rightly change nothing (a click on the tab already
    # open), so a run may go on after it but never end on it.
    required: bool = True

    def describe(self) -> str:
        if not self.judged:
            return f"not checked: {self.expected}"
        if self.seen:
            return f"seen: {self.observed}" if self.observed else f"seen: {self.expected}"
        return f"expected {self.expected}, but {self.observed or 'nothing changed'}"


NOT_JUDGED = Effect(True, "the action has no effect that can be seen for certain", judged=False)


def visible_change(before: Image.Image, after: Image.Image, region: Box | None = None) -> Box | None:
    """The area that changed (inside ``region``), when it is more than a caret; else None."""
    if before.size != after.size:
        return Box(0, 0, *after.size)
    box = (region or Box(0, 0, *after.size)).clip(*after.size)
    if box.width <= 0 or box.height <= 0:
        return None
    diff = changed_mask(before.crop(box.corners), after.crop(box.corners))
    if not diff.any():
        return None
    # Each thin vertical stroke (a caret, here or anywhere) is dropped; what is left must be a
    # real change of at least MIN_CHANGE_PX in both directions.
    cols = diff.any(axis=0)
    wide = np.zeros_like(cols)
    run_start = None
    for x, on in enumerate([*cols, False]):
        if on and run_start is None:
            run_start = x
        elif not on and run_start is not None:
            if x - run_start >= MIN_CHANGE_PX:
                wide[run_start:x] = True
            run_start = None
    diff &= wide[None, :]
    if not diff.any():
        return None
    rows = np.flatnonzero(diff.any(axis=1))
    xs = np.flatnonzero(diff.any(axis=0))
    if rows[-1] - rows[0] + 1 < MIN_CHANGE_PX:
        return None
    return Box(box.left + int(xs[0]), box.top + int(rows[0]), int(xs[-1] - xs[0] + 1),
               int(rows[-1] - rows[0] + 1))


def _inner(box: Box) -> Box:
    if box.width <= 2 * BORDER_PX + 2 or box.height <= 2 * BORDER_PX + 2:
        return box
    return Box(box.left + BORDER_PX, box.top + BORDER_PX, box.width - 2 * BORDER_PX,
               box.height - 2 * BORDER_PX)


def field_region(element: Element | None, box: Box, size: tuple[int, int]) -> Box:
    """Where typed text shows for a target: the field itself, or beside and below a label."""
    if element is None or element.kind in (ElementKind.TEXT_FIELD, ElementKind.COMBO):
        return box.clip(*size)
    grown = Box(box.left - 8, box.top - 4, box.width + max(240, 2 * box.width), box.height + 8 + 2 * box.height)
    return grown.clip(*size)


def _texts_in(parse: ScreenParse, region: Box) -> list[str]:
    return [f"{e.text} {e.label}".strip() for e in parse.elements
            if e.text and region.contains(e.box.center)]


def holds_text(typed: str, read: str) -> bool:
    """Whether an OCR ``read`` holds the typed text: folded (case, spaces, look-alike glyphs);
    a long text may show only its start or its end (the field scrolled or wrapped)."""
    want, got = ocr_fold(typed), ocr_fold(read)
    if not want:
        return True
    if want in got:
        return True
    return len(want) > PARTIAL_CHARS + 2 and (want[-PARTIAL_CHARS:] in got or want[:PARTIAL_CHARS] in got)


def _where(parse: ScreenParse, typed: str, region: Box) -> str:
    for e in parse.elements:
        if e.text and not region.contains(e.box.center) and holds_text(typed, e.text):
            return f"; it shows at ({e.box.center.x}, {e.box.center.y}) instead, in {e}"
    return ""


def typed_effect(typed: str, *, secret: bool, target: Element | None, target_box: Box | None,
                 before: Image.Image, after: Image.Image, reader: TextReader | None,
                 cleared: bool = False) -> Effect:
    """Whether typing ``typed`` shows: in the target field, or anywhere without a target."""
    shown = "the typed text" if secret else repr(_short(typed))
    read_back = None if secret else _read_back(typed, target, shown, cleared)
    if read_back is not None and not read_back.seen and typed.strip() and reader is not None \
            and target_box is not None and target_box.height >= 8:
        # a tree that lags its pixels (a browser's spin box reports its number on blur): the
        # text read in the field's pixels is seen too
        shows = reader.read_text(after, target_box)
        if shows and holds_text(typed, shows) and (not cleared or ocr_fold(shows).startswith(ocr_fold(typed))):
            return Effect(True, read_back.expected, f"{_short(shows)!r} read in the field's pixels "
                                                    f"({read_back.observed})")
    if read_back is not None:
        return read_back
    if not typed.strip():
        return _cleared_effect(target_box, before, after, reader, cleared)
    if target_box is None:
        change = visible_change(before, after)
        if change is not None:
            return Effect(True, f"{shown} to appear", f"the screen changed at {change.corners}")
        if not secret and reader is not None and typed.strip():
            now = " ".join(e.text for e in reader.parse(after).elements if e.text)
            if holds_text(typed, now):
                return Effect(True, f"{shown} to appear", "the text is on the screen")
        return Effect(False, f"{shown} to appear on the screen", "nothing changed")
    region = field_region(target, target_box, after.size)
    inside = visible_change(before, after, _inner(region))
    if inside is not None:
        if reader is not None and _all_of(inside, _inner(region)) and _under_a_dialog(reader, before, after, region):
            # a dialog that popped up over the field changed its pixels, not the typing: where
            # the keys went is not seen (they may have gone to the dialog)
            return Effect(False, f"{shown} in the field at {region.corners}", "a dialog now covers the field")
        return Effect(True, f"{shown} in the field", "the field's content changed")
    if secret or reader is None:
        return Effect(False, f"{shown} in the field at {region.corners}", "the field did not change")
    # Nothing changed in the field: only a fill that wrote what the field already held is fine.
    after_parse = reader.parse(after)
    read = " ".join(_texts_in(after_parse, region))
    if not holds_text(typed, read):
        direct = reader.read_text(after, target_box) if target_box.height >= 8 else None
        read = f"{read} {direct or ''}".strip()
    if cleared and holds_text(typed, read):
        return Effect(True, f"{shown} in the field", f"{_short(read)!r} read in the field")
    seen = f"the field shows {_short(read)!r}" if read else "the field stayed empty"
    return Effect(False, f"{shown} in the field at {region.corners}",
                  seen + _where(after_parse, typed, region))


def _all_of(change: Box, box: Box) -> bool:
    """Whether ``change`` spans nearly all of ``box``, as something laid over it does (typed
    text changes the line it is written on, not the field's padding above and below it)."""
    return change.width >= 0.9 * box.width and change.height >= 0.9 * box.height


def _under_a_dialog(reader: ScreenParsing, before: Image.Image, after: Image.Image, region: Box) -> bool:
    """Whether a dialog now covers the field's middle. Only a change that reaches beyond the
    field is looked at (typing changes the field alone): the screen is parsed for it then only."""
    from ..grounding.dialogs import covering_dialog

    changed = visible_change(before, after)
    room = region.expand(DIALOG_MARGIN)
    if changed is None or (room.left <= changed.left and room.top <= changed.top
                           and changed.right <= room.right and changed.bottom <= room.bottom):
        return False
    dialog = covering_dialog(reader.parse(after), after)
    return dialog is not None and dialog.box.contains(region.center)


def _read_back(typed: str, target: Element | None, shown: str, cleared: bool) -> Effect | None:
    """Typed text read back from the field's accessible value, where the accessibility tree has
    the field (None: it has not, or the field shows no text to the tree). The text must be in
    the value, and the value must have changed (unless the field was filled anew)."""
    info = target.accessible if target is not None else None
    if info is None or info.handle is None:
        return None
    value = info.handle.value()
    if value is None:
        return None
    if not typed.strip():
        if not cleared:
            return None
        if value.strip():
            return Effect(False, "the field emptied", f"its accessible value is {_short(value)!r}")
        return Effect(True, "the field emptied", "its accessible value is empty")
    expected = f"{shown} in the field"
    want, held = " ".join(typed.split()), " ".join(value.split())
    if want not in held:   # the tree's text is exact
        return Effect(False, expected, f"the field's accessible value is {_short(value)!r}")
    if cleared and not held.startswith(want):
        # A fill whose clearing was lost: the old text stayed before the new (a completion
        # may follow what was typed, never precede it).
        return Effect(False, f"{shown} alone in the field",
                      f"the field's accessible value is {_short(value)!r}: its old text stayed")
    if value == info.value and not cleared:
        return Effect(False, expected, f"the field's accessible value stayed {_short(value)!r}")
    return Effect(True, expected, f"read back from the field's accessible value {_short(value)!r}")


def _cleared_effect(target_box: Box | None, before: Image.Image, after: Image.Image,
                    reader: TextReader | None, cleared: bool) -> Effect:
    """Typing nothing: only clearing a field has an effect, the field then empty."""
    if not cleared or target_box is None:
        return NOT_JUDGED
    if visible_change(before, after, _inner(target_box)) is not None:
        return Effect(True, "the field emptied", "the field's content changed")
    left = reader.read_text(after, target_box) if reader is not None else None
    if not left:
        return Effect(True, "the field emptied", "the field is empty")
    return Effect(False, "the field emptied", f"it still shows {_short(left)!r}")


def change_effect(what: str, before: Image.Image, after: Image.Image, *, required: bool = False) -> Effect:
    """Whether anything on the screen changed after ``what`` (a click, a key press, a drag): any
    pixel, a caret appearing included. ``required`` (an Enter that submits what was typed): a
    caret blinking is no change, and without a change the step fails."""
    change = visible_change(before, after) if required else changed_region(before, after)
    expected = f"the screen to change after {what}"
    if change is None:
        return Effect(False, expected, "the screen stayed the same", required=required)
    return Effect(True, expected, f"the screen changed at {change.corners}", required=required)


def focus_effect(what: str, box: Box, before: Image.Image, after: Image.Image) -> Effect:
    """A click into a text field: the field takes the focus (a caret, a focus ring: any change
    in it, however thin), or it had it already (a caret shows in it), or the screen changed."""
    expected = f"the field to take the focus after {what}"
    if not frames_equal_in(before, after, box.expand(BORDER_PX)):
        return Effect(True, expected, "the field changed", required=False)
    if has_caret(after, box) or has_caret(before, box):
        return Effect(True, expected, "a caret shows in the field", required=False)
    return change_effect(what, before, after)


def frames_equal_in(before: Image.Image, after: Image.Image, region: Box) -> bool:
    box = region.clip(*after.size)
    if before.size != after.size:
        return False
    if box.width <= 0 or box.height <= 0:
        return True
    return not changed_mask(before.crop(box.corners), after.crop(box.corners)).any()


def has_caret(image: Image.Image, box: Box) -> bool:
    """Whether a text caret shows in ``box``: a thin upright stroke (1-2 px) as tall as a line of
    text, standing alone (next to it, at its height, nothing is drawn). A tall thin letter
    ("l", "I") passes too: the check is lenient on purpose."""
    inner = _inner(box).clip(*image.size)
    if inner.width < 4 or inner.height < 6:
        return False
    rgb = np.asarray(image.convert("RGB").crop(inner.corners), dtype=np.int16)
    background = np.median(rgb.reshape(-1, 3), axis=0)
    ink = np.abs(rgb - background).max(axis=2) > 60
    # In a one-line field a caret spans most of its inside; in a text area, a line's height.
    tall_min = max(8, round(0.55 * inner.height)) if inner.height <= 48 else 10
    for x in range(inner.width):
        top, run = _longest_run(ink[:, x])
        if not tall_min <= run <= 60:
            continue
        width = 1 + int(x + 1 < inner.width and _longest_run(ink[:, x + 1])[1] >= run - 1)
        rows = slice(top, top + run)
        left = ink[rows, max(0, x - 2):x].sum()
        right = ink[rows, x + width:x + width + 2].sum()
        if left <= run // 4 and right <= run // 4:
            return True
    return False


def _longest_run(col: np.ndarray) -> tuple[int, int]:
    """(start, length) of the longest run of True in ``col``."""
    best = best_start = cur = start = 0
    for i, v in enumerate(col):
        if v:
            if cur == 0:
                start = i
            cur += 1
            if cur > best:
                best, best_start = cur, start
        else:
            cur = 0
    return best_start, best


def is_copy(keys: Sequence[str]) -> bool:
    return frozenset(keys) in COPY_KEYS


def action_effect(action: Action, before: Image.Image, after: Image.Image,
                  clipboard: Callable[[], str | None] | None = None, *,
                  target: Element | None = None, target_box: Box | None = None) -> Effect:
    """The expected change of an action other than typing (see the module's rules)."""
    if isinstance(action, Click):
        if action.button == "middle":
            return NOT_JUDGED
        what = f"the {_click_word(action)}"
        if target is not None and target_box is not None and target.kind in _FIELDS:
            return focus_effect(what, target_box, before, after)
        return change_effect(what, before, after)
    if isinstance(action, Drag):
        return change_effect("the drag", before, after)
    if isinstance(action, Resize):
        return change_effect("the resize", before, after)
    if isinstance(action, OpenApp):
        return change_effect(f"opening {action.app!r}", before, after)
    if isinstance(action, Hotkey):
        name = "+".join(action.keys)
        if is_copy(action.keys):
            if clipboard is None:
                return Effect(True, f"{name} copies: its effect is not on the screen", judged=False)
            held = clipboard()
            if held:
                return Effect(True, "text on the clipboard", f"the clipboard holds {len(held)} characters",
                              required=False)
            return Effect(False, f"text on the clipboard after {name}", "the clipboard is empty",
                          required=False)
        return change_effect(f"pressing {name}", before, after)
    if isinstance(action, Type):
        raise TypeError("typing is judged by typed_effect")
    return NOT_JUDGED


def _click_word(action: Click) -> str:
    kind = {1: "click", 2: "double-click", 3: "triple-click"}[action.clicks]
    return f"right-{kind}" if action.button == "right" else kind


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."
