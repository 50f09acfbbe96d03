"""What the consecutive ``type`` steps before this one typed into the same place.

A dangerous command split over several ``type`` steps (``type('rm -r')``, ``type('f ~')``) is
judged as the whole it makes (``SafetyContext.typed_before``). The agent loop and replay both
keep one :class:`TypedSoFar` per run.
"""

from __future__ import annotations

from ..actions import Action, Target, Type


class TypedSoFar:
    def __init__(self) -> None:
        self.text = ""
        self.into: Target | None = None

    def before(self, action: Action) -> str:
        """The text typed just before ``action`` into the place it types into ("" otherwise)."""
        if isinstance(action, Type) and action.into == self.into:
            return self.text
        return ""

    def after(self, action: Action) -> None:
        """Record a step that was performed: typing adds up, anything else starts afresh."""
        if isinstance(action, Type):
            self.text = self.before(action) + action.text + ("\n" if action.enter else "")
            self.into = action.into
        else:
            self.text, self.into = "", None
