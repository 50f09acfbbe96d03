"""Questions a planner may ask of the screen, answered down the grounding ladder.

Is a text shown? Is the check box a description names ticked? What does a field show? What
texts are on the screen? In which dialog does a target lie? The offline planner asks them to skip a click that is not needed, to
nudge a spinner, or to keep its exploring out of dialogs the task did not name; it is given a
:class:`ScreenQueries` when it is built (the composition root does that), so it never reaches
into grounding behind the step pipeline's back. Where the accessibility tree has the element,
its answer comes from the tree (a field's value, a box's state), else from the pixels.
"""

from __future__ import annotations

from dataclasses import replace

from ..accessibility.roles import DIALOG_ROLES
from ..errors import AmbiguousTarget, GroundingError
from ..geometry import Box
from ..parsing.elements import ElementKind, ScreenParsing
from ..parsing.reading_order import group_rows
from ..parsing.sliders import Slider, find_sliders, number_shown, value_places
from ..screen.observation import Observation
from .description import ordinal_word
from .dialogs import Dialog, covering_dialog
from .instruction_echo import without_echo
from .ladder import Ladder
from .paragraphs import PARAGRAPH_SOURCE
from .slider_choice import described_slider
from .spatial import label_affinity

MAX_COUNTED = 50   # elements listed at most by :meth:`ScreenQueries.named`
MIN_LABEL_AFFINITY = 0.4   # the least layout likeness for a text to be a field's label


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

    def named(self, description: str, obs: Observation) -> list[str]:
        """The texts of the elements ``description`` ('search result') names on the screen, in
        reading order: those of "the 1st <description>", "the 2nd ...", while one is found (at
        most MAX_COUNTED)."""
        what = description[4:] if description.lower().startswith("the ") else description
        texts = []
        for n in range(1, MAX_COUNTED + 1):
            try:
                cand = self.ladder.resolve(f"the {ordinal_word(n)} {what}", obs)
            except AmbiguousTarget as exc:
                cand = exc.candidates[0]
            except GroundingError:
                break
            texts.append(cand.element.text if cand.element is not None else "")
        return texts

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
        if cand.element is not None and cand.element.source == PARAGRAPH_SOURCE:
            return cand.element.text        # its lines, read one by one, in order
        lines = self._lines_inside(cand.box, obs)
        if len(lines) > 1:                  # a text area: its lines, not one read of them all
            return " ".join(lines)
        direct = self.parser.read_text(obs.image, cand.box) if self.parser is not None else None
        if direct:
            return direct
        return cand.element.text if cand.element is not None and cand.element.text else None

    def _lines_inside(self, box: Box, obs: Observation) -> list[str]:
        """The text lines the screen parse read inside ``box``, in reading order."""
        if self.parser is None:
            return []
        inside = [e for e in self.parser.parse(obs.image).elements
                  if e.text and e.kind in (ElementKind.TEXT, ElementKind.LINK) and box.contains(e.box.center)]
        return [" ".join(e.text for e in row) for row in group_rows(inside, lambda e: e.box)]

    def texts(self, obs: Observation) -> list[str]:
        """The screen's text lines in reading order, the task's own words left out (a calendar's
        heading, a dialog's message). Empty without a screen parser."""
        return self._captions(obs, (ElementKind.TEXT, ElementKind.LINK))

    def text_rows(self, obs: Observation) -> list[str]:
        """The screen's texts joined row by row, top to bottom (words a line cut off at a
        list's edge is read as, "Alinam" "Aliauetultricies", are one row), the task's own words
        left out."""
        if self.parser is None:
            return []
        parse = without_echo(self.parser.parse(obs.image), getattr(self.ladder, "instruction", ""))
        texts = [e for e in parse.elements if e.text and e.kind in (ElementKind.TEXT, ElementKind.LINK)]
        return [" ".join(e.text for e in row) for row in group_rows(texts, lambda e: e.box)]

    def field_labels(self, obs: Observation) -> list[str]:
        """The labels of the screen's text fields, top to bottom: each field's own label, or
        the text that names it by its place (beside it, or above it); the task's own words
        left out."""
        if self.parser is None:
            return []
        parse = without_echo(self.parser.parse(obs.image), getattr(self.ladder, "instruction", ""))
        texts = [e for e in parse.elements if e.text and e.kind in (ElementKind.TEXT, ElementKind.LINK)]
        out: list[str] = []
        for field in sorted((e for e in parse.elements if e.kind == ElementKind.TEXT_FIELD),
                            key=lambda e: (e.box.top, e.box.left)):
            if field.label:
                out.append(field.label)
                continue
            scored = [(label_affinity(t.box, field.box, field.kind), t.text) for t in texts]
            best = max(scored, default=(0.0, ""))
            if best[0] >= MIN_LABEL_AFFINITY:
                out.append(best[1])
        return out

    def buttons(self, obs: Observation) -> list[str]:
        """The captions of the screen's buttons in reading order."""
        return self._captions(obs, (ElementKind.BUTTON,))

    def _captions(self, obs: Observation, kinds: tuple[ElementKind, ...]) -> list[str]:
        if self.parser is None:
            return []
        parse = without_echo(self.parser.parse(obs.image), getattr(self.ladder, "instruction", ""))
        return [e.text for e in parse.elements if e.text and e.kind in kinds]

    def slider(self, description: str, obs: Observation) -> Slider | None:
        """The slider ``description`` names ('the slider', 'the 2nd slider', 'the volume
        slider': slider_choice.py), with its thumb, track and the number shown beside it; None
        when there is none, or it cannot tell which."""
        if self.parser is None:
            return None
        import numpy as np

        parse = without_echo(self.parser.parse(obs.image), getattr(self.ladder, "instruction", ""))
        parser = self.parser

        def read(place: Box) -> str | None:
            box = place.clip(obs.image.width, obs.image.height)
            return parser.read_text(obs.image, box) if box.width >= 4 and box.height >= 4 else None

        found = find_sliders(parse, np.asarray(obs.image.convert("L")), read)
        slider = described_slider(found, description, [e for e in parse.elements if e.text])
        if slider is None:
            return None
        for place in value_places(slider) if slider.value is None else ():
            value = number_shown(read(place))
            if value is not None:       # a short value that text detection missed, read where it is
                return replace(slider, value=value)
        return slider

    def dialog(self, obs: Observation) -> Dialog | None:
        """A dialog on the screen (a framed message with buttons and nothing to fill in), read
        from the pixels; None when there is none or no screen parser."""
        if self.parser is None:
            return None
        parse = without_echo(self.parser.parse(obs.image), getattr(self.ladder, "instruction", ""))
        return covering_dialog(parse, obs.image)

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
