"""The icon catalogue: every glyph of the icon fonts installed on the system, with its names.

Web pages and applications draw their caption-less buttons (reply, a heart, a trash can) from a
few icon sets; Debian ships two of them as fonts with their name tables (Font Awesome and
Google's Material icons, installed by the installer). Each glyph is rendered once per process
and reduced to a shape (:func:`shape_vector`), so that an icon on screen can be named by the
glyph it looks like (:mod:`.named_icons`). The words people use for an icon that its font does
not name ("like" for a heart, "delete" for a trash can) are data, in ``icon_words.yaml``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SIDE = 24                 # px: the square a shape is drawn into
_RENDER_PX = 48           # px: the size each glyph is rendered at
_SHARE = Path("/usr/share")


@dataclass(frozen=True)
class IconFont:
    """An icon font and the style sheet that names its glyphs (class name -> code point)."""
    font: Path
    names: Path
    pattern: str          # a regular expression with the groups (selector text, hex code point)
    prefix: str           # the class-name prefix of one glyph's name


FONTS = (
    IconFont(_SHARE / "fonts/truetype/font-awesome/fontawesome-webfont.ttf",
             _SHARE / "fonts-font-awesome/css/font-awesome.css",
             r'((?:\.fa-[\w-]+:before,?\s*)+)\{\s*content:\s*"\\(\w+)"', r"\.fa-([\w-]+):before"),
    IconFont(_SHARE / "fonts/truetype/material-design-icons-iconfont/MaterialIcons-Regular.ttf",
             _SHARE / "fonts-material-design-icons-iconfont/css/material-design-icons.css",
             r'((?:\.material-icons\.\w+:before,?\s*)+)\{\s*content:\s*"\\(\w+)"',
             r"\.material-icons\.(\w+):before"),
)
PACKAGES = "fonts-font-awesome fonts-material-design-icons-iconfont"


@dataclass(frozen=True)
class Catalogue:
    shapes: np.ndarray                 # one row per glyph: its shape_vector
    aspects: np.ndarray                # width / height of each glyph's ink
    names: tuple[tuple[str, ...], ...]  # each glyph's names, as words ("mail reply")

    def __len__(self) -> int:
        return len(self.names)


def shape_vector(ink: np.ndarray) -> tuple[np.ndarray, float] | None:
    """A shape's ink (0..1, any size) cut to its extent, fitted into a SIDE-pixel square
    keeping its proportions, blurred, zero-mean and of unit length; and its width/height.
    None for a shape with no ink or flat ink."""
    import cv2

    ys, xs = np.nonzero(ink > 0.25)
    if ys.size == 0:
        return None
    cut = ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32)
    h, w = cut.shape
    scale = (SIDE - 2) / max(h, w)
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    fitted = cv2.resize(cut, size, interpolation=cv2.INTER_AREA)
    square = np.zeros((SIDE, SIDE), np.float32)
    y, x = (SIDE - size[1]) // 2, (SIDE - size[0]) // 2
    square[y:y + size[1], x:x + size[0]] = fitted
    square = cv2.GaussianBlur(square, (3, 3), 0.8).ravel()
    square -= square.mean()
    norm = float(np.linalg.norm(square))
    return (square / norm, w / h) if norm > 1e-6 else None


def _glyph_names(font: IconFont) -> dict[int, list[str]]:
    names: dict[int, list[str]] = {}
    for selectors, code in re.findall(font.pattern, font.names.read_text(encoding="utf-8")):
        for name in re.findall(font.prefix, selectors):
            names.setdefault(int(code, 16), []).append(re.sub(r"[-_]+", " ", name).strip())
    return names


@functools.cache
def catalogue() -> Catalogue:
    """Every glyph of the installed icon fonts (empty when none is installed)."""
    from PIL import Image, ImageDraw, ImageFont

    shapes: list[np.ndarray] = []
    aspects: list[float] = []
    names: list[tuple[str, ...]] = []
    for font in FONTS:
        if not (font.font.is_file() and font.names.is_file()):
            continue
        face = ImageFont.truetype(str(font.font), _RENDER_PX)
        for code, glyph_names in _glyph_names(font).items():
            canvas = Image.new("L", (2 * _RENDER_PX, 2 * _RENDER_PX), 0)
            ImageDraw.Draw(canvas).text((_RENDER_PX // 4, _RENDER_PX // 4), chr(code), font=face, fill=255)
            shape = shape_vector(np.asarray(canvas, dtype=np.float32) / 255.0)
            if shape is not None:
                shapes.append(shape[0])
                aspects.append(shape[1])
                names.append(tuple(dict.fromkeys(glyph_names)))
    if not shapes:
        return Catalogue(np.zeros((0, SIDE * SIDE), np.float32), np.zeros(0), ())
    return Catalogue(np.stack(shapes), np.array(aspects, dtype=np.float32), tuple(names))


@functools.cache
def _words_data() -> tuple[frozenset[str], dict[str, tuple[str, ...]]]:
    import yaml

    data = yaml.safe_load(Path(__file__).with_name("icon_words.yaml").read_text(encoding="utf-8"))
    also = {re.sub(r"[-_ ]+", " ", str(k)): tuple(str(w) for w in v)
            for k, v in data["also_called"].items()}
    return frozenset(str(w) for w in data["style_words"]), also


def words_for(names: tuple[str, ...]) -> tuple[str, ...]:
    """Everything an icon with these glyph names may be called: the names, each without its
    trailing style words ("trash o" -> "trash"), and their other names from icon_words.yaml."""
    style, also = _words_data()
    out: dict[str, None] = {}
    for name in names:
        words = name.split()
        while len(words) > 1 and words[-1] in style:
            words = words[:-1]
        for n in (name, " ".join(words)):
            out[n] = None
            out.update(dict.fromkeys(also.get(n, ())))
    return tuple(out)
