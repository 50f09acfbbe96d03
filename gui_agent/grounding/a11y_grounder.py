"""The accessibility rung, the ladder's first: a description matched against the tree alone.

When the observation carries an accessibility tree and the tree names the target outright
(a whole name, a label, a role and an ordinal, a relation between named elements), the step
needs no OCR at all: reading the tree of a window costs milliseconds, a first OCR read of it
hundreds. The same scoring as the OCR rung (:func:`~.ocr_grounder.candidates_on`) decides;
only a confident best is answered here (a partial or fuzzy name goes on to the next rung,
where the tree and the pixels are one list), and a tie is the ladder's to report. The task's
own words, where the tree has them (a web page's instruction text), are no target here either.
"""

from __future__ import annotations

from ..screen.observation import Observation
from .candidate import Candidate
from .description import parse_description
from .instruction_echo import without_echo
from .ocr_grounder import candidates_on

CONFIDENT = 0.88     # a weaker best match is left to the next rung (the fused list)


class AccessibilityGrounder:
    """Grounds descriptions on the observation's accessibility tree (nothing without one)."""

    name = "a11y"

    def __init__(self) -> None:
        self.instruction = ""    # the task being run: its echo in the tree is no target

    def candidates(self, description: str, observation: Observation) -> list[Candidate]:
        view = observation.accessibility
        tree = view.read() if view is not None else None
        if tree is None or not tree.elements:
            return []
        if self.instruction:
            tree = without_echo(tree, self.instruction, description)
        found = candidates_on(parse_description(description), tree, observation.image, self.name)
        if not found or found[0].score < CONFIDENT:
            return []
        return found
