"""Which of a screen's sliders a description names.

'the slider' is the screen's one slider; with several, the description must say which: by
count in reading order ('the 2nd slider', 'the last slider': side-by-side vertical sliders
left to right, stacked horizontal ones top to bottom), by side ('the left slider', 'the
bottom slider'), or by the label written nearest to it ('the volume slider', 'the slider
labeled "Bass"'). A description that fits none, or several equally, names none: the worker
then says it cannot find the slider instead of moving another one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..parsing.elements import Element
from ..parsing.reading_order import reading_order
from ..parsing.sliders import Slider
from .description import parse_description

SLIDER_NOUNS = frozenset({"slider", "sliders", "range", "scale", "trackbar", "track", "bar", "control"})
_LINKING = frozenset({"for", "labeled", "labelled", "named", "called", "marked", "titled", "of", "with",
                      "label", "the", "a", "an"})
# side words -> (the axis the sliders are ordered along: 0 x, 1 y; which end)
_SIDES = {"left": (0, 0), "leftmost": (0, 0), "right": (0, -1), "rightmost": (0, -1),
          "top": (1, 0), "topmost": (1, 0), "upper": (1, 0), "bottom": (1, -1),
          "bottommost": (1, -1), "lower": (1, -1)}
SAME_PLACE = 4     # px: tracks closer than this along the side's axis are side by side the other way
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def described_slider(sliders: Sequence[Slider], description: str, texts: Sequence[Element]) -> Slider | None:
    """The slider ``description`` names among ``sliders`` (``texts``: the screen's texts, for
    labels); None when it names none of them or cannot tell which."""
    if not sliders:
        return None
    query = parse_description(description)
    words = [w for w in _WORD.findall(query.text.lower()) if w not in SLIDER_NOUNS and w not in _LINKING]
    ordered = reading_order(list(sliders), lambda s: s.track)
    if query.ordinal is not None:
        index = query.ordinal - 1 if query.ordinal > 0 else len(ordered) + query.ordinal
        return ordered[index] if 0 <= index < len(ordered) else None
    if len(words) == 1 and words[0] in _SIDES:
        axis, end = _SIDES[words[0]]
        along = sorted(ordered, key=lambda s: _at(s, axis))
        beside = along[1 if end == 0 else -2] if len(along) > 1 else None
        if beside is not None and abs(_at(beside, axis) - _at(along[end], axis)) < SAME_PLACE:
            return None                       # 'the left slider' of sliders stacked one above another
        return along[end]
    if words:
        return _labelled(ordered, words, texts)
    return ordered[0] if len(ordered) == 1 else None


def _labelled(sliders: Sequence[Slider], words: list[str], texts: Sequence[Element]) -> Slider | None:
    """The slider nearest to a text that holds every one of ``words`` (a label); the label must
    be nearer to it than to any other slider."""
    labels = [e for e in texts if set(words) <= set(_WORD.findall(e.text.lower()))]
    best: tuple[float, Slider] | None = None
    for label in labels:
        by_distance = sorted(sliders, key=lambda s: s.track.distance(label.box))
        nearest = by_distance[0]
        d = nearest.track.distance(label.box)
        if len(by_distance) > 1 and by_distance[1].track.distance(label.box) <= d:
            continue                          # halfway between two sliders: no one's label
        if best is None or d < best[0]:
            best = (d, nearest)
    return best[1] if best is not None else None


def _at(slider: Slider, axis: int) -> int:
    centre = slider.track.center
    return centre.x if axis == 0 else centre.y
