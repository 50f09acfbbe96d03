"""Questions a planner may ask of the screen, answered down the grounding ladder.

Is a text shown? Is the check box a description names ticked? What does a field show? The
offline planner asks them to skip a click that is not needed or to nudge a spinner; it is
given a :class:`ScreenQueries` when it is built (the composition root does that), so it never
reaches into grounding behind the step pipeline's back.
"""

from __future__ import annotations

from ..errors import AmbiguousTarget, GroundingError
from ..parsing.elements import ScreenParsing
from ..screen.observation import Observation
from .ladder import Ladder


class ScreenQueries:
    def __init__(self, ladder: Ladder, parser: ScreenParsing | None = None) -> None:
        self.ladder = ladder
        self.parser = parser

    def text_visible(self, text: str, obs: Observation) -> bool:
        """Whether ``text`` is on the screen (shown more than once still counts)."""
        try:
            self.ladder.resolve(f'"{text}"', obs)
        except AmbiguousTarget:
            return True
        except GroundingError:
            return False
        return True

    def checked_state(self, description: str, obs: Observation) -> bool | None:
        """Whether the check box or radio button a description names is checked (None: cannot tell)."""
        try:
            cand = self.ladder.resolve(description, obs)
        except GroundingError:
            return None
        return cand.element.checked if cand.element is not None else None

    def shown_text(self, description: str, obs: Observation) -> str | None:
        """The text an element shows (a field's value), or None when it cannot be found."""
        try:
            cand = self.ladder.resolve(description, obs)
        except GroundingError:
            return None
        # A field's value is read again on its own: the screen parse reads a short value next
        # to the caret poorly ("0|" as "P"); the direct read paints the caret out first.
        direct = self.parser.read_text(obs.image, cand.box) if self.parser is not None else None
        if direct:
            return direct
        return cand.element.text if cand.element is not None and cand.element.text else None
