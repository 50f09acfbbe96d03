"""Colours named in a description: 'the red button', 'the green Save button', 'the blue link'.

An element's colours are its fill (the colour most of its box shows) and its ink (the colour
most of the rest shows: its text, its mark); each is named by hue, saturation and brightness
with the basic colour words people use. A description that names a colour keeps only the
candidates whose fill or ink has that name (the fill first), so that 'the red button' is never
a grey one: when no candidate has the colour, nothing is found. Of several shades of it, the
plainest (most saturated and bright) is the one meant.
"""

from __future__ import annotations

import colorsys
from dataclasses import replace
from typing import Any

from ..geometry import Box
from .description import COLOUR_WORDS
from .scored import Scored

INK_FACTOR = 0.9          # a candidate whose ink, not its fill, has the colour
MIN_INK_SHARE = 0.04      # of the box's pixels, for a second colour to count as its ink
SHADE_POWER = 3           # how sharply a less plain shade of the colour asked for is priced down
_HUES = ((15, "red"), (40, "orange"), (70, "yellow"), (165, "green"), (195, "cyan"),
         (255, "blue"), (290, "purple"), (335, "magenta"), (360, "red"))


def colour_name(rgb: tuple[int, int, int]) -> str:
    """The basic colour word for one colour: black, white and grey by brightness when it is
    hardly saturated; else by hue (brown: a dark orange or red; pink: a pale red or magenta)."""
    h, s, v = colorsys.rgb_to_hsv(*(c / 255 for c in rgb))
    if v < 0.2:
        return "black"
    if s < 0.18:
        return "white" if v > 0.94 else "grey"
    degrees = h * 360
    name = next(n for limit, n in _HUES if degrees < limit)
    if name in ("orange", "red") and v < 0.65 and degrees >= 10:
        return "brown"
    if name in ("red", "magenta") and s < 0.45 and v > 0.8:
        return "pink"
    return "purple" if name == "magenta" and v < 0.6 else name


def element_colours(rgb: Any, box: Box) -> tuple[tuple[int, int, int], tuple[int, int, int] | None]:
    """(fill, ink) colours of ``box`` in the screen ``rgb`` (an array); ink is None when the box
    shows one colour only."""
    import numpy as np

    crop = rgb[max(0, box.top):box.bottom, max(0, box.left):box.right, :3]
    if crop.size == 0:
        return (255, 255, 255), None
    pixels = crop.reshape(-1, 3).astype(np.int32)
    quantised = pixels // 16
    keys = quantised[:, 0] * 256 + quantised[:, 1] * 16 + quantised[:, 2]
    values, counts = np.unique(keys, return_counts=True)
    order = np.argsort(-counts)

    def mean_of(index: int) -> tuple[int, int, int]:    # the colour of one bin's pixels
        r, g, b = pixels[keys == values[index]].mean(axis=0)
        return round(r), round(g), round(b)

    fill = mean_of(int(order[0]))
    for index in order[1:]:
        if counts[index] < MIN_INK_SHARE * len(keys):
            break
        colour = mean_of(int(index))
        if max(abs(a - b) for a, b in zip(colour, fill, strict=True)) > 64:
            return fill, colour
    return fill, None


def typicality(rgb: tuple[int, int, int]) -> float:
    """How plainly a colour is what its name says, 0..1: full saturation and brightness are 1;
    a pale or a dark shade of it less ('red' is #e60000 sooner than #f06666 or #a10000)."""
    _, s, v = colorsys.rgb_to_hsv(*(c / 255 for c in rgb))
    if colour_name(rgb) in ("black", "white", "grey"):
        return 1.0
    return max(0.05, 1.0 - 0.5 * (1.0 - s) - max(0.0, 0.9 - v))


def weighed_by_colour(word: str, scored: list[Scored], rgb: Any) -> list[Scored]:
    """The candidates of ``scored`` that show the colour ``word`` names: as their fill at their
    score, as their ink at :data:`INK_FACTOR` of it; the others are dropped. Of several shades
    of the colour (a palette's swatches) the plainest is the one meant: each is priced by how
    plainly it shows the colour next to the plainest ((t / t_best) ** SHADE_POWER)."""
    wanted = COLOUR_WORDS[word]
    kept: list[tuple[Scored, float]] = []
    for s in scored:
        fill, ink = element_colours(rgb, s.box)
        if colour_name(fill) in wanted:
            kept.append((replace(s, why=f"{s.why}; {word}"), typicality(fill)))
        elif ink is not None and colour_name(ink) in wanted:
            kept.append((replace(s, score=s.score * INK_FACTOR, why=f"{s.why}; {word} ink"), typicality(ink)))
    plainest = max((t for _, t in kept), default=1.0)
    return [replace(s, score=s.score * (t / plainest) ** SHADE_POWER) if t < plainest else s for s, t in kept]
