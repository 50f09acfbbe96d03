"""Detection at any resolution: never shrunk below the scale that still finds a 10 px glyph,
cut into overlapping bands instead; and recognition batches by width."""

from __future__ import annotations

import numpy as np
import pytest

from gui_agent.bench.scale_frames import correct_words, dense_page
from gui_agent.geometry import Box
from gui_agent.parsing.ocr import (
    BAND_OVERLAP,
    MIN_DET_SCALE,
    OcrEngine,
    detection_bands,
    recognition_batches,
)


@pytest.mark.parametrize("region", [Box(0, 0, 3840, 2160), Box(7, 30, 2560, 1441), Box(0, 0, 1280, 800)])
@pytest.mark.parametrize("scale", [MIN_DET_SCALE, 0.8, 1.0])
def test_bands_cover_the_region_and_keep_each_row_once(region: Box, scale: float) -> None:
    bands = detection_bands(region, scale, 1_100_000)
    kept = [row for _, (top, bottom) in bands for row in range(top, bottom)]
    assert kept == list(range(region.top, region.bottom))          # every row kept by one band
    for band, (top, bottom) in bands:
        assert band.left == region.left and band.width == region.width   # whole width: no line cut
        assert band.width * band.height * scale * scale <= 1.05 * 1_100_000 or len(bands) == 1 \
            or band.height <= 2 * BAND_OVERLAP
        # a line up to half the overlap tall whose centre is kept lies whole in the band
        assert top - BAND_OVERLAP // 4 >= band.top or top == region.top
        assert bottom + BAND_OVERLAP // 4 <= band.bottom or bottom == region.bottom


def test_a_large_busy_frame_is_never_shrunk_below_the_glyph_scale(monkeypatch) -> None:
    ocr = OcrEngine(skip_blank=False)
    seen: list[tuple[tuple[int, int], float]] = []
    monkeypatch.setattr(ocr, "_detect_crop", lambda crop, scale: seen.append((crop.shape[:2], scale)) or [])
    ocr.detect(np.zeros((2160, 3840, 3), np.uint8))
    assert len(seen) > 1 and all(scale >= MIN_DET_SCALE for _, scale in seen)
    assert sum(h for (h, _), _ in seen) >= 2160                      # the bands cover the frame
    seen.clear()
    ocr.detect(np.zeros((800, 1280, 3), np.uint8))                 # 1 MP: one pass at full size
    assert seen == [((800, 1280), 1.0)]


def test_banded_detection_finds_what_one_pass_finds() -> None:
    page = dense_page(1024, 576, seed=3)
    bgr = np.ascontiguousarray(np.asarray(page.image)[:, :, ::-1])
    whole = OcrEngine(skip_blank=False, full_res_area=2_000_000)
    banded = OcrEngine(skip_blank=False, full_res_area=150_000, min_det_scale=1.0)
    found = {}
    for name, ocr in (("whole", whole), ("banded", banded)):
        lines = ocr.read_bgr(bgr)
        found[name] = correct_words(page.words, [(ln.text, ln.box) for ln in lines])
    assert banded.detect_calls >= 3
    assert found["banded"] >= 0.98 * found["whole"] and found["whole"] >= 0.9 * len(page.words), found


def test_short_crops_share_larger_batches() -> None:
    short = [np.zeros((20, 40, 3), np.uint8)] * 40        # "OK", "Name": all padded to one width
    long = [np.zeros((20, 600, 3), np.uint8)] * 12
    batches = recognition_batches(short + long, 200, 6)
    sizes = {width: len(batch) for batch, width in batches}
    assert max(len(b) for b, w in batches if w <= 200) > 6      # short strips: bigger batches
    assert max(len(b) for b, w in batches if w > 1000) <= 6      # long ones stay at the base size
    assert sum(sizes.values()) <= len(short) + len(long)
