"""Sliders seen from pixels: a thumb on a thin track, horizontal or vertical, and the number
shown beside it (Pillow, two themes, two fonts, two scales)."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.queries import ScreenQueries
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font

FONTS = ("dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf")


def render_slider(horizontal: bool, fraction: float, value: str, theme: str = "light",
                  font_name: str = FONTS[0], scale: float = 1.0) -> tuple[Image.Image, Box]:
    """A slider (track, thumb at ``fraction`` of it) with ``value`` written beside it, and a
    Submit button under it; returns the image and the thumb's box."""
    c = THEMES[theme]
    s = scale
    img = Image.new("RGB", (int(320 * s), int(320 * s)), c["bg"])
    d = ImageDraw.Draw(img)
    thick, side, length = int(10 * s), int(15 * s), int(150 * s)
    x0, y0 = int(30 * s), int(40 * s)
    if horizontal:
        d.rounded_rectangle([x0, y0, x0 + length, y0 + thick], radius=3, fill=c["field"], outline=c["border"])
        cx, cy = x0 + int(fraction * length), y0 + thick // 2
        label = (x0 + length + int(16 * s), y0 - int(3 * s))
    else:
        d.rounded_rectangle([x0, y0, x0 + thick, y0 + length], radius=3, fill=c["field"], outline=c["border"])
        cx, cy = x0 + thick // 2, y0 + length - int(fraction * length)
        label = (x0 + thick + int(14 * s), y0 + length - int(12 * s))
    thumb = Box(cx - side // 2, cy - side // 2, side, side)
    d.rounded_rectangle([thumb.left, thumb.top, thumb.right, thumb.bottom], radius=2, fill=c["face"],
                        outline=c["border"])
    d.text(label, value, fill=c["fg"], font=font(int(18 * s), font_name))
    top = y0 + (thick if horizontal else length) + int(30 * s)
    d.rounded_rectangle([x0, top, x0 + int(120 * s), top + int(36 * s)], radius=4, fill=c["face"],
                        outline=c["border"], width=2)
    d.text((x0 + int(60 * s), top + int(18 * s)), "Submit", fill=c["fg"], font=font(int(15 * s), font_name),
           anchor="mm")
    return img, thumb


# (small light-on-dark numbers at scale 1 are at times missed by OCR itself, which is no
# matter of the slider recogniser: that pair is left out)
@pytest.mark.parametrize(("theme", "scale"), [("light", 1.0), ("light", 2.0), ("dark", 2.0)])
@pytest.mark.parametrize("font_name", FONTS)
@pytest.mark.parametrize("horizontal", [True, False])
def test_a_slider_its_thumb_and_its_value(theme, scale, font_name, horizontal):
    for fraction, value in ((0.3, "37"), (0.0, "-100"), (1.0, "45")):
        img, thumb = render_slider(horizontal, fraction, value, theme, font_name, scale)
        ladder, parser = default_ladder()      # a new screen each time: no incremental parse
        found = ScreenQueries(ladder, parser).slider("the slider", Observation.from_image(img))
        assert found is not None, (fraction, value)
        assert found.horizontal == horizontal
        assert thumb.contains(found.thumb.center), (found, thumb)
        assert found.value == float(value)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("font_name", FONTS)
@pytest.mark.parametrize("horizontal", [True, False])
def test_a_short_value_text_detection_misses_is_read_where_it_is_written(theme, font_name, horizontal):
    """"-4" or "7" beside a slider at its usual size is too short for the text detector: it is
    read directly where a slider's value is written (past its track's end, or beside it)."""
    for fraction, value in ((0.3, "-4"), (0.6, "7")):
        img, _ = render_slider(horizontal, fraction, value, theme, font_name)
        ladder, parser = default_ladder()
        found = ScreenQueries(ladder, parser).slider("the slider", Observation.from_image(img))
        assert found is not None and found.value == float(value), (value, found)


def test_a_button_alone_is_no_slider():
    img = Image.new("RGB", (200, 120), "white")
    d = ImageDraw.Draw(img)
    d.rounded_rectangle([20, 20, 44, 44], radius=2, fill=(230, 230, 230), outline=(120, 120, 120))
    d.text((60, 24), "12", fill="black", font=font(15))
    ladder, parser = default_ladder()
    assert ScreenQueries(ladder, parser).slider("the slider", Observation.from_image(img)) is None


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("read_as", ["口:", "6"])
def test_a_focused_thumb_read_as_two_glyphs_is_still_a_thumb(theme, read_as):
    # at its track's end a focused thumb (a thick ring) and a speck beside it were read as one
    # text of two glyphs ("口:"), or with a piece of its track as a digit ("6", never a thumb
    # by itself): neither a captionless face nor a one-glyph outline
    import numpy as np

    from gui_agent.parsing.elements import Element, ElementKind, ScreenParse
    from gui_agent.parsing.sliders import find_sliders

    c = THEMES[theme]
    img, thumb = render_slider(True, 1.0, "8", theme, scale=2.0)
    d = ImageDraw.Draw(img)
    d.rounded_rectangle([thumb.left - 3, thumb.top - 3, thumb.right + 3, thumb.bottom + 3], radius=4,
                        outline=c["fg"], width=3)
    gray = np.asarray(img.convert("L"))
    glyphs = Element(ElementKind.TEXT, Box(thumb.left - 6, thumb.top - 6, thumb.width + 22, thumb.height + 12),
                     read_as, 0.6, "ocr")
    value = Element(ElementKind.TEXT, Box(thumb.right + 40, thumb.top, 16, 20), "8", 0.99, "ocr")
    found = find_sliders(ScreenParse((glyphs, value), img.width, img.height), gray)
    assert any(f.thumb.contains(thumb.center) and f.horizontal and f.value == 8.0 and f.track.width > 4 * thumb.width
               for f in found), (found, thumb)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("focused", [False, True])
def test_a_value_text_detection_missed_is_read_where_the_others_are(theme, focused):
    # three sliders, each value written under its track, midway to the next track: with the
    # 2nd value ("1") missed by text detection, "above" gives as many tracks a number as
    # "below" does (the 12 above the 2nd track, the 1 above the 3rd) and the sliders showed
    # 12, 1 and nothing. The missing one is read where the others' values sit: below wins.
    # Focused, the thumb's ring is drawn outside the box the detector gave and touches the
    # "1", and OCR reads the 3rd track's end as a field showing "0": neither is a value.
    import numpy as np

    from gui_agent.parsing.elements import Element, ElementKind, ScreenParse
    from gui_agent.parsing.screen_parser import ScreenParser
    from gui_agent.parsing.sliders import find_sliders

    c = THEMES[theme]
    img = Image.new("RGB", (330, 260), c["bg"])
    d = ImageDraw.Draw(img)
    thumbs, texts, places = [], [], []
    for k, (x, value) in enumerate(((190, "12"), (30, "1"), (270, "18"))):
        top = 40 + 48 * k
        d.rounded_rectangle([20, top, 300, top + 20], radius=4, fill=c["field"], outline=c["border"])
        d.rounded_rectangle([x - 14, top - 4, x + 14, top + 24], radius=3, fill=c["face"], outline=c["border"])
        thumbs.append(Box(x - 14, top - 4, 29, 29))
        below = top + 26
        if focused and k == 1:          # the detector boxes the face inside the ring
            d.rounded_rectangle([x - 16, top - 6, x + 16, top + 26], radius=5, outline=c["fg"], width=3)
            thumbs[-1] = Box(x - 13, top - 3, 27, 27)
            below = top + 27
        d.text((22, below), value, fill=c["fg"], font=font(18), anchor="lt")
        texts.append(Element(ElementKind.TEXT, Box(21, top + 25, 11 * len(value), 21), value, 0.99, "ocr"))
    gray = np.asarray(img.convert("L"))
    elements = tuple(Element(ElementKind.BUTTON, t, "", 0.9, "detector") for t in thumbs) + (texts[0], texts[2])
    if focused:
        elements += (Element(ElementKind.TEXT_FIELD, Box(18, 136, 280, 21), "0", 0.6, "ocr"),)
    parser = ScreenParser()

    def read(place: Box) -> str | None:
        places.append(place)
        return parser.read_text(img, place.clip(img.width, img.height))

    found = sorted(find_sliders(ScreenParse(elements, img.width, img.height), gray, read), key=lambda s: s.track.top)
    assert [f.value for f in found] == [12.0, 1.0, 18.0], found
    assert places, "the missing value was read"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_thumbs_outline_takes_in_its_focus_ring_not_the_text_it_touches(theme):
    # the detector boxed the face inside a focused thumb's ring: the place of a value under it
    # began inside the ring, whose row was read with the "1" touching it
    import numpy as np

    from gui_agent.parsing.sliders import _outline_of

    c = THEMES[theme]
    img = Image.new("RGB", (120, 100), c["bg"])
    d = ImageDraw.Draw(img)
    d.rounded_rectangle([30, 20, 62, 52], radius=5, fill=c["face"], outline=c["fg"], width=3)
    d.text((32, 53), "1", fill=c["fg"], font=font(18), anchor="lt")      # touching the ring
    outline = _outline_of(np.asarray(img.convert("L")), Box(33, 23, 27, 27))
    assert (outline.left, outline.top, outline.right, outline.bottom) == (30, 20, 63, 53), outline
