"""Colours named in a description: 'the red button', 'the green Save button', 'the blue link'.

An element's colours are its fill (the colour most of its box shows) and its ink (the colour
most of the rest shows: its text, its mark); each is named by hue, saturation and brightness
with the basic colour words people use. A description that names a colour keeps only the
candidates whose fill or ink has that name (the fill first), so that 'the red button' is never
a grey one: when no candidate has the colour, nothing is found.
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


def element_colours(rgb: Any, box: Box) -> tuple[str, str | None]:
    """(fill, ink) colour names of ``box`` in the screen ``rgb`` (an array); ink is None when
    the box shows one colour only."""
    import numpy as np

    crop = rgb[max(0, box.top):box.bottom, max(0, box.left):box.right, :3]
    if crop.size == 0:
        return "white", None
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
            return colour_name(fill), colour_name(colour)
    return colour_name(fill), None


def weighed_by_colour(word: str, scored: list[Scored], rgb: Any) -> list[Scored]:
    """The candidates of ``scored`` that show the colour ``word`` names: as their fill at their
    score, as their ink at :data:`INK_FACTOR` of it; the others are dropped."""
    wanted = COLOUR_WORDS[word]
    out = []
    for s in scored:
        fill, ink = element_colours(rgb, s.box)
        if fill in wanted:
            out.append(replace(s, why=f"{s.why}; {word}"))
        elif ink in wanted:
            out.append(replace(s, score=s.score * INK_FACTOR, why=f"{s.why}; {word} ink"))
    return out
