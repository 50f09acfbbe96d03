"""Text detection only where a screen has detail, and recognition batched by width."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from gui_agent.parsing.elements import ElementKind
from gui_agent.parsing.indicators import cut_boxes_at_indicators
from gui_agent.parsing.ocr import OcrEngine, recognition_batches
from gui_agent.parsing.text_regions import merge_overlapping, text_regions
from gui_agent.parsing.widgets import detect_widgets
from tests.support.pillow_form import font, render_form


def _bgr(img: Image.Image) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(img.convert("RGB"))[:, :, ::-1])


def _window_with_labels() -> tuple[Image.Image, dict[str, Box]]:
    """A framed window (border all round, a separator) with text in two far-apart corners."""
    img = Image.new("RGB", (1280, 800), (250, 250, 250))
    d = ImageDraw.Draw(img)
    d.rectangle([0, 0, 1279, 799], outline=(120, 120, 120))
    d.line([0, 60, 1279, 60], fill=(160, 160, 160))
    boxes = {}
    for text, (x, y) in {"File": (20, 20), "Not signed in": (1100, 20), "Total: 42": (900, 700)}.items():
        d.text((x, y), text, fill=(20, 20, 20), font=font(15))
        left, top, right, bottom = d.textbbox((x, y), text, font=font(15))
        boxes[text] = Box.from_corners(left, top, right, bottom)
    return img, boxes


def test_a_blank_screen_has_no_text_regions() -> None:
    assert text_regions(_bgr(Image.new("RGB", (640, 400), (30, 30, 30)))) == []


def test_borders_do_not_join_far_apart_text_into_one_region() -> None:
    img, boxes = _window_with_labels()
    regions = text_regions(_bgr(img))
    assert regions is not None and len(regions) == 3
    assert sum(r.area for r in regions) < 0.05 * 1280 * 800
    for text, box in boxes.items():
        holders = [r for r in regions if r.left < box.left and r.right > box.right
                   and r.top < box.top and r.bottom > box.bottom]
        assert len(holders) == 1, text
        r = holders[0]   # a margin of blank background all round the glyphs
        assert min(box.left - r.left, r.right - box.right, box.top - r.top, r.bottom - box.bottom) >= 6


def test_detail_everywhere_means_detect_on_the_whole_region() -> None:
    noise = np.random.default_rng(0).integers(0, 255, (300, 400, 3), dtype=np.uint8)
    assert text_regions(noise) is None


def test_regions_of_a_sub_region_stay_inside_it() -> None:
    img, boxes = _window_with_labels()
    region = Box(850, 650, 300, 120)
    regions = text_regions(_bgr(img), region)
    assert regions and all(r.left >= 850 and r.top >= 650 and r.right <= 1150 and r.bottom <= 770
                           for r in regions)


def test_merge_overlapping_until_none_overlap() -> None:
    merged = merge_overlapping([Box(0, 0, 10, 10), Box(20, 0, 10, 10), Box(5, 5, 20, 2), Box(100, 0, 5, 5)])
    assert sorted(merged) == [Box(0, 0, 30, 10), Box(100, 0, 5, 5)]


def test_detection_on_regions_reads_what_full_frame_detection_reads() -> None:
    img, boxes = _window_with_labels()
    regions_first = OcrEngine()
    full_frame = OcrEngine(skip_blank=False)
    full_frame._ocr = regions_first._engine()
    a = sorted(ln.text for ln in regions_first.read(img))
    b = sorted(ln.text for ln in full_frame.read(img))
    assert a == b == sorted(boxes)
    assert regions_first.detect_calls == 3 and full_frame.detect_calls == 1


def test_recognition_batches_group_similar_widths() -> None:
    crops = [np.zeros((20, w, 3), np.uint8) for w in (30, 400, 35, 40, 410, 900, 32, 28, 33, 31)]
    batches = recognition_batches(crops, min_width=200, max_batch=4)
    assert sorted(i for batch, _ in batches for i in batch) == list(range(len(crops)))
    for batch, width in batches:
        # strips at the narrowest width go twice as many to a call
        assert len(batch) <= (8 if width == 200 else 4) and width % 8 == 0 and width >= 200
        natural = [-(-(48 * crops[i].shape[1] // 20) // 8) * 8 for i in batch]
        assert max(natural) <= width and width <= max(200, max(natural))
        assert max(natural) <= 1.15 * min(max(200, n) for n in natural) + 8
    # seven short labels padded to 200 px (one call), the two ~970 px lines, the 2160 px one
    assert [(len(b), w) for b, w in batches] == [(7, 200), (2, 984), (1, 2160)]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_text_box_grazing_a_check_box_loses_the_sliver(theme: str) -> None:
    # Detection on a cropped region drew "Send newsletter" 8 px too wide, over the check
    # box's right edge, and the label was read "]Send newsletter".
    img, truth = render_form(theme)
    rgb = np.asarray(img.convert("RGB"))
    gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    box_truth = next(t for t in truth if t.kind == ElementKind.CHECKBOX and t.label == "Send newsletter")
    widgets = detect_widgets(rgb)
    check = next(w for w in widgets if w.kind == ElementKind.CHECKBOX and w.box.iou(box_truth.box) > 0.5)
    label = Box(check.box.right - 2, check.box.top - 2, 135, check.box.height + 4)
    cut = cut_boxes_at_indicators([label], widgets, gray)
    assert len(cut) == 1 and cut[0].left > check.box.right and cut[0].right == label.right
