"""Per-target resolution for a replay: the rungs from the recorded image down to the VLM.

template (near the learned box, moved by the running shift) -> template anywhere (multi-scale)
-> the OCR ladder (target description, then the recorded text quoted) -> landmarks geometry
-> the ladder's VLM rung. Every rung either returns one candidate or says why not; ambiguity
is never resolved by taking the first match, and a recorded coordinate is never acted on.
"""

from __future__ import annotations

import logging
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from PIL import Image

from ..errors import AmbiguousTarget, GroundingError, TargetNotFound
from ..geometry import Box, Point
from ..grounding.candidate import Candidate
from ..grounding.template import AMBIGUITY_MARGIN, FLAT_MARGIN
from ..memory.anchors import ANCHOR_MARGIN
from ..parsing.elements import Element
from ..screen.observation import Observation, frame_digest
from . import landmarks as landmark_rung
from .conditions import reads_as, shifted

log = logging.getLogger(__name__)

MAIN_FIELDS = ("target", "into", "source", "at")   # the field a step's anchors belong to
TEMPLATE_RUNGS = ("template", "template-anywhere")
LOWER_RUNGS = ("ocr", "landmarks", "vlm")
LANDMARK_TEMPLATE_BAR = 0.6   # one landmark plus a template score this high is enough
NEAR_SURE = 0.97              # a near template match scoring less is cross-checked anywhere
DETAILLESS_INK, DETAILLESS_SHARE = 40, 0.01   # a crop's inside with under 1 % of ink shows nothing
# A place scoring this close to a sure near match may be its twin: the widest margin the search
# everywhere allows between twins (a flat crop's) and what a refined scale may add.
TWIN_SLACK = FLAT_MARGIN + 0.05
TWIN_BLUR = 1.0               # Gaussian sigma of that quick whole-screen look (the matcher's own)


def main_field(targets: dict[str, object]) -> str | None:
    return next((name for name in MAIN_FIELDS if name in targets), None)


class Drift:
    """How far targets moved (and grew) since they were learned: medians over this replay."""

    def __init__(self) -> None:
        self._dx: list[int] = []
        self._dy: list[int] = []
        self._scale: list[float] = []

    def add(self, learned: tuple[int, int, int, int], found: Box) -> None:
        old = Box.from_corners(*learned)
        self._dx.append(found.center.x - old.center.x)
        self._dy.append(found.center.y - old.center.y)
        if old.width > 4 and found.width > 4:
            self._scale.append(found.width / old.width)

    @property
    def shift(self) -> tuple[int, int]:
        if not self._dx:
            return (0, 0)
        return (round(statistics.median(self._dx)), round(statistics.median(self._dy)))

    @property
    def scale(self) -> float:
        return statistics.median(self._scale) if self._scale else 1.0


@dataclass(frozen=True)
class Anchors:
    """What a replay knows to find one target field again."""

    descriptions: tuple[str, ...] = ()        # for the OCR ladder, in order
    crop: Image.Image | None = None
    box: tuple[int, int, int, int] | None = None
    ocr_text: str | None = None
    landmarks: tuple[tuple[str, int, int], ...] = ()
    fixed: Point | Box | None = None          # a coordinate written in the action (never used)

    @property
    def size(self) -> tuple[int, int] | None:
        if self.box is not None:
            box = Box.from_corners(*self.box)
            return box.width, box.height
        if self.crop is not None:
            return (max(1, self.crop.width - 2 * ANCHOR_MARGIN), max(1, self.crop.height - 2 * ANCHOR_MARGIN))
        return None

    @property
    def expected(self) -> str:
        """What the target is, in words, for a failure message."""
        parts = [f'"{self.ocr_text}"'] if self.ocr_text else []
        parts += [d for d in self.descriptions if d.strip('"') != self.ocr_text][:1]
        if not parts and self.fixed is not None:
            parts.append(f"the point {self.fixed}")
        return " / ".join(parts) or "the recorded element"


@dataclass(frozen=True)
class Found:
    candidate: Candidate
    rung: str


@dataclass
class Miss:
    """Every rung failed: what each said, and the candidates it saw (for the failure image)."""

    notes: list[str] = field(default_factory=list)
    candidates: list[Any] = field(default_factory=list)
    ambiguous: bool = False

    def add(self, rung: str, exc: GroundingError | str) -> None:
        if isinstance(exc, AmbiguousTarget):
            self.ambiguous = True
            self.candidates.extend(exc.candidates)
            places = "; ".join(str(c) for c in exc.candidates[:4])
            self.notes.append(f"{rung}: {exc.description!r} matches {len(exc.candidates)} places equally well "
                              f"({places})")
        else:
            self.notes.append(f"{rung}: {exc}")


class ParseCounter:
    """Counts distinct screen images given to the OCR ladder or the parser (each costs one parse)."""

    def __init__(self) -> None:
        self.digests: set[str] = set()
        self._last: Image.Image | None = None

    def note(self, image: Image.Image) -> None:
        if image is not self._last:
            self.digests.add(frame_digest(image))
            self._last = image

    @property
    def count(self) -> int:
        return len(self.digests)


def split_ladder(ladder: Any) -> tuple[Any | None, Any | None]:
    """(the ladder without its VLM rung, a ladder of only the VLM rung or None)."""
    grounders = getattr(ladder, "grounders", None)
    if grounders is None:
        return ladder, None
    cls = type(ladder)
    rest = [g for g in grounders if getattr(g, "name", "") != "vlm"]
    vlm = [g for g in grounders if getattr(g, "name", "") == "vlm"]
    make = lambda rungs: cls(rungs, ladder.threshold, ladder.margin) if rungs else None  # noqa: E731
    return make(rest), make(vlm)


class Rungs:
    """The rungs of one replay, with the cost counters the benchmark reads."""

    def __init__(self, ladder: Any, parser: Any, matcher: Any, low_matcher: Any | None = None) -> None:
        self.ocr_ladder, self.vlm_ladder = split_ladder(ladder)
        self.parser = parser
        self.matcher = matcher
        self.low_matcher = low_matcher
        self.parses = ParseCounter()
        self.calls: Counter[str] = Counter()

    # -- single rungs ------------------------------------------------------------------------
    def template(self, obs: Observation, anchors: Anchors, shift: tuple[int, int], what: str) -> Found:
        """The template rungs (one matcher call: near the expected box, else anywhere, multi-scale)."""
        if anchors.crop is None:
            raise GroundingError("no recorded image of the target")
        expected = Box.from_corners(*anchors.box) if anchors.box else None
        self.calls["template_searches"] += 1
        cand = self.matcher.find(obs.image, anchors.crop, expected=expected, shift=shift, description=what)
        if cand.source == "template":
            cand = self._cross_check(obs, anchors, cand, what)
        if (cand.source == "template-anywhere" and _detailless(anchors.crop) and anchors.landmarks
                and hasattr(self.parser, "read_text") and not self._landmarks_read(obs, anchors, cand)):
            raise TargetNotFound(what, "the recorded image has no detail (an empty field, say) and the texts "
                                 f"around the place it matches best ({cand.box.corners}, score {cand.score:.2f}) "
                                 "are not the recorded ones; its label decides")
        rung = cand.source if cand.source in TEMPLATE_RUNGS else "template" if expected else "template-anywhere"
        return Found(replace(cand, box=_element_box(cand.box, anchors), source=rung), rung)

    def _cross_check(self, obs: Observation, anchors: Anchors, near: Candidate, what: str) -> Candidate:
        """A near match must also be the best place on the whole screen, or its twins' right one.

        An empty field's image matches a neighbouring field a few pixels off almost as well as
        its own; looking everywhere shows the exact twin (or that the image is ambiguous). Twins
        (three identical "Edit" buttons, two empty fields) are told apart by the texts recorded
        around the target: a pixel-exact near match whose landmarks read as recorded is the one;
        otherwise the rungs below (the landmarks rung) decide, or the step stops.
        """
        if near.score >= NEAR_SURE:
            # Only a twin can overrule a sure near match. One look at the crop's own scale tells
            # whether there may be one: none, the near match stands; a place matching as well, the
            # texts recorded around the target decide before any search everywhere (which would
            # report the twins, and then ask the same texts).
            rival = _best_rival(obs.image, anchors.crop, near)
            if rival < near.score - TWIN_SLACK:
                return near
            if rival >= near.score - AMBIGUITY_MARGIN and self._landmarks_read(obs, anchors, near):
                return replace(near, why=f"{near.why}; its twins told apart by the texts around it")
        self.calls["template_searches"] += 1
        try:
            best = self.matcher.find(obs.image, anchors.crop, description=what)
        except AmbiguousTarget as exc:
            if near.score >= NEAR_SURE and self._landmarks_read(obs, anchors, near):
                return replace(near, why=f"{near.why}; its twins told apart by the texts around it")
            raise AmbiguousTarget(what, [near, *exc.candidates]) from None
        except GroundingError:
            return near
        if near.score >= NEAR_SURE:
            return near
        return best if best.box.iou(near.box) < 0.5 and best.score > near.score else near

    def _landmarks_read(self, obs: Observation, anchors: Anchors, near: Candidate) -> bool:
        """Whether the recorded landmarks read where they were, around ``near`` (a crop's match).

        Only the landmarks on the target's row count when there are some (a reordered table keeps
        its header); at least one must read as recorded, none otherwise. Each is one small OCR read.
        """
        read = getattr(self.parser, "read_text", None)
        if read is None or not anchors.landmarks or anchors.crop is None:
            return False
        scale = near.box.width / max(1, anchors.crop.width)
        centre = near.box.center
        height = (anchors.size or (0, 24))[1] * scale
        marks = [m for m in anchors.landmarks if abs(m[2]) <= max(8.0, 0.5 * height)] or list(anchors.landmarks)
        agree = 0
        for text, dx, dy in marks:
            w, h = (9 * len(text) + 24) * scale, 30 * scale
            x, y = centre.x - dx * scale, centre.y - dy * scale
            region = Box(round(x - w / 2), round(y - h / 2), round(w), round(h)).clip(*obs.image.size)
            if region.width < 8 or region.height < 8:
                return False
            self.calls["landmark_reads"] += 1
            got = read(obs.image, region) or ""
            if not reads_as(text, got):
                log.debug("landmark %r not read at %s (read %r)", text, region.corners, got)
                return False
            agree += 1
        return agree > 0

    def ocr(self, description: str, obs: Observation) -> Candidate:
        if self.ocr_ladder is None:
            raise GroundingError("the ladder has no OCR rung")
        self.parses.note(obs.image)
        return self.ocr_ladder.resolve(description, obs)

    def vlm(self, description: str, obs: Observation) -> Candidate:
        self.calls["vlm_calls"] += 1
        return self.vlm_ladder.resolve(description, obs)

    def elements(self, obs: Observation) -> Sequence[Element] | None:
        """The parsed elements of the screen; None without a parser."""
        if self.parser is None or not hasattr(self.parser, "parse"):
            return None
        self.parses.note(obs.image)
        return self.parser.parse(obs.image).elements

    def _confirm(self, anchors: Anchors, obs: Observation, what: str) -> Any:
        if anchors.crop is None or self.low_matcher is None:
            return None

        def confirm(box: Box) -> float | None:
            self.calls["template_searches"] += 1
            try:
                cand = self.low_matcher.find(obs.image, anchors.crop, expected=box, description=what)
            except GroundingError:
                return None
            close = abs(cand.box.center.x - box.center.x) <= max(8, box.width // 2) and \
                abs(cand.box.center.y - box.center.y) <= max(8, box.height // 2)
            return cand.score if close else None

        return confirm

    def _landmarks_elsewhere(self, obs: Observation, anchors: Anchors, cand: Candidate, scale: float) -> str | None:
        """Why the recorded landmarks say the target is not where ``cand`` is, or None.

        OCR matching is tolerant ("Log in" reads like the tab "Login", "Edit" like a sentence ending
        in "edit."): a text found far from every place the landmarks found on screen predict is
        another element. Without a landmark on screen nothing is contradicted.
        """
        w, h = anchors.size or landmark_rung.DEFAULT_SIZE
        tol_x, tol_y = max(100.0, 2 * w * scale), max(60.0, 2 * h * scale)
        centre, preds = cand.box.center, []
        for text, dx, dy in anchors.landmarks:
            try:
                at = self.ocr(f'"{text}"', obs).box.center
            except GroundingError:
                continue
            preds.append((text, Point(at.x + round(dx * scale), at.y + round(dy * scale))))
        if not preds or any(abs(p.x - centre.x) <= tol_x and abs(p.y - centre.y) <= tol_y for _, p in preds):
            return None
        return "the texts recorded around the target put it elsewhere: " + ", ".join(f"{t!r} at {p}" for t, p in preds)

    # -- below the template ------------------------------------------------------------------
    def lower(self, obs: Observation, anchors: Anchors, drift: Drift, miss: Miss) -> Found | None:
        """OCR (each description), landmarks, then the VLM; None with ``miss`` filled in."""
        for description in anchors.descriptions:
            try:
                cand = self.ocr(description, obs)
            except GroundingError as exc:
                miss.add("ocr", exc)
                continue
            elsewhere = self._landmarks_elsewhere(obs, anchors, cand, drift.scale)
            if elsewhere is None:
                return Found(cand, "ocr")
            miss.add("ocr", f"{description!r} reads like {cand}, but {elsewhere}")
            miss.candidates.append(cand)
        if anchors.landmarks and self.ocr_ladder is not None:
            cand, why = landmark_rung.locate(
                anchors.landmarks, obs, find_text=self.ocr, size=anchors.size, ocr_text=anchors.ocr_text,
                scale=drift.scale, confirm=self._confirm(anchors, obs, anchors.expected),
                bar=LANDMARK_TEMPLATE_BAR, elements=self.elements(obs))
            if cand is not None:
                return Found(cand, "landmarks")
            miss.add("landmarks", why)
        if self.vlm_ladder is not None and anchors.descriptions:
            try:
                return Found(self.vlm(anchors.descriptions[0], obs), "vlm")
            except GroundingError as exc:
                miss.add("vlm", exc)
        if not miss.notes:
            what = "a fixed point and no anchor" if anchors.fixed is not None else "no anchor"
            miss.notes.append(f"the step has {what} to find its target with; a replay never acts "
                              "at a recorded coordinate")
        return None


def _best_rival(image: Image.Image, crop: Image.Image, near: Candidate) -> float:
    """How well the crop matches the best place on the screen other than ``near``, at its own
    scale: one whole-screen correlation (a fraction of the search everywhere at every scale).
    Lenient on purpose (no part-by-part check): it can only send a step to that search."""
    import cv2
    import numpy as np

    gray = cv2.GaussianBlur(np.asarray(image.convert("L")), (0, 0), TWIN_BLUR)
    tpl = cv2.GaussianBlur(np.asarray(crop.convert("L")), (0, 0), TWIN_BLUR)
    th, tw = tpl.shape
    if th > gray.shape[0] or tw > gray.shape[1] or float(tpl.std()) < 0.5:
        return 1.0
    res = cv2.matchTemplate(gray, tpl, cv2.TM_CCOEFF_NORMED)
    x, y = near.box.left, near.box.top
    res[max(0, y - th // 2):max(0, y + th // 2 + 1), max(0, x - tw // 2):max(0, x + tw // 2 + 1)] = -1.0
    return float(res.max())


def _element_box(found: Box, anchors: Anchors) -> Box:
    """The element inside a matched crop: the crop less its margin, at the matched scale."""
    assert anchors.crop is not None
    scale = found.width / max(1, anchors.crop.width)
    margin = round(ANCHOR_MARGIN * scale)
    if anchors.box is not None:   # a crop of a big element holds only its top-left part
        learned = Box.from_corners(*anchors.box)
        return Box(found.left + margin, found.top + margin, max(1, round(learned.width * scale)),
                   max(1, round(learned.height * scale)))
    if found.width <= 2 * margin + 2 or found.height <= 2 * margin + 2:
        return found
    return Box(found.left + margin, found.top + margin, found.width - 2 * margin, found.height - 2 * margin)


def _detailless(crop: Image.Image) -> bool:
    """Whether the crop's inside (less its margin and a border) is about one colour: an empty field,
    perhaps with its text cursor (a line of a pixel or two)."""
    import numpy as np

    inset = ANCHOR_MARGIN + 3
    gray = np.asarray(crop.convert("L"), dtype=np.float32)[inset:-inset, inset:-inset]
    if gray.size == 0:
        return True
    ink = np.abs(gray - np.median(gray)) > DETAILLESS_INK
    return float(ink.mean()) < DETAILLESS_SHARE


def expected_box(anchors: Anchors, drift: Drift) -> Box | None:
    """Where the target would be if it moved like the earlier targets (for the failure image)."""
    return shifted(anchors.box, drift.shift) if anchors.box else None
