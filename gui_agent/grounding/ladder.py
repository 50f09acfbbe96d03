"""The grounding ladder: rungs of grounders, cheapest and most certain first.

A point or box target needs no search (it gets the element under it). A description goes down the rungs
(accessibility -> template -> OCR/parse -> VLM, as they exist); the first rung whose best
candidate clears the threshold decides. If that best candidate has a rival within a small
margin at another place on the screen, the target is ambiguous and we say so rather than
take the first hit.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol, runtime_checkable

from ..errors import AmbiguousTarget, TargetNotFound
from ..geometry import Box, Point
from ..screen.observation import Observation
from .candidate import Candidate
from .description import parse_description
from .point_grounder import PointGrounder, ScreenElements
from .target_forms import edge_of, quote

log = logging.getLogger(__name__)
DEFAULT_THRESHOLD = 0.5
DEFAULT_MARGIN = 0.05
EDGE_INSET = 0         # px: 'the start of X' lies this far inside X's box, its first column of ink
                       # (a word's box is its ink: parsing/word_gaps.py), which is in the left
                       # half of even an "l": a drag from there takes that letter


@runtime_checkable
class Grounder(Protocol):
    """One rung: scored candidates for a description on one observation, best first."""

    name: str

    def candidates(self, description: str, observation: Observation) -> list[Candidate]: ...


@runtime_checkable
class InstructionAware(Protocol):
    """A rung that leaves out the task's own words on the screen (a page's instruction bar,
    the agent's task box): the ladder tells it the task being run."""

    instruction: str


def literal_reading(description: str) -> str | None:
    """The description as one quoted name, when its words were read as an ordinal or a role
    ('Copy Last Result': the last result named Copy) and it is written as a name: more than one
    word, each capitalised as labels are ('button TWO' is a role and a name), no quotes. None
    otherwise."""
    words = description.split()
    if len(words) < 2 or '"' in description or not all(w[:1].isupper() for w in words
                                                         if w[:1].isalpha()):
        return None
    query = parse_description(description)
    if query.ordinal is None and not query.role_words:
        return None
    return f'"{description}"'


def distinct_places(a: Candidate, b: Candidate) -> bool:
    """Two candidates are different elements when neither box holds the other's centre."""
    return not (a.box.contains(b.box.center) or b.box.contains(a.box.center))


def rivals(candidates: Sequence[Candidate], margin: float = DEFAULT_MARGIN) -> list[Candidate]:
    """The best candidate plus every other candidate elsewhere that scores within ``margin``."""
    ranked = sorted(candidates, key=lambda c: -c.score)
    if not ranked:
        return []
    best = ranked[0]
    close = [c for c in ranked[1:] if best.score - c.score <= margin and distinct_places(best, c)]
    return [best, *close]


class Ladder(Protocol):
    """Grounds a target (a description, a point or a box) to one candidate on a screen; raises
    TargetNotFound or AmbiguousTarget. ``last_alternatives``: the runners-up of the latest;
    ``instruction``: the task being run, whose own words on the screen are never a target."""

    last_alternatives: list[Candidate]
    instruction: str

    def resolve(self, target: str | Point | Box, observation: Observation) -> Candidate: ...


class GroundingLadder:
    def __init__(self, grounders: Sequence[Grounder], threshold: float = DEFAULT_THRESHOLD,
                 margin: float = DEFAULT_MARGIN, parser: ScreenElements | None = None) -> None:
        self.grounders = list(grounders)
        self.threshold = threshold
        self.margin = margin
        self._points = PointGrounder(parser)
        self.last_alternatives: list[Candidate] = []   # runners-up of the latest resolve (shown in the app)
        self._instruction = ""

    @property
    def instruction(self) -> str:
        """The task being run: a paragraph of the screen repeating it (a page's instruction bar,
        the agent's own task box) is never a target (:mod:`.instruction_echo`)."""
        return self._instruction

    @instruction.setter
    def instruction(self, task: str) -> None:
        self._instruction = task
        for rung in self.grounders:
            if isinstance(rung, InstructionAware):
                rung.instruction = task

    def with_rung(self, grounder: Grounder) -> GroundingLadder:
        """The same ladder with one more rung at the bottom (a pointing model, say)."""
        ladder = GroundingLadder([*self.grounders, grounder], self.threshold, self.margin,
                                 self._points.parser)
        ladder.instruction = self.instruction
        return ladder

    def resolve(self, target: str | Point | Box, observation: Observation) -> Candidate:
        """One candidate for ``target``; raises TargetNotFound or AmbiguousTarget."""
        if isinstance(target, Point | Box):
            return self._points.resolve(target, observation)
        self.last_alternatives = []
        description = target.strip()
        if not description:
            raise TargetNotFound(target, "the description is empty")
        edge = edge_of(description)
        if edge is not None:          # 'the end of "quick brown"': a point inside that end of it
            try:
                found = self.resolve(edge[1], observation)
            except TargetNotFound:
                found = self._wrapped_end(edge[0], edge[1], observation)
            b = found.box
            left = b.left + EDGE_INSET if edge[0] == "start" else b.right - EDGE_INSET - 1
            return replace(found, box=Box(left, b.top, 1, b.height), why=f"{edge[0]} of {found.why}".strip())
        literal = literal_reading(description)
        if literal is not None:
            # "Copy Last Result" is a menu item's name before it is "the last result named
            # Copy": when the screen shows the whole phrase, that is the target.
            try:
                return self._resolve_description(literal, observation)
            except (TargetNotFound, AmbiguousTarget):
                self.last_alternatives = []
        return self._resolve_description(description, observation)

    def _wrapped_end(self, edge: str, inner: str, observation: Observation) -> Candidate:
        """The first words of a quoted text that wraps (ending one line, 'the start of') or its
        last words (starting the line below, 'the end of'); TargetNotFound when no split of its
        words reads so."""
        query = parse_description(inner)
        words = query.text.split()
        if not query.quoted or len(words) < 2:
            raise TargetNotFound(inner, "it is not on the screen")
        for k in range(1, len(words)):
            head, tail = " ".join(words[:k]), " ".join(words[k:])
            try:
                first, rest = self.resolve(quote(head), observation), self.resolve(quote(tail), observation)
            except (TargetNotFound, AmbiguousTarget):
                continue
            if first.element is None or rest.element is None:
                continue
            ends = first.element.text.rstrip(" .,;:!?").lower().endswith(head.lower())
            starts = rest.element.text.lstrip().lower().startswith(tail.lower())
            below = 0 < rest.box.top - first.box.top <= 2 * first.box.height
            if ends and starts and below:
                return first if edge == "start" else rest
        raise TargetNotFound(inner, "it is not on the screen, on one line or wrapped onto the next")

    def _resolve_description(self, description: str, observation: Observation) -> Candidate:
        near_misses: list[str] = []
        for rung in self.grounders:
            found = sorted(rung.candidates(description, observation), key=lambda c: -c.score)
            if not found:
                continue
            if found[0].score < self.threshold:
                near_misses.append(f"{rung.name} best was {found[0]}")
                continue
            tied = rivals(found, self.margin)
            if len(tied) > 1 and parse_description(description).any_one:
                # 'a checkbox': any one of them is what was asked; the first in reading order
                first = min(tied, key=lambda c: (c.box.top, c.box.left))
                log.info("%r: %d alike, any one will do: %s", description, len(tied), first)
                self.last_alternatives = [c for c in tied if c is not first][:3]
                return self._with_element(first, observation)
            if len(tied) > 1:
                log.info("%r is ambiguous on rung %s: %s", description, rung.name, tied)
                raise AmbiguousTarget(description, tied)
            log.debug("%r -> %s (%s)", description, found[0], found[0].why)
            self.last_alternatives = [c for c in found[1:] if distinct_places(found[0], c)][:3]
            return self._with_element(found[0], observation)
        detail = "; ".join(near_misses) or f"no rung ({', '.join(g.name for g in self.grounders)}) found a match"
        raise TargetNotFound(description, detail)

    def _with_element(self, cand: Candidate, observation: Observation) -> Candidate:
        """A rung that answers with a bare point (a pointing model) gets the element under it,
        so that what will be touched is known like for any other target."""
        if cand.element is not None:
            return cand
        element = self._points.element_at(cand.point, observation)
        return cand if element is None else replace(cand, element=element)
