"""OcrEngine, its crop cache, and reading order."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from gui_agent.parsing.ocr import OcrEngine, TextLine
from gui_agent.parsing.ocr_cache import OcrCache, crop_key
from gui_agent.parsing.reading_order import reading_order
from tests.support.pillow_form import font


@pytest.fixture(scope="module")
def ocr() -> OcrEngine:
    return OcrEngine()


def _line_image(text: str, dark: bool = False, size: int = 18) -> Image.Image:
    img = Image.new("RGB", (520, 80), (30, 30, 30) if dark else (255, 255, 255))
    ImageDraw.Draw(img).text((20, 25), text, fill=(235, 235, 235) if dark else (0, 0, 0), font=font(size))
    return img


@pytest.mark.parametrize("dark", [False, True])
def test_reads_text_on_light_and_dark(ocr: OcrEngine, dark: bool) -> None:
    lines = ocr.read(_line_image("Quarterly report", dark))
    assert [ln.text.replace(" ", "") for ln in lines] == ["Quarterlyreport"]
    assert lines[0].box.contains(Box(20, 25, 200, 20).center) or lines[0].box.left < 30
    assert 0.5 <= lines[0].confidence <= 1.0


def test_wide_gap_splits_two_labels(ocr: OcrEngine) -> None:
    img = Image.new("RGB", (520, 60), (255, 255, 255))
    d = ImageDraw.Draw(img)
    d.text((20, 20), "Account", fill=(0, 0, 0), font=font(16))
    d.text((140, 20), "Settings", fill=(0, 0, 0), font=font(16))
    texts = sorted(ln.text for ln in ocr.read(img))
    assert texts == ["Account", "Settings"]


def test_region_read_returns_image_coordinates(ocr: OcrEngine) -> None:
    img = Image.new("RGB", (800, 400), (255, 255, 255))
    ImageDraw.Draw(img).text((600, 300), "Apply", fill=(0, 0, 0), font=font(16))
    lines = ocr.read(img, region=Box(550, 250, 200, 100))
    assert [ln.text for ln in lines] == ["Apply"]
    assert lines[0].box.contains(Box(600, 300, 40, 16).center)


def test_recognition_is_cached_by_pixels(ocr: OcrEngine) -> None:
    img = _line_image("Cache me once")
    first = ocr.read(img)
    count = ocr.recognized_crops
    assert ocr.read(img) == first
    assert ocr.recognized_crops == count
    ocr.read(_line_image("Something new"))
    assert ocr.recognized_crops == count + 1


def test_cache_is_lru_and_keys_depend_on_pixels_and_shape() -> None:
    cache = OcrCache(capacity=2)
    a, b, c = (np.full((4, 6, 3), v, np.uint8) for v in (1, 2, 3))
    assert crop_key(a) != crop_key(b)
    assert crop_key(np.zeros((4, 6, 3), np.uint8)) != crop_key(np.zeros((6, 4, 3), np.uint8))
    cache.put(crop_key(a), ("a", 1.0))
    cache.put(crop_key(b), ("b", 1.0))
    assert cache.get(crop_key(a)) == ("a", 1.0)      # a is now the most recent
    cache.put(crop_key(c), ("c", 1.0))               # evicts b
    assert cache.get(crop_key(b)) is None and len(cache) == 2
    assert (cache.hits, cache.misses) == (1, 1)


def test_sub_box_by_character_share() -> None:
    line = TextLine("Save As", Box(0, 0, 70, 20), 0.9)
    save, as_ = line.find("save"), line.find("AS")
    assert save.left == 0 and save.right < as_.left and as_.right == 70
    assert line.sub_box(5, 5).width >= 1


def test_reading_order_rows_then_left_to_right() -> None:
    boxes = [Box(300, 12, 50, 20), Box(10, 100, 50, 20), Box(10, 10, 50, 24), Box(150, 14, 40, 16)]
    assert reading_order(boxes, lambda b: b) == [boxes[2], boxes[3], boxes[0], boxes[1]]


def test_line_cut_tight_to_its_glyphs_keeps_its_spaces() -> None:
    """A text box from re-detecting a small region can hug the glyphs; the recogniser then drops
    the spaces between words unless the crop gets a little air above and below."""
    from gui_agent.geometry import Box
    from gui_agent.parsing.ocr import OcrEngine
    from tests.support.pillow_form import SANS

    text = "Cras vitae nunc. Suspendisse"
    image = Image.new("RGB", (330, 60), "white")
    draw = ImageDraw.Draw(image)
    draw.text((6, 14), text, font=font(22, SANS), fill="black")
    ink = np.argwhere(np.asarray(image.convert("L")) < 128)
    (top, left), (bottom, right) = ink.min(axis=0), ink.max(axis=0)
    tight = Box(int(left), int(top), int(right - left + 1), int(bottom - top + 1))
    line = OcrEngine().recognize_boxes(
        np.ascontiguousarray(np.asarray(image)[:, :, ::-1]), [tight])[0]
    assert line.text.split() == text.split() and line.box == tight
