"""How much what the accessibility tree says about an element weighs on a match.

The tree knows more than the pixels: which control is disabled, which window has the focus,
which text is a static label, the exact names of controls, the titles of windows. The grounder
(:mod:`.ocr_grounder`) weighs its matches by these:

- a disabled control, one in a window without the focus while another has it (the dialog's
  "Save" before the main window's), and a static text where no text was asked for (a
  calculator's "3" key before the "3" its display shows) are a little less likely meant;
- a few words of a control's name are weak evidence, since the tree's names are exact ("Save"
  is no part of a button named "report-save-file"); its first words less so ("Copy" may well
  be "Copy Display Value");
- what only the pixels see inside a window whose controls the tree names is more likely
  content or decoration than a control;
- while a dialog has the focus, what lies outside it is seldom meant (a modal one lets
  nothing outside it take input; its menus and lists aside): a word of the document behind a
  Save dialog is no "Save" button;
- 'in the Save As dialog' is inside the box of the tree's window of that title.
"""

from __future__ import annotations

from ..accessibility.roles import DIALOG_ROLES
from ..geometry import Box
from ..parsing.elements import Element, ElementKind, ScreenParse
from .description import TargetQuery
from .matching import match_text

K = ElementKind
DISABLED_FACTOR = 0.92
INACTIVE_WINDOW_FACTOR = 0.9
STATIC_TEXT_FACTOR = 0.92
TREE_PARTIAL_FACTOR = 0.6
TREE_PREFIX_FACTOR = 0.85
UNCLAIMED_FACTOR = 0.85
OUTSIDE_DIALOG_FACTOR = 0.55   # an exact, unique match outside still clears the ladder's 0.5
_POPUPS = (K.MENU, K.MENU_ITEM)
TITLE_MATCH = 0.8           # a window title this close to a container's name is that window


def tree_factor(element: Element, box: Box, parse: ScreenParse, query: TargetQuery,
                via_label: bool = False) -> tuple[float, str]:
    """(factor, note) for a candidate: what the tree says makes it less likely the one meant."""
    factor, notes = 1.0, []
    dialogs = [w for w in parse.windows if w.active and (w.modal or w.role in DIALOG_ROLES)]
    outside = bool(dialogs) and element.kind not in _POPUPS and not any(
        w.box.contains(box.center) for w in dialogs)
    if outside:
        factor *= OUTSIDE_DIALOG_FACTOR
        notes.append(f"outside the dialog {dialogs[-1].title!r} that has the focus")
    info = element.accessible
    if info is None:
        if any(w.box.contains(box.center) for w in parse.windows):
            factor *= UNCLAIMED_FACTOR
            notes.append("only the pixels see it in a window of the tree")
        return factor, "".join(f"; {n}" for n in notes)
    if not info.enabled:
        factor *= DISABLED_FACTOR
        notes.append("disabled")
    if not outside and not info.window_active and any(w.active for w in parse.windows):
        factor *= INACTIVE_WINDOW_FACTOR
        notes.append(f"in the inactive window {info.window!r}")
    if element.kind == K.TEXT and not query.kinds and not via_label:
        factor *= STATIC_TEXT_FACTOR
        notes.append("a static text")
    return factor, "".join(f"; {n}" for n in notes)


def partial_name_factor(element: Element, text: str, start: int) -> tuple[float, str]:
    """(factor, note) for a match on a part of ``text``, an element's text from ``start``."""
    if element.accessible is None or element.kind in (K.TEXT, K.TEXT_FIELD):
        return 1.0, ""       # pixels join words of several controls; labels and contents are prose
    if not text[:start].strip():
        return TREE_PREFIX_FACTOR, "; the start of the control's name in the tree"
    return TREE_PARTIAL_FACTOR, "; a part of the control's name in the tree"


def titled_windows(title: str, parse: ScreenParse) -> list[Box]:
    """The boxes of the tree's windows whose title names ``title`` (whole, or a part such as
    "Save As" of "Save As - Mousepad")."""
    out = []
    for w in parse.windows:
        m = match_text(title, w.title)
        if m is not None and m.score >= TITLE_MATCH:
            out.append(w.box)
    return out
