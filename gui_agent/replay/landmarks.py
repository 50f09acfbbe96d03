"""The landmarks rung: find the texts recorded near a target, predict where the target is.

A skill step keeps (text, dx, dy) from each nearby text's centre to the target's centre. The
prediction is trusted only when two landmarks agree on the place, or when one landmark's
prediction is confirmed by the recorded image crop at a lower bar than the template rung's.
The element found at the predicted place must not read a different text than the one recorded
there (a renamed button is a stop, not a click). Texts on the target's own row outweigh the others
when they disagree (rows reordered under a fixed column header).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import AmbiguousTarget, GroundingError
from ..geometry import Box, Point
from ..grounding.candidate import Candidate
from ..grounding.matching import match_text
from ..parsing.elements import Element, ElementKind
from ..screen.observation import Observation

MIN_PAIR_DISTANCE = 24       # two landmarks closer than this say nothing about the scale
SCALE_RANGE = (0.5, 2.0)
AGREEMENT_SCORE = 0.75
DEFAULT_SIZE = (24, 24)
# Elements whose text is their content (typed by the user), not their name.
_CONTENT_KINDS = (ElementKind.TEXT_FIELD, ElementKind.COMBO)

FindText = Callable[[str, Observation], Candidate]
Confirm = Callable[[Box], float | None]


@dataclass(frozen=True)
class _Seen:
    text: str
    dx: int
    dy: int
    at: Point


def _scale(seen: Sequence[_Seen], fallback: float) -> float:
    """Found distance / recorded distance between pairs of landmarks (median), else ``fallback``."""
    ratios = []
    for i, a in enumerate(seen):
        for b in seen[i + 1:]:
            learned = math.hypot(a.dx - b.dx, a.dy - b.dy)
            if learned >= MIN_PAIR_DISTANCE:
                ratios.append(a.at.distance(b.at) / learned)
    scale = statistics.median(ratios) if ratios else fallback
    return min(max(scale, SCALE_RANGE[0]), SCALE_RANGE[1])


def _predict(seen: Sequence[_Seen], scale: float, w: int, h: int
             ) -> tuple[float, float, float, list[tuple[str, Point]], list[tuple[str, Point]]]:
    """(scale, x and y tolerance, each landmark's prediction, the largest group that agrees)."""
    k = _scale(seen, scale)
    tol_x, tol_y = max(8.0, 0.5 * w * k), max(8.0, 0.5 * h * k)
    preds = [(s.text, Point(s.at.x + round(s.dx * k), s.at.y + round(s.dy * k))) for s in seen]
    groups = [[(t, q) for t, q in preds if abs(p.x - q.x) <= tol_x and abs(p.y - q.y) <= tol_y]
              for _, p in preds]
    return k, tol_x, tol_y, preds, max(groups, key=len)


def _element_at(elements: Sequence[Element], point: Point, box: Box) -> Element | None:
    """The smallest element holding ``point`` whose size is about that of ``box``."""
    fits = [e for e in elements if e.box.contains(point) and 0.2 <= e.box.area / max(1, box.area) <= 5.0]
    return min(fits, key=lambda e: e.box.area, default=None)


def _reads_otherwise(element: Element | None, ocr_text: str | None) -> bool:
    if element is None or not ocr_text or not element.text or element.kind in _CONTENT_KINDS:
        return False
    return match_text(ocr_text, element.text) is None and match_text(element.text, ocr_text) is None


def locate(landmarks: Sequence[tuple[str, int, int]], obs: Observation, *, find_text: FindText,
           size: tuple[int, int] | None, ocr_text: str | None, scale: float = 1.0,
           confirm: Confirm | None = None, bar: float = 0.6,
           elements: Sequence[Element] | None = None) -> tuple[Candidate | None, str]:
    """A candidate for the target from its landmarks, or None with the reason in words.

    ``elements`` (the screen parse, None without a parser) must show an element at the place two
    agreeing landmarks give; without a parse the recorded image must confirm it instead.
    """
    if not landmarks:
        return None, "the step records no landmarks"
    seen: list[_Seen] = []
    missing: list[str] = []
    for text, dx, dy in landmarks:
        try:
            seen.append(_Seen(text, dx, dy, find_text(f'"{text}"', obs).box.center))
        except GroundingError as exc:
            missing.append(f"{text!r} ({'ambiguous' if isinstance(exc, AmbiguousTarget) else 'not found'})")
    if not seen:
        return None, f"no landmark found: {', '.join(missing)}"
    w, h = size or DEFAULT_SIZE
    k, tol_x, tol_y, preds, best = _predict(seen, scale, w, h)
    # Texts on the target's own row (a table's row, a field's label) say which row it is on; when
    # they disagree with the others (the rows were reordered under a fixed header), they decide,
    # with the scale they give alone (pairs across moved and unmoved texts give a wrong one).
    row = [s for s in seen if abs(s.dy) <= max(8.0, 0.5 * h * k)]
    if row and not {s.text for s in row} & {t for t, _ in best}:
        k, tol_x, tol_y, preds, best = _predict(row, scale, w, h)
    width, height = obs.image.size
    chosen: tuple[Point, float, str] | None = None
    if len(best) >= 2:
        centre = Point(round(statistics.fmean(q.x for _, q in best)), round(statistics.fmean(q.y for _, q in best)))
        names = ", ".join(repr(t) for t, _ in best)
        if elements is not None:
            if _element_at(elements, centre, _box_at(centre, w * k, h * k)) is None:
                return None, f"landmarks {names} agree, but nothing is on the screen at {centre}"
            chosen = centre, AGREEMENT_SCORE, f"landmarks {names} agree (scale {k:.2f})"
        else:
            score = confirm(_box_at(centre, w * k, h * k)) if confirm is not None else None
            if score is None or score < bar:
                return None, f"landmarks {names} agree, but nothing confirms that the target is at {centre}"
            chosen = centre, score, f"landmarks {names} and the recorded image (score {score:.2f}) agree"
    elif confirm is not None:
        confirmed = [(t, p, score) for t, p in preds
                     if (score := confirm(_box_at(p, w * k, h * k))) is not None and score >= bar]
        places = [c for i, c in enumerate(confirmed)
                  if not any(abs(c[1].x - o[1].x) <= tol_x and abs(c[1].y - o[1].y) <= tol_y for o in confirmed[:i])]
        if len(places) > 1:   # twins: each landmark finds the recorded image at its own place
            names = ", ".join(f"{t!r} at {p}" for t, p, _ in places)
            return None, f"the landmarks disagree and the recorded image is at each place they give ({names})"
        if places:
            text, p, score = places[0]
            chosen = p, score, f"landmark {text!r} and the recorded image (score {score:.2f}) agree"
    if chosen is None:
        found = ", ".join(f"{t!r}" for t, _ in preds)
        lone = "only one landmark" if len(preds) == 1 else "the landmarks disagree"
        gone = f"; not found: {', '.join(missing)}" if missing else ""
        return None, f"{lone} ({found}) and the recorded image does not confirm the place{gone}"
    centre, score, why = chosen
    if not (0 <= centre.x < width and 0 <= centre.y < height):
        return None, f"the landmarks put the target off the screen at {centre}"
    box = _box_at(centre, w * k, h * k)
    element = _element_at(elements or (), centre, box)
    if _reads_otherwise(element, ocr_text):
        assert element is not None
        return None, (f"the element where the landmarks put the target reads {element.text!r}, "
                      f"not {ocr_text!r}")
    return Candidate(element.box if element else box, round(score, 3), "landmarks", element, why), why


def _box_at(centre: Point, w: float, h: float) -> Box:
    return Box(round(centre.x - w / 2), round(centre.y - h / 2), max(1, round(w)), max(1, round(h)))
