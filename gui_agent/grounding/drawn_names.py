"""Elements found by what their name looks like when drawn: a quoted name holding characters
the text recogniser cannot output ("♥♥♥", "⚙", "ヘルプ": its model has no such characters, so
OCR reads them as something else or not at all) is drawn in the system fonts that have its
characters (found through fontconfig, as a browser or toolkit finds them), and the drawing is
compared with the ink each element shows."""

from __future__ import annotations

import logging
import shutil
import subprocess
from collections.abc import Collection, Iterable
from dataclasses import replace
from functools import lru_cache

import numpy as np

from ..parsing.elements import Element, ElementKind
from ..parsing.fusion import ink_centred
from ..parsing.indicators import INK
from ..parsing.ocr import recogniser_alphabet
from .description import TargetQuery
from .kinds import kind_factor
from .scored import Scored

log = logging.getLogger(__name__)
K = ElementKind
DRAWN_FACTOR = 0.9         # a name seen drawn, not read: below an element that reads it
MIN_LIKENESS = 0.8         # correlation of the drawing's ink with the element's
ASPECT_TOLERANCE = 1.3     # the drawing's and the element's ink may differ this much in shape
FONTS_TRIED = 3            # fonts drawn per name: the best likeness counts
MIN_INK_AREA = 24          # px: less ink than this is too little to compare (a "=" key's is 4 x 9)
BAR_SHAPE = 0.4            # height / width below this: a bar ("-", "_")
BAR_LIKENESS = 0.85        # a bar of ink named by a bar drawn: alike, by proportions alone
FRINGE = 0.35              # of the strongest ink: weaker edge rows are a stroke's anti-aliasing
_DRAW_PX = 64              # the height the name is drawn at before it is scaled to the element
_BORDERED = (K.BUTTON, K.TEXT_FIELD, K.COMBO, K.TAB, K.CHECKBOX, K.RADIO)


def unreadable(name: str, characters: Collection[str] | None = None) -> bool:
    """True when ``name`` holds a character (other than a space) that ``characters`` (default:
    the recogniser's alphabet) lacks. Its alphabet holds every printable ASCII character, so
    only other names load it."""
    if name.isascii():
        return False
    alphabet = recogniser_alphabet() if characters is None else characters
    return any(not c.isspace() and c not in alphabet for c in name)


def drawn_matches(query: TargetQuery, elements: Iterable[Element], gray: np.ndarray) -> list[Scored]:
    """Elements whose ink looks like ``query.text`` drawn in a font that has its characters."""
    drawings = drawing(query.text.strip())
    if not drawings:
        return []
    out = []
    screen = gray.shape[0] * gray.shape[1]
    for e in elements:
        if e.box.area > 0.25 * screen:
            continue   # a pane or a page, not something named by a few glyphs
        ink = _ink(gray, e)
        if ink is None:
            continue
        score = max(likeness(ink, d) for d in drawings)
        if score < MIN_LIKENESS:
            continue
        if e.kind == K.TEXT_FIELD and ink_centred(gray, e.box):
            # a bordered face with the name in its middle is a button (the parser calls such a
            # box a field until it reads a caption in it, and it read none)
            e = replace(e, kind=K.BUTTON, label="")
        log.debug("drawn %r: %s %.2f", query.text, e.box, score)
        out.append(Scored(e, e.box, score * DRAWN_FACTOR * kind_factor(query, e.kind),
                          f"its ink looks like {query.text!r} drawn ({score:.2f})"))
    return out


def likeness(ink: np.ndarray, drawn: np.ndarray) -> float:
    """How alike an element's ink and a drawing are, -1..1: the correlation of their ink
    coverage once the drawing is scaled to the element's ink (0 when their shapes differ too
    much). Coverage, not a mask: a small glyph's hole or teeth are a pixel or two of partial ink
    (a gear and a heart are both blobs at 10 px)."""
    import cv2

    h, w = ink.shape
    dh, dw = drawn.shape
    if dh == 0 or dw == 0:
        return 0.0
    if h < 3 and dh < BAR_SHAPE * dw:
        # a bar ("-") a pixel or two thick: its proportions are all there is to compare
        return BAR_LIKENESS if w >= 4 and h <= BAR_SHAPE * w else 0.0
    if h < 3 or w < 3 or h * w < MIN_INK_AREA:
        return 0.0
    ratio = (w / h) / (dw / dh)
    if not 1 / ASPECT_TOLERANCE <= ratio <= ASPECT_TOLERANCE:
        return 0.0
    scaled = cv2.resize(drawn, (w, h), interpolation=cv2.INTER_AREA)
    a, b = ink - ink.mean(), scaled - scaled.mean()
    norm = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum()) / norm if norm else 0.0


def _ink(gray: np.ndarray, e: Element) -> np.ndarray | None:
    """The element's ink coverage (0..1), cut tight (a bordered element's border left out)."""
    b = e.box
    inset = max(3, min(b.width, b.height) // 8) if e.kind in _BORDERED else 0
    patch = gray[max(0, b.top + inset):b.bottom - inset, max(0, b.left + inset):b.right - inset]
    if patch.shape[0] < 5 or patch.shape[1] < 3:
        return None
    contrast = np.abs(patch.astype(np.float32) - float(np.median(patch)))
    ink = contrast > INK
    # a 1 px stroke drawn between two pixel rows inks the second one faintly: such a fringe
    # row (or column) at the edge of the ink shifts a small glyph ("=" is 9 x 4) off its drawing
    strong = contrast > FRINGE * float(contrast.max())
    rows, cols = np.flatnonzero(ink.any(axis=1) & strong.any(axis=1)), np.flatnonzero(ink.any(axis=0) & strong.any(axis=0))
    if rows.size == 0 or cols.size == 0:
        return None
    return contrast[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1] / float(contrast.max())


@lru_cache(maxsize=64)
def drawing(name: str) -> tuple[np.ndarray, ...]:
    """Ink coverage (0..1) of ``name`` drawn in up to FONTS_TRIED fonts that have all its characters."""
    from PIL import Image, ImageDraw, ImageFont

    out = []
    for path in fonts_for(name)[:FONTS_TRIED]:
        try:
            font = ImageFont.truetype(path, _DRAW_PX)
        except OSError:
            continue
        left, top, right, bottom = font.getbbox(name)
        canvas = Image.new("L", (right - left + 8, bottom - top + 8), 0)
        ImageDraw.Draw(canvas).text((4 - left, 4 - top), name, font=font, fill=255)
        coverage = np.asarray(canvas, np.float32) / 255.0
        ink = coverage > 0.5
        rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
        if rows.size:
            out.append(coverage[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1])
    return tuple(out)


@lru_cache(maxsize=64)
def fonts_for(name: str) -> tuple[str, ...]:
    """Files of the installed fonts that have every character of ``name``, one per family, in
    fontconfig's order of preference for a sans-serif face (upright faces only)."""
    fc_match, fc_list = shutil.which("fc-match"), shutil.which("fc-list")
    if fc_match is None or fc_list is None:
        log.info("fontconfig (fc-match, fc-list) is not installed: names are not drawn")
        return ()
    charset = " ".join(f"{ord(c):x}" for c in sorted(set(name)) if not c.isspace())
    try:
        covering = set(_lines([fc_list, f":charset={charset}", "file"]))
        ranked = _lines([fc_match, "-s", f"sans-serif:charset={charset}", "-f", "%{file}\\n"])
    except (OSError, subprocess.SubprocessError) as exc:
        log.info("fontconfig failed (%s): names are not drawn", exc)
        return ()
    fonts: list[str] = []
    families: set[str] = set()
    for path in dict.fromkeys(f for f in ranked if f in covering):
        family = path.rsplit("/", 1)[-1].split("-")[0].split(".")[0]
        if family not in families and not any(s in path for s in ("Oblique", "Italic")):
            families.add(family)
            fonts.append(path)
    return tuple(fonts)


def _lines(cmd: list[str]) -> list[str]:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=10, check=False)
    return [ln.strip().rstrip(":").strip() for ln in done.stdout.splitlines() if ln.strip()]
