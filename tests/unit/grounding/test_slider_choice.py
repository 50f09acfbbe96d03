"""Several sliders on one screen: the one a description names, by count in reading order, by
side, or by the label beside it (Pillow, two themes, two fonts); 'the slider' names none of
several, and a label no slider has names none."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.queries import ScreenQueries
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font

FONTS = ("dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf")


def _slider(d: ImageDraw.ImageDraw, c: dict, horizontal: bool, x0: int, y0: int, fraction: float,
            length: int = 240, thick: int = 16, side: int = 28) -> Box:
    if horizontal:
        d.rounded_rectangle([x0, y0, x0 + length, y0 + thick], radius=4, fill=c["field"], outline=c["border"])
        cx, cy = x0 + int(fraction * length), y0 + thick // 2
    else:
        d.rounded_rectangle([x0, y0, x0 + thick, y0 + length], radius=4, fill=c["field"], outline=c["border"])
        cx, cy = x0 + thick // 2, y0 + length - int(fraction * length)
    thumb = Box(cx - side // 2, cy - side // 2, side, side)
    d.rounded_rectangle([thumb.left, thumb.top, thumb.right, thumb.bottom], radius=3, fill=c["face"],
                        outline=c["border"])
    return thumb


def side_by_side(values: tuple[str, ...], theme: str, font_name: str) -> tuple[Image.Image, list[Box]]:
    """Vertical sliders side by side, each with its value written above it, thumbs at
    different heights, and a Submit button below."""
    c = THEMES[theme]
    img = Image.new("RGB", (640, 520), c["bg"])
    d = ImageDraw.Draw(img)
    thumbs = []
    for k, value in enumerate(values):
        x0 = 80 + 140 * k
        d.text((x0 + 8, 50), value, fill=c["fg"], font=font(30, font_name), anchor="mm")
        thumbs.append(_slider(d, c, False, x0, 90, (0.2, 0.7, 0.45, 0.9)[k % 4]))
    d.rounded_rectangle([80, 400, 280, 460], radius=6, fill=c["face"], outline=c["border"], width=2)
    d.text((180, 430), "Submit", fill=c["fg"], font=font(28, font_name), anchor="mm")
    return img, thumbs


def stacked(labels: tuple[str, ...], values: tuple[str, ...], theme: str, font_name: str
            ) -> tuple[Image.Image, list[Box]]:
    """Horizontal sliders one above another, a label left of each and its value right of it."""
    c = THEMES[theme]
    img = Image.new("RGB", (720, 120 + 110 * len(labels)), c["bg"])
    d = ImageDraw.Draw(img)
    thumbs = []
    for k, (label, value) in enumerate(zip(labels, values, strict=True)):
        y0 = 70 + 110 * k
        d.text((40, y0 + 8), label, fill=c["fg"], font=font(28, font_name), anchor="lm")
        thumbs.append(_slider(d, c, True, 220, y0, (0.3, 0.8, 0.55)[k % 3]))
        d.text((500, y0 + 8), value, fill=c["fg"], font=font(28, font_name), anchor="lm")
    return img, thumbs


def _asker(img: Image.Image):
    """Asks one screen for sliders by description (one parser: the screen is parsed once)."""
    ladder, parser = default_ladder()
    queries, obs = ScreenQueries(ladder, parser), Observation.from_image(img)
    return lambda description: queries.slider(description, obs)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
def test_sliders_side_by_side_are_counted_left_to_right(theme, font_name):
    img, thumbs = side_by_side(("12", "3", "18"), theme, font_name)
    _ask = _asker(img)
    for description, k, value in (("the 1st slider", 0, 12), ("the second slider", 1, 3),
                                  ("the 3rd slider", 2, 18), ("the last slider", 2, 18),
                                  ("the left slider", 0, 12), ("the rightmost slider", 2, 18)):
        found = _ask(description)
        assert found is not None, description
        assert thumbs[k].contains(found.thumb.center) and not found.horizontal, (description, found)
        assert found.value == value, (description, found)
    assert _ask("the slider") is None          # one of three: which?
    assert _ask("the 4th slider") is None
    assert _ask("the top slider") is None      # side by side: none is on top


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
def test_stacked_sliders_are_named_by_their_labels(theme, font_name):
    img, thumbs = stacked(("Volume", "Bass", "Treble"), ("40", "7", "65"), theme, font_name)
    _ask = _asker(img)
    for description, k, value in (("the Volume slider", 0, 40), ("the bass slider", 1, 7),
                                  ('the slider labeled "Treble"', 2, 65), ("the slider for Bass", 1, 7),
                                  ("the 2nd slider", 1, 7), ("the bottom slider", 2, 65)):
        found = _ask(description)
        assert found is not None, description
        assert thumbs[k].contains(found.thumb.center) and found.horizontal, (description, found)
        assert found.value == value, (description, found)
    assert _ask("the Balance slider") is None   # no such label: never another slider
    assert _ask("the left slider") is None      # stacked: none is the left one


def test_one_slider_is_the_slider_and_named_by_its_side_or_count():
    img, thumbs = side_by_side(("9",), "light", FONTS[0])
    _ask = _asker(img)
    for description in ("the slider", "the 1st slider", "the left slider", "the last slider"):
        found = _ask(description)
        assert found is not None and thumbs[0].contains(found.thumb.center), description


def tight_stack(values: tuple[str, ...], theme: str, font_name: str, above: bool = False
                ) -> tuple[Image.Image, list[Box]]:
    """Horizontal sliders close one under another, each value written at its track's left end
    on the side given (under it, or above it): a value is about as near the next track as its
    own, so only the layout (every value on the same side) tells whose it is."""
    c = THEMES[theme]
    img = Image.new("RGB", (340, 60 + 44 * len(values) + 80), c["bg"])
    d = ImageDraw.Draw(img)
    thumbs = []
    for k, value in enumerate(values):
        y0 = 70 + 44 * k
        thumbs.append(_slider(d, c, True, 20, y0, (0.3, 0.6, 0.45)[k % 3], length=280, thick=18, side=28))
        d.text((22, y0 - 6 if above else y0 + 20), value, fill=c["fg"], font=font(19, font_name),
               anchor="lb" if above else "lt")
    return img, thumbs


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
@pytest.mark.parametrize("above", [False, True])
def test_tightly_stacked_values_belong_by_the_side_they_all_share(theme, font_name, above):
    img, thumbs = tight_stack(("6", "5", "3"), theme, font_name, above)
    _ask = _asker(img)
    for k, value in enumerate((6, 5, 3)):
        found = _ask(f"the {('1st', '2nd', '3rd')[k]} slider")
        assert found is not None and thumbs[k].contains(found.thumb.center), k
        assert found.value == value, (k, found)
