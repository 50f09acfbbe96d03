"""Answering the engine's questions in the UI thread: a risky action to confirm (with its
screenshot, three choices) or a question for the person. The dialogs are reached through
:mod:`ui.dialogs` so tests script the answers."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer

from . import dialogs
from .confirm_dialog import ALWAYS, ONCE, ConfirmRequest

CONFIRM_SETTLE_MS = 150     # lets an answered dialog vanish before the agent acts on the screen


def answer_prompt(window: Any, prompt: Any) -> None:
    """Ask the person and answer ``prompt`` (an engine_worker.Prompt); events go to the log."""
    hidden = bool(getattr(window, "_hidden_for_run", False))
    parent = None if hidden else window
    if prompt.kind == "confirm":
        request = prompt.details or ConfirmRequest(prompt.text, prompt.target, prompt.reason)
        choice = dialogs.confirm_action(parent, request)
        allowed = choice in (ONCE, ALWAYS)
        window.events.emit("confirm", action=prompt.text, allowed=allowed, choice=choice,
                           word=request.word)
        if allowed and hidden:
            QTimer.singleShot(CONFIRM_SETTLE_MS, lambda: prompt.answer(choice))
        else:
            prompt.answer(choice)
        return
    reply = dialogs.ask_text(parent, prompt.text)
    window.events.emit("ask_user", question=prompt.text, answered=reply is not None)
    prompt.answer(reply)
