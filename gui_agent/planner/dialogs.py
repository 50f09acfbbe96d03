"""Unannounced dialogs, and a form's committing button under another name.

A modal the task does not mention may cover what a step needs.

When a step fails and such a dialog is on the screen, the offline worker dismisses it only by
a harmless way out: a button reading one of the language file's exits (``targets.dialog_exits``:
Cancel, Close, ...), or its only button when that is an acknowledgement (``OK``, ``Got it``).
A dialog offering anything else (Yes/No, Delete/Keep) is left alone and the step's failure
stands. The dismissal is a step of its own, logged like any other, and the failed step is
then tried again.
"""

from __future__ import annotations

import re
from typing import Protocol

from ..actions import Action, Click
from . import vocabulary as vocab

MAX_DISMISSALS = 2
_IN_DIALOG = " button in the dialog"


class DialogView(Protocol):
    """What the worker needs of a dialog on the screen (grounding.dialogs.Dialog)."""

    message: tuple[str, ...]
    buttons: tuple[str, ...]


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.lower())


def announced(dialog: DialogView, task: str) -> bool:
    """Whether the task mentions the dialog: one of its buttons or its message."""
    said = f" {' '.join(_words(task))} "
    return any(f" {' '.join(_words(text))} " in said for text in (*dialog.buttons, *dialog.message)
               if _words(text))


def way_out(dialog: DialogView, task: str) -> str | None:
    """The caption of the button that dismisses ``dialog`` harmlessly, or None (no such button,
    or the task mentions the dialog: then it is part of the task, not in its way)."""
    if announced(dialog, task):
        return None
    captions = [b.strip() for b in dialog.buttons if b.strip()]
    exits = [c for c in captions if " ".join(_words(c)) in vocab.DIALOG_EXITS]
    if exits:
        return exits[0]
    if len(captions) == 1 and " ".join(_words(captions[0])) in vocab.DIALOG_ACKNOWLEDGEMENTS:
        return captions[0]
    return None


def dismissal(caption: str) -> Click:
    return Click(f'the "{caption}"{_IN_DIALOG}')


def is_dismissal(action: Action) -> bool:
    return isinstance(action, Click) and isinstance(action.target, str) and \
        action.target.startswith('the "') and action.target.endswith(_IN_DIALOG)


def committing(target: str, captions: list[str]) -> str | None:
    """When a click on a form's committing button by one name ('login') found nothing: the
    caption of the one button that commits under another name ("OK"); None when there is no
    such button or more than one (the language file's ``targets.commit_words``)."""
    if " ".join(_words(target)) not in vocab.COMMIT_WORDS:
        return None
    found = {c.strip() for c in captions if " ".join(_words(c)) in vocab.COMMIT_WORDS}
    return found.pop() if len(found) == 1 else None
