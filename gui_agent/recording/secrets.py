"""Which typed text is a secret, decided while recording so that it is never written down.

Text typed after a click is secret when the field clicked is labelled like a password
("Password", "Passcode", "PIN", ...) or like a field the user marked (``--secret-field LABEL``),
or when the field shows only dots after the typing (a masked field, whatever its label). The
label also names the parameter ("Password" -> ``password``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image

from ..geometry import Box, Point
from ..secrets import SECRET_WORD_RE, is_secret_name
from .targets import element_at, label_of, param_slug

log = logging.getLogger(__name__)

SECRET_WORDS = SECRET_WORD_RE   # one list of the words that mark a secret (gui_agent.secrets)
REGION_LEFT, REGION_RIGHT, REGION_HALF_HEIGHT = 560, 360, 90   # looked at around a click


def is_secret_label(label: str | None, marked: Sequence[str] = ()) -> bool:
    """True for a label like a password's, or one containing a label the user marked."""
    if not label:
        return False
    if is_secret_name(label):
        return True
    low = label.casefold()
    return any(m.strip() and m.strip().casefold() in low for m in marked)


def identical_glyphs(before: Image.Image, after: Image.Image) -> int:
    """How many glyphs ``after`` shows over ``before``'s background when they are all the same
    shape in one row (a masked field's dots or stars); 0 otherwise. The caret is left out."""
    import cv2
    import numpy as np

    old = np.asarray(before.convert("RGB"), dtype=np.int16)
    new = np.asarray(after.convert("RGB"), dtype=np.int16)
    background = np.median(old.reshape(-1, 3), axis=0)
    ink = (np.abs(new - background).max(axis=2) > 60).astype(np.uint8)
    columns = ink.sum(axis=0)
    if not columns.any():
        return 0
    tall = columns >= 0.9 * columns.max()
    for x in np.flatnonzero(tall):               # a caret: a full-height line at most 3 px wide
        if tall[max(0, x - 3):x + 4].sum() <= 3:
            ink[:, x] = 0
    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    glyphs = []
    for i in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area >= 4 and w < 0.8 * ink.shape[1]:
            glyphs.append((x, y, w, h, (labels[y:y + h, x:x + w] == i).astype(np.uint8)))
    if len(glyphs) < 2:
        return 0
    _, y0, w0, h0, m0 = glyphs[0]
    shape = cv2.resize(m0, (8, 8), interpolation=cv2.INTER_AREA).astype(int)
    for _, y, w, h, mask in glyphs[1:]:
        if abs(w - w0) > 1 or abs(h - h0) > 1 or abs((2 * y + h) - (2 * y0 + h0)) > 4:
            return 0
        if np.abs(cv2.resize(mask, (8, 8), interpolation=cv2.INTER_AREA).astype(int) - shape).sum() > 3:
            return 0
    return len(glyphs)


@dataclass(frozen=True)
class FieldGuess:
    label: str | None
    secret: bool
    why: str = ""

    @property
    def name(self) -> str:
        return param_slug(self.label)


class SecretDetector:
    """Reads the field at a click (label) and the field after typing (masked or not)."""

    def __init__(self, parser: Any = None, marked: Sequence[str] = ()) -> None:
        self._parser = parser
        self.marked = tuple(marked)

    @property
    def parser(self) -> Any:
        if self._parser is None:
            from ..parsing.screen_parser import ScreenParser

            self._parser = ScreenParser(incremental=False)
        return self._parser

    def label_at(self, image: Image.Image, point: Point) -> str | None:
        """The label of the field at ``point`` (image pixels), read from a region around it."""
        region = Box(point.x - REGION_LEFT, point.y - REGION_HALF_HEIGHT, REGION_LEFT + REGION_RIGHT,
                     2 * REGION_HALF_HEIGHT).clip(image.width, image.height)
        if region.width < 8 or region.height < 8:
            return None
        crop = image.crop(region.corners)
        elements = self.parser.parse(crop).elements
        local = Point(point.x - region.left, point.y - region.top)
        element = element_at(elements, local)
        if element is None:
            return None
        return label_of(element, elements) or None

    def masked(self, before: Image.Image, after: Image.Image, typed: str) -> bool:
        """The typing drew a row of identical glyphs, one per character typed (dots or stars)."""
        if len(set(typed)) < 2 or before.size != after.size:
            return False          # "aaa" would look like dots: only the label can tell then
        from ..verify import changed_region

        region = changed_region(before, after)
        if region is None or region.area > 0.25 * after.width * after.height:
            return False
        box = region.expand(2).clip(after.width, after.height).corners
        return identical_glyphs(before.crop(box), after.crop(box)) == len(typed)

    def judge(self, typed: str, *, click_frame: Image.Image | None, click_point: Point | None,
              before: Image.Image | None, after: Image.Image | None) -> FieldGuess:
        """Is the text typed (after a click at ``click_point`` in ``click_frame``) a secret?"""
        label = None
        if click_frame is not None and click_point is not None:
            try:
                label = self.label_at(click_frame, click_point)
            except Exception as exc:  # never lose a recording to a parse failure: treat as unknown
                log.warning("could not read the field's label: %s", exc)
        if is_secret_label(label, self.marked):
            return FieldGuess(label, True, f"the field is labelled {label!r}")
        if before is not None and after is not None:
            try:
                if self.masked(before, after, typed):
                    return FieldGuess(label or "password", True, "the field shows only dots")
            except Exception as exc:
                log.warning("could not check whether the field is masked: %s", exc)
        return FieldGuess(label, False)
