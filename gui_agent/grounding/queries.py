"""Questions a planner may ask of the screen, answered down the grounding ladder.

Is a text shown? Is the check box a description names ticked? What does a field show? In which
dialog does a target lie? The offline planner asks them to skip a click that is not needed, to
nudge a spinner, or to keep its exploring out of dialogs the task did not name; it is given a
:class:`ScreenQueries` when it is built (the composition root does that), so it never reaches
into grounding behind the step pipeline's back. Where the accessibility tree has the element,
its answer comes from the tree (a field's value, a box's state), else from the pixels.
"""

from __future__ import annotations

from ..accessibility.roles import DIALOG_ROLES
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
        info = cand.element.accessible if cand.element is not None else None
        if info is not None and info.handle is not None:
            value = info.handle.value()
            if value is not None:
                return value
        # A field's value is read again on its own: the screen parse reads a short value next
        # to the caret poorly ("0|" as "P"); the direct read paints the caret out first.
        direct = self.parser.read_text(obs.image, cand.box) if self.parser is not None else None
        if direct:
            return direct
        return cand.element.text if cand.element is not None and cand.element.text else None

    def dialog_of(self, description: str, obs: Observation) -> str | None:
        """The title of the dialog the target a description names lies in ("" for an untitled
        one), or None when it lies in no dialog the accessibility tree knows (or is not found)."""
        tree = obs.accessibility.read() if obs.accessibility is not None else None
        if tree is None or not tree.windows:
            return None
        try:
            cand = self.ladder.resolve(description, obs)
        except GroundingError:
            return None
        holding = [w for w in tree.windows if w.box.contains(cand.point)]
        if not holding:
            return None
        top = holding[-1]           # the windows are listed bottom to top
        return top.title if top.role in DIALOG_ROLES else None
