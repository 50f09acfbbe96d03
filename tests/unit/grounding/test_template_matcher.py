"""TemplateMatcher on synthetic Pillow screens: a dialog drawn at a scale, a window offset, a theme."""

from __future__ import annotations

import logging
import re
import time

import pytest
from PIL import Image, ImageDraw, ImageFont, ImageOps

from gui_agent.errors import AmbiguousTarget, ConfigError, TargetNotFound
from gui_agent.geometry import Box
from gui_agent.grounding.candidate import Candidate
from gui_agent.grounding.template import SOURCE_ANYWHERE, SOURCE_NEAR, TemplateMatcher
from gui_agent.memory.anchors import crop_around

log = logging.getLogger(__name__)
SIZE = (1280, 800)
BUTTONS = ("OK", "Cancel", "Save", "Apply", "Help")
FIELDS = (("Name", "Ann Smith"), ("Email", ""), ("City", "Paris"))


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:
        return ImageFont.load_default(size)


def dialog(scale: float = 1.0, offset: tuple[int, int] = (0, 0), omit: tuple[str, ...] = (),
           twins: bool = False, values: dict[str, str] | None = None) -> tuple[Image.Image, dict[str, Box]]:
    """A settings dialog drawn at ``scale`` (font, sizes, positions), its window moved by ``offset``.

    Returns the screenshot and each element's box ("Save 2" for the twin). ``twins`` adds a second
    "Save" button far from the first; ``values`` overrides the fields' texts ("" leaves one empty).
    """
    img = Image.new("RGB", SIZE, (236, 236, 236))
    d = ImageDraw.Draw(img)
    font = _font(round(14 * scale))
    ox, oy = offset

    def s(v: float) -> int:
        return round(v * scale)

    boxes: dict[str, Box] = {}
    wx, wy = ox + s(80), oy + s(90)
    d.rectangle((wx, wy, wx + s(720), wy + s(460)), fill=(250, 250, 250), outline=(120, 120, 120))
    d.rectangle((wx, wy, wx + s(720), wy + s(30)), fill=(60, 90, 160))
    d.text((wx + s(12), wy + s(7)), "Preferences - Example Application", fill=(255, 255, 255), font=font)
    d.text((wx + s(30), wy + s(50)), "Change your details, then Save or Apply them.", fill=(20, 20, 20), font=font)
    for i, (label, value) in enumerate((label, (values or {}).get(label, value)) for label, value in FIELDS):
        y = wy + s(90 + i * 40)
        d.text((wx + s(30), y + s(4)), label, fill=(30, 30, 30), font=font)
        x = wx + s(130)
        d.rectangle((x, y, x + s(220), y + s(26)), fill=(255, 255, 255), outline=(140, 140, 140))
        if value:
            d.text((x + s(6), y + s(5)), value, fill=(0, 0, 0), font=font)
        boxes[label] = Box(x, y, s(220) + 1, s(26) + 1)
    bx, by = wx + s(130), wy + s(230)
    d.rectangle((bx, by, bx + s(14), by + s(14)), fill=(255, 255, 255), outline=(90, 90, 90))
    d.line((bx + s(3), by + s(7), bx + s(6), by + s(11), bx + s(11), by + s(3)), fill=(20, 20, 20), width=max(1, s(2)))
    d.text((bx + s(22), by), "Remember me", fill=(20, 20, 20), font=font)
    boxes["Remember me"] = Box(bx, by, s(14) + 1, s(14) + 1)
    spots = [(name, wx + s(30 + i * 130), wy + s(400)) for i, name in enumerate(BUTTONS) if name not in omit]
    if twins:
        spots.append(("Save 2", wx + s(500), wy + s(260)))
    for name, x, y in spots:
        text = name.split()[0]
        d.rounded_rectangle((x, y, x + s(104), y + s(28)), radius=s(4), fill=(225, 225, 232), outline=(100, 100, 110))
        d.text((x + (s(104) - d.textlength(text, font=font)) / 2, y + s(6)), text, fill=(0, 0, 0), font=font)
        boxes[name] = Box(x, y, s(104) + 1, s(28) + 1)
    return img, boxes


@pytest.fixture(scope="module")
def learned() -> tuple[Image.Image, dict[str, Box]]:
    return dialog()


def _crop(learned: tuple[Image.Image, dict[str, Box]], name: str) -> tuple[Image.Image, Box]:
    img, boxes = learned
    return crop_around(img, boxes[name]), boxes[name]


def _centre_near(found: Box, truth: Box, tol: int = 3) -> bool:
    return abs(found.center.x - truth.center.x) <= tol and abs(found.center.y - truth.center.y) <= tol


def _inside(found: Box, truth: Box) -> bool:
    return truth.contains(found.center)


def _scale(found: Candidate) -> float:
    match = re.search(r"at scale ([0-9.]+)", found.why)
    assert match, found.why
    return float(match.group(1))


# -- near the learned place ---------------------------------------------------------------------

@pytest.mark.parametrize("name", ["Save", "Name", "Email", "Remember me"])
def test_found_at_the_learned_place(learned, name):
    crop, box = _crop(learned, name)
    found = TemplateMatcher().find(learned[0], crop, expected=box)
    assert found.source == SOURCE_NEAR and "near the learned place" in found.why
    assert found.score > 0.95 and _centre_near(found.box, box, tol=1)
    assert (found.box.width, found.box.height) == crop.size   # the matched area: the crop at scale 1


def test_window_moved_with_the_right_shift_is_found_near(learned):
    crop, box = _crop(learned, "Save")
    moved, boxes = dialog(offset=(137, -61))
    found = TemplateMatcher().find(moved, crop, expected=box, shift=(137, -61))
    assert found.source == SOURCE_NEAR and _centre_near(found.box, boxes["Save"], tol=1)


@pytest.mark.parametrize("name", ["Save", "City", "Remember me"])
def test_window_moved_without_the_shift_is_found_anywhere(learned, name):
    crop, box = _crop(learned, name)
    moved, boxes = dialog(offset=(137, -61))
    found = TemplateMatcher().find(moved, crop, expected=box)
    assert found.source == SOURCE_ANYWHERE and "scale 1.00" in found.why
    assert _centre_near(found.box, boxes[name], tol=1) and (found.box.width, found.box.height) == crop.size


def test_the_neighbour_now_at_the_learned_place_is_not_taken(learned):
    """The dialog moved by one button pitch: "Cancel" now sits where "Save" was learned."""
    crop, box = _crop(learned, "Save")
    moved, boxes = dialog(offset=(130, 0))
    assert boxes["Cancel"] == box
    found = TemplateMatcher().find(moved, crop, expected=box)
    assert found.source == SOURCE_ANYWHERE and _centre_near(found.box, boxes["Save"], tol=1)


def test_stacked_identical_empty_fields_resolve_to_the_closest():
    """Two empty fields 40 px apart: the near search takes the one at the learned place, even after
    the window moved a little (no shift known), instead of calling them ambiguous."""
    screen, boxes = dialog(values={"Name": ""})
    assert boxes["Email"].top - boxes["Name"].top == 40
    matcher = TemplateMatcher()
    for name in ("Email", "Name"):
        crop = crop_around(screen, boxes[name])
        assert _centre_near(matcher.find(screen, crop, expected=boxes[name]).box, boxes[name], tol=1)
        moved, moved_boxes = dialog(offset=(6, 12), values={"Name": ""})
        found = matcher.find(moved, crop, expected=boxes[name])
        assert found.source == SOURCE_NEAR and _centre_near(found.box, moved_boxes[name], tol=1)
    with pytest.raises(AmbiguousTarget) as err:   # without a learned place they are two equal fields
        matcher.find(screen, crop_around(screen, boxes["Email"]))
    assert {c.box.center.y for c in err.value.candidates} >= {boxes["Name"].center.y, boxes["Email"].center.y}


# -- anywhere, at another scale -----------------------------------------------------------------

@pytest.mark.parametrize("scale", [1.25, 1.5])
@pytest.mark.parametrize("name", ["Save", "Cancel", "Name", "Remember me"])
def test_found_on_a_screen_rendered_larger(learned, name, scale):
    crop, box = _crop(learned, name)
    screen, boxes = dialog(scale)   # drawn again with a bigger font and sizes, not a resized image
    found = TemplateMatcher().find(screen, crop, expected=box)
    assert found.source == SOURCE_ANYWHERE and _scale(found) == pytest.approx(scale, rel=0.05)
    assert _inside(found.box, boxes[name]) and found.score >= 0.85
    assert found.box.width == pytest.approx(crop.width * scale, rel=0.05)
    assert found.box.height == pytest.approx(crop.height * scale, rel=0.1)


def test_found_on_a_screen_rendered_smaller():
    """Learned at 150 %, replayed at 100 %."""
    big, big_boxes = dialog(1.5)
    screen, boxes = dialog()
    for name in ("Save", "City"):
        found = TemplateMatcher().find(screen, crop_around(big, big_boxes[name]))
        assert _inside(found.box, boxes[name]) and _scale(found) == pytest.approx(1 / 1.5, rel=0.05)


# -- not there, or not sure ---------------------------------------------------------------------

@pytest.mark.parametrize("with_expected", [True, False])
def test_absent_target_is_not_found(learned, with_expected):
    crop, box = _crop(learned, "Save")
    screen, _ = dialog(omit=("Save",))
    with pytest.raises(TargetNotFound) as err:
        TemplateMatcher().find(screen, crop, expected=box if with_expected else None, description="the Save button")
    assert "Save button" in str(err.value) and "best score" in str(err.value)
    assert ("near the learned place" in str(err.value)) is with_expected


@pytest.mark.parametrize("scale", [1.0, 1.25])
@pytest.mark.parametrize("name, other", [("Save", "Help"), ("Help", "Save"), ("Apply", "Save")])
def test_a_same_shaped_button_with_other_text_is_never_taken(learned, name, other, scale):
    """Only one button is left on the screen, the same shape as the learned one: its border alone scores
    about 0.88 (blurred), so only the part-by-part check of the text tells them apart."""
    crop, box = _crop(learned, name)
    screen, _ = dialog(scale, omit=tuple(b for b in BUTTONS if b != other))
    for expected in (box, None):
        with pytest.raises(TargetNotFound):
            TemplateMatcher().find(screen, crop, expected=expected)


def test_identical_buttons_far_apart_are_ambiguous_without_a_learned_place():
    screen, boxes = dialog(twins=True)
    crop = crop_around(screen, boxes["Save"])
    with pytest.raises(AmbiguousTarget) as err:
        TemplateMatcher().find(screen, crop)
    centres = sorted((c.box.center.x, c.box.center.y) for c in err.value.candidates)
    assert len(centres) == 2 and all(c.source == SOURCE_ANYWHERE for c in err.value.candidates)
    assert _inside(Box(*centres[0], 1, 1), boxes["Save"]) and _inside(Box(*centres[1], 1, 1), boxes["Save 2"])
    found = TemplateMatcher().find(screen, crop, expected=boxes["Save 2"])   # the learned place decides
    assert found.source == SOURCE_NEAR and _centre_near(found.box, boxes["Save 2"], tol=1)


def test_flat_crops(learned):
    img, boxes = learned
    crop = crop_around(img, boxes["Email"])   # an empty field: a border and nothing inside
    matcher = TemplateMatcher()
    found = matcher.find(img, crop)           # the only empty field of that size: unique by a wide margin
    assert found.source == SOURCE_ANYWHERE and _centre_near(found.box, boxes["Email"], tol=1)
    similar, _ = dialog(values={"City": ""})  # another empty field: weak evidence, never a guess
    with pytest.raises(AmbiguousTarget):
        matcher.find(similar, crop)
    with pytest.raises(TargetNotFound, match="single flat colour"):
        matcher.find(img, Image.new("RGB", (120, 30), (250, 250, 250)), expected=boxes["Email"])


@pytest.mark.parametrize("name", ["Save", "Apply", "Name", "Email", "Remember me"])
def test_dark_theme_is_never_a_wrong_match(learned, name):
    """Inverted colours need not match (the OCR rung handles themes), but must not hit another element."""
    crop, box = _crop(learned, name)
    dark = ImageOps.invert(learned[0])
    for expected in (box, None):
        try:
            found = TemplateMatcher().find(dark, crop, expected=expected)
        except (TargetNotFound, AmbiguousTarget):
            continue
        assert _inside(found.box, box)


def test_bad_input():
    with pytest.raises(ConfigError):
        TemplateMatcher(threshold=0)
    with pytest.raises(ConfigError):
        TemplateMatcher(near_radius=-1)
    with pytest.raises(ConfigError):
        TemplateMatcher(scales=())
    small = Image.new("RGB", (80, 40), "white")
    with pytest.raises(TargetNotFound, match="larger than the screenshot"):
        TemplateMatcher().find(small, Image.effect_noise((200, 60), 40))
    with pytest.raises(TargetNotFound, match="too small"):
        TemplateMatcher().find(small, Image.effect_noise((3, 3), 40))


def test_speed_is_logged(learned):
    """A 1280x800 screenshot and a 120x30 crop. Timings are noisy: logged, never asserted."""
    img, boxes = learned
    b = boxes["Save"]
    box = Box(b.left - 4, b.top, 112, 22)
    crop = img.crop((box.left - 4, box.top - 4, box.right + 4, box.bottom + 4))
    assert crop.size == (120, 30) and img.size == SIZE
    moved, _ = dialog(offset=(137, -61))
    matcher = TemplateMatcher()
    timings = {}
    cases = (("near", img, box, SOURCE_NEAR), ("anywhere", moved, None, SOURCE_ANYWHERE))
    for label, screen, expected, source in cases:
        runs = []
        for _ in range(3):
            started = time.perf_counter()
            found = matcher.find(screen, crop, expected=expected)
            runs.append(1000 * (time.perf_counter() - started))
            assert found.source == source
        timings[label] = sorted(runs)[1]
    log.info("template matcher on 1280x800, 120x30 crop: near %.1f ms, anywhere (all scales) %.1f ms",
             timings["near"], timings["anywhere"])
