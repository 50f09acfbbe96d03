"""The template rung: find a skill step's recorded element again by its image crop.

A step keeps a crop of the element it acted on (``memory.anchors.crop_around``: the element plus
``ANCHOR_MARGIN`` px) and the element's box when learned. :class:`TemplateMatcher` looks for the
crop near the learned place (moved by how far earlier targets moved) at its own scale, and
otherwise anywhere on the screen at several scales.

Scores are ``cv2.TM_CCOEFF_NORMED`` on lightly blurred grayscale. A screen drawn at another scale
(a 125 % font) is no resized copy of the learned one (hinting, 1 px lines): the right element's
whole-crop score drops to ~0.9 while a same-shaped button with other text scores about as much.
So the element's inside is also cut into square parts; each part with detail (text, icon strokes)
must match on its own within a pixel, and the score is the lower of the whole and the parts' mean.
A crop with no detail inside (an empty field) is "flat": weak evidence, so the anywhere search
wants it unique by a wider margin. Places that score about the same raise AmbiguousTarget.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from PIL import Image

from ..errors import AmbiguousTarget, ConfigError, TargetNotFound
from ..geometry import Box
from .candidate import Candidate

log = logging.getLogger(__name__)

SOURCE_NEAR = "template"
SOURCE_ANYWHERE = "template-anywhere"
# 1/1.5 .. 1.6 in ~10 % steps; places are refined between them.
DEFAULT_SCALES = (0.67, 0.75, 0.83, 0.91, 1.0, 1.1, 1.25, 1.4, 1.5, 1.6)
REFINE_STEPS = (0.94, 0.97, 1.0, 1.03, 1.06)  # then halving steps until one changes the crop by < 1 px
AMBIGUITY_MARGIN = 0.05   # two distinct places closer than this: ambiguous (twins on other backgrounds: 0.97)
FLAT_MARGIN = 0.10        # the same for a flat crop (an empty field looks like many things)
WHOLE_BLUR = 1.0          # Gaussian sigma (times the scale when > 1) for the whole-crop score
PART_BLUR = 0.7           # sigma for the part-by-part check
ANCHOR_MARGIN = 4          # pixels of surroundings a crop keeps around its element
MAX_CROP_SIDE = 400        # a bigger element (a text area) is anchored by its top-left part
INSET = ANCHOR_MARGIN + 3  # crop edge -> inside the element's border


def crop_around(image: Image.Image, box: Box, margin: int = ANCHOR_MARGIN) -> Image.Image:
    """A target's crop as the matcher expects it: the element with a small margin, clipped to
    the image and to MAX_CROP_SIDE per side."""
    left = max(0, box.left - margin)
    top = max(0, box.top - margin)
    right = min(image.width, box.right + margin, left + MAX_CROP_SIDE)
    bottom = min(image.height, box.bottom + margin, top + MAX_CROP_SIDE)
    return image.crop((left, top, max(right, left + 1), max(bottom, top + 1))).convert("RGB")
MAX_CELL = 40             # side of the largest part checked on its own
INFORMATIVE_STD = 8.0     # a part with less contrast (gray levels) carries no detail
MIN_CONTRAST = 0.25       # a place with less than this share of the crop's contrast is not it
COARSE_SIDE = 8           # the downscaled pass keeps templates at least this many px a side
COARSE_SLACK = 0.35       # the downscaled pass keeps places down to threshold - this ...
COARSE_SPREAD = 0.3       # ... and down to the best place's coarse score - this
HALVING_GAIN = 0.12       # how much finer scale steps may still add to a place's score
PARTS_SLACK = 0.1         # how much they may add to its parts score
MAX_PLACES = 8            # distinct places refined at full resolution
MIN_SIDE = 4              # a crop (or a scaled crop) smaller than this cannot be matched


@dataclass(frozen=True)
class _Hit:
    x: int
    y: int
    w: int
    h: int
    scale: float
    score: float
    factor: float = 1.0    # resolution of the downscaled pass that found it
    distance: float = 0.0  # from the expected place (near search)

    @property
    def box(self) -> Box:
        return Box(self.x, self.y, self.w, self.h)

    def around(self, pad: int) -> tuple[float, float, int]:
        """Its centre, and how far from it a refined position may lie."""
        return self.x + self.w / 2, self.y + self.h / 2, pad


class TemplateMatcher:
    """Locates a recorded crop on a screenshot; see the module docstring for how it decides."""

    def __init__(self, *, threshold: float = 0.85, near_radius: int = 48,
                 scales: Sequence[float] = DEFAULT_SCALES) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ConfigError(f"template threshold must be in (0, 1], got {threshold}")
        if near_radius < 0:
            raise ConfigError(f"near_radius must be >= 0 pixels, got {near_radius}")
        if not scales or any(not (0.1 <= s <= 10.0) for s in scales):
            raise ConfigError(f"scales must be a non-empty list of factors in [0.1, 10], got {list(scales)}")
        self.threshold = threshold
        self.near_radius = int(near_radius)
        self.scales = tuple(sorted(set(float(s) for s in scales)))

    def find(self, image: Image.Image, crop: Image.Image, *, expected: Box | None = None,
             shift: tuple[int, int] = (0, 0), description: str = "the recorded element") -> Candidate:
        """The place on ``image`` that shows ``crop``; raises TargetNotFound or AmbiguousTarget."""
        started, tpl = time.perf_counter(), _Template(np.asarray(crop.convert("L")))
        if min(tpl.gray.shape) < MIN_SIDE:
            raise TargetNotFound(description, f"the recorded image is too small to match ({crop.width}x{crop.height})")
        if float(tpl.gray.std()) < 0.5:
            raise TargetNotFound(description, "the recorded image is a single flat colour; its pixels cannot "
                                 "locate it (the text or landmark rungs can)")
        ch, cw = tpl.gray.shape
        if cw * self.scales[0] > image.width or ch * self.scales[0] > image.height:
            raise TargetNotFound(description, f"the recorded image ({cw}x{ch}) is larger than the screenshot "
                                 f"({image.width}x{image.height}) at every scale searched")
        near_note = ""
        if expected is not None:
            hit, near_best = self._near(image, tpl, expected, shift)
            if hit is not None:
                log.debug("template near hit %s in %.1f ms", hit, 1000 * (time.perf_counter() - started))
                return Candidate(hit.box, hit.score, SOURCE_NEAR,
                                 why=f"matched the recorded image near the learned place "
                                     f"({hit.distance:.0f} px from it, score {hit.score:.2f})")
            near_note = f"; near the learned place the best score was {near_best:.2f}"
        hits = self._anywhere(np.asarray(image.convert("L")), tpl)
        log.debug("template anywhere: %d places in %.1f ms", len(hits), 1000 * (time.perf_counter() - started))
        if not hits or hits[0].score < self.threshold:
            seen = (f"best score {hits[0].score:.2f} < {self.threshold:.2f} at {hits[0].box.corners}, "
                    f"scale {hits[0].scale:.2f}") if hits else "no place came close"
            raise TargetNotFound(description, f"the recorded image is not on the screen ({seen}{near_note})")
        margin = FLAT_MARGIN if tpl.flat else AMBIGUITY_MARGIN
        rivals = [h for h in hits if h.score >= hits[0].score - margin]
        if len(rivals) > 1:
            raise AmbiguousTarget(description, [self._anywhere_candidate(h, hits) for h in rivals])
        return self._anywhere_candidate(hits[0], hits)

    def _near(self, image: Image.Image, tpl: _Template, expected: Box,
              shift: tuple[int, int]) -> tuple[_Hit | None, float]:
        """Best match around the expected place at the crop's own scale; closest of equals wins."""
        import cv2

        th, tw = tpl.gray.shape
        # Where the crop's top-left should be: crop_around's margin (clipped at 0) plus the shift.
        x0, y0 = (max(0, v - ANCHOR_MARGIN) + int(d) for v, d in zip((expected.left, expected.top), shift, strict=True))
        r = self.near_radius
        left, top, right, bottom = Box(x0 - r, y0 - r, tw + 2 * r, th + 2 * r).clip(image.width, image.height).corners
        if right - left < tw or bottom - top < th:
            return None, 0.0
        region = np.asarray(image.crop((left, top, right, bottom)).convert("L"))
        scored, parts_region = _blur(region, WHOLE_BLUR), _blur(region, PART_BLUR)
        res = cv2.matchTemplate(scored, tpl.scaled(1.0, WHOLE_BLUR), cv2.TM_CCOEFF_NORMED)
        whole_best = max(0.0, float(res.max()))  # reported when no place passes the whole-crop check
        finals: list[float] = []
        good: list[_Hit] = []
        for px, py, score in _peaks(res, tw, th, self.threshold, 8):
            finals.append(final := tpl.checked(score, parts_region, px, py, 1.0))
            if final >= self.threshold and _has_contrast(scored, px, py, tpl.scaled(1.0, WHOLE_BLUR)):
                distance = math.dist((px, py), (x0 - left, y0 - top))
                good.append(_Hit(left + px, top + py, tw, th, 1.0, final, 1.0, distance))
        if not good:
            return None, max(finals, default=whole_best)
        equals = [h for h in good if h.score >= max(h.score for h in good) - AMBIGUITY_MARGIN]
        best = min(equals, key=lambda h: h.distance)
        return best, best.score

    def _anywhere(self, gray: np.ndarray, tpl: _Template) -> list[_Hit]:
        """Distinct places, best first: a downscaled pass over all scales, refined at full size."""
        import cv2

        ch, cw = tpl.gray.shape
        height, width, m = *gray.shape, ANCHOR_MARGIN   # a crop whose margin is now off the screen still matches
        gray = cv2.copyMakeBorder(gray, m, m, m, m, cv2.BORDER_REPLICATE)
        levels: dict[float, np.ndarray] = {}
        coarse: list[_Hit] = []
        for scale in self.scales:
            # The coarsest resolution that leaves the template COARSE_SIDE px: speed, not precision.
            f = next((f for f in (0.25, 0.5) if min(cw, ch) * scale * f >= COARSE_SIDE), 1.0)
            if f not in levels:
                levels[f] = gray if f == 1.0 else cv2.resize(gray, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
            small = levels[f]
            w, h = round(cw * scale * f), round(ch * scale * f)
            if min(w, h) < MIN_SIDE or w > small.shape[1] or h > small.shape[0]:
                continue
            t = _resize(tpl.gray, w, h)
            res = cv2.matchTemplate(small, t, cv2.TM_CCOEFF_NORMED)
            for px, py, score in _peaks(res, w, h, self.threshold - COARSE_SLACK, MAX_PLACES):
                if _has_contrast(small, px, py, t):
                    coarse.append(_Hit(round(px / f), round(py / f), round(w / f), round(h / f), scale, score, f))
        places = _distinct(coarse)[:MAX_PLACES]
        margin = FLAT_MARGIN if tpl.flat else AMBIGUITY_MARGIN
        refined: list[_Hit] = []
        for hit in (p for p in places if p.score >= places[0].score - COARSE_SPREAD):
            winners = [h for h in refined if h.score >= self.threshold]
            floor = max([self.threshold] + [h.score for h in winners]) - margin
            found = self._refine(gray, tpl, hit, floor, [h.scale for h in winners])
            if found is not None:
                refined.append(found)
        moved = [(h, Box(h.x - m, h.y - m, h.w, h.h).clip(width, height)) for h in refined]
        return _distinct([replace(h, x=b.left, y=b.top, w=b.width, h=b.height) for h, b in moved])

    def _refine(self, gray: np.ndarray, tpl: _Template, hit: _Hit, floor: float,
                known: list[float]) -> _Hit | None:
        """Full-resolution score of a coarse place: its best position and scale. Coarse scores are noisy
        across scales (a template 15 or 16 px high), so the listed scales within x1.25 (and those of
        places found) are scored again, the two best searched +-6 %, then in halving steps. A place
        that cannot reach ``floor`` (the least score that could still win or rival the winner) is
        dropped early with its score so far (for the report)."""
        import cv2

        ch, cw = tpl.gray.shape
        cx, cy, _ = hit.around(0)
        # The crop's own scale always (a moved window), and the coarse one may be off by 20 %.
        scales = sorted({s for s in self.scales if hit.scale / 1.25 <= s <= hit.scale * 1.25} | {1.0, *known})
        pad = math.ceil(1 / hit.factor) + 2 + round(0.1 * max(cw, ch) * hit.scale)  # and so may the place
        reach = max(scales) * REFINE_STEPS[-1] * 1.05 / 2
        half_w, half_h = cw * reach + pad, ch * reach + pad
        area = Box.from_corners(cx - half_w, cy - half_h, cx + half_w + 1, cy + half_h + 1).clip(*gray.shape[::-1])
        left, top, region = area.left, area.top, gray[area.top:area.bottom, area.left:area.right]
        sigma = WHOLE_BLUR * max(1.0, hit.scale)
        scored, parts_region = _blur(region, sigma), _blur(region, PART_BLUR)

        def score_at(scale: float, around: tuple[float, float, int]) -> tuple[float, int, int, float]:
            t = tpl.scaled(scale, sigma)
            (th, tw), (x, y, d) = t.shape, around
            x0, y0 = round(x - tw / 2) - left, round(y - th / 2) - top
            wl, wt = max(0, x0 - d), max(0, y0 - d)
            wr, wb = min(region.shape[1], x0 + tw + d), min(region.shape[0], y0 + th + d)
            if wr - wl < tw or wb - wt < th:
                return -1.0, 0, 0, scale
            _, score, _, (px, py) = cv2.minMaxLoc(cv2.matchTemplate(scored[wt:wb, wl:wr], t, cv2.TM_CCOEFF_NORMED))
            return float(score), wl + px, wt + py, scale

        def result(r: tuple[float, int, int, float], score: float) -> _Hit:
            th, tw = tpl.scaled(r[3], sigma).shape
            return _Hit(left + r[1], top + r[2], tw, th, r[3], score)

        profile = sorted((score_at(s, hit.around(pad)) for s in scales), key=lambda r: -r[0])
        best = profile[0]
        if best[0] < floor - 2 * HALVING_GAIN:
            return result(best, best[0]) if best[0] > 0 else None
        parts = tpl.checked(1.0, parts_region, *best[1:]) if known else 1.0
        if parts < floor - PARTS_SLACK:  # a winner exists: a rival's parts must match at once
            return result(best, min(best[0], parts))
        tried = [score_at(r[3] * k, result(r, 0).around(2)) for r in profile[:2] for k in REFINE_STEPS if k != 1]
        best = max([best, *tried], key=lambda r: r[0])
        step = REFINE_STEPS[-1] - REFINE_STEPS[-2]
        while best[0] >= floor - HALVING_GAIN and step * max(cw, ch) * best[3] > 1.0:  # peaks sharply in scale
            step /= 2
            around = result(best, best[0]).around(2)
            best = max(best, score_at(best[3] * (1 - step), around), score_at(best[3] * (1 + step), around),
                       key=lambda r: r[0])
        score, px, py, scale = best
        if not _has_contrast(scored, px, py, tpl.scaled(scale, sigma)):
            return None
        if score >= floor:
            score = tpl.checked(score, parts_region, px, py, scale)
        return result(best, score)

    def _anywhere_candidate(self, hit: _Hit, hits: list[_Hit]) -> Candidate:
        nxt = next((f"{h.score:.2f}" for h in hits if h is not hit), "none came close")  # hits: best first
        return Candidate(hit.box, hit.score, SOURCE_ANYWHERE, why=f"matched the recorded image anywhere on the "
                         f"screen at scale {hit.scale:.2f} (score {hit.score:.2f}; next best place: {nxt})")


class _Template:
    """The crop in grayscale, its scaled/blurred versions (cached) and its detailed parts."""

    def __init__(self, gray: np.ndarray) -> None:
        self.gray = np.ascontiguousarray(gray, dtype=np.uint8)
        self._cache: dict[tuple[float, float], np.ndarray] = {}
        self.cells = _informative_cells(self.gray)
        self.flat = not self.cells

    def scaled(self, scale: float, sigma: float) -> np.ndarray:
        key = (round(scale, 4), sigma)
        if key not in self._cache:
            w, h = (max(1, round(n * scale)) for n in self.gray.shape[::-1])
            self._cache[key] = _blur(_resize(self.gray, w, h), sigma)
        return self._cache[key]

    def checked(self, whole: float, region: np.ndarray, px: int, py: int, scale: float) -> float:
        """``whole`` capped by the mean over the detailed parts of each part's best score within 1 px
        of its place (``region`` blurred with PART_BLUR, the crop's top-left at ``px, py``)."""
        return whole if self.flat else min(whole, self._parts(region, px, py, scale))

    def _parts(self, region: np.ndarray, px: int, py: int, scale: float) -> float:
        import cv2

        t = self.scaled(scale, PART_BLUR)
        scores = []
        for x, y, side in self.cells:
            sx, sy, ss = round(x * scale), round(y * scale), round(side * scale)
            if ss < MIN_SIDE or sx + ss > t.shape[1] or sy + ss > t.shape[0]:
                continue
            wl, wt = max(0, px + sx - 1), max(0, py + sy - 1)
            window = region[wt:py + sy + ss + 1, wl:px + sx + ss + 1]
            if window.shape[0] < ss or window.shape[1] < ss:  # the part is off the screen
                scores.append(0.0)
                continue
            res = cv2.matchTemplate(window, t[sy:sy + ss, sx:sx + ss], cv2.TM_CCOEFF_NORMED)
            scores.append(float(res.max()))
        return float(np.mean(scores)) if scores else 0.0


def _informative_cells(gray: np.ndarray) -> list[tuple[int, int, int]]:
    """Square parts (x, y, side) of the element's inside that carry detail."""
    h, w = gray.shape
    inset = INSET if min(h, w) - 2 * INSET >= 6 else 0
    ih, iw = h - 2 * inset, w - 2 * inset
    side = max(min(ih, iw, MAX_CELL), 1)
    return [(x, y, side) for y in _starts(inset, ih, side) for x in _starts(inset, iw, side)
            if float(gray[y:y + side, x:x + side].std()) >= INFORMATIVE_STD]


def _starts(start: int, length: int, side: int) -> list[int]:
    """Cells of ``side`` covering ``length`` evenly (overlapping a little), or one centred."""
    n = max(1, round(length / side))
    return [start + (round(i * (length - side) / (n - 1)) if n > 1 else (length - side) // 2) for i in range(n)]


def _peaks(res: np.ndarray, w: int, h: int, floor: float, limit: int) -> list[tuple[int, int, float]]:
    """Local maxima of a score map at least half a template apart, best first (``res`` is overwritten)."""
    import cv2

    out: list[tuple[int, int, float]] = []
    for _ in range(limit):
        _, score, _, (x, y) = cv2.minMaxLoc(res)
        if score < floor or not math.isfinite(score):
            break
        out.append((x, y, float(score)))
        res[max(0, y - h // 2):y + h // 2 + 1, max(0, x - w // 2):x + w // 2 + 1] = -1.0
    return out


def _distinct(hits: list[_Hit]) -> list[_Hit]:
    """Best first, dropping any place that mostly overlaps a better one."""
    kept: list[_Hit] = []
    for hit in sorted(hits, key=lambda h: -h.score):
        if all(hit.box.intersection(k.box) <= 0.5 * min(hit.box.area, k.box.area) for k in kept):
            kept.append(hit)
    return kept


def _has_contrast(img: np.ndarray, x: int, y: int, t: np.ndarray) -> bool:
    """Whether the place at x, y has a fair share of the (scaled) template ``t``'s contrast."""
    return float(img[y:y + t.shape[0], x:x + t.shape[1]].std()) >= MIN_CONTRAST * float(t.std())


def _resize(gray: np.ndarray, w: int, h: int) -> np.ndarray:
    import cv2

    mode = cv2.INTER_AREA if w < gray.shape[1] else cv2.INTER_LINEAR
    return gray if (h, w) == gray.shape else cv2.resize(gray, (w, h), interpolation=mode)


def _blur(gray: np.ndarray, sigma: float) -> np.ndarray:
    import cv2

    return cv2.GaussianBlur(gray, (0, 0), sigma) if sigma > 0 else gray

