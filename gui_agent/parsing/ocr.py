"""Offline OCR with rapidocr-onnxruntime's PP-OCRv4 models (they ship inside its wheel).

Detection and recognition are driven separately so that each can be made cheap:
detection runs only on the parts of the frame (or of a changed region) that hold fine
detail (:mod:`.text_regions`: on a UI that is a fifth of the pixels or less), and
recognition runs only on line crops whose pixels the :class:`OcrCache` has not seen, in
batches of similar width, each strip as wide as its text rather than rapidocr's 320 px.
Screen text is horizontal, so crops are axis-aligned and the angle classifier is never used.
"""

from __future__ import annotations

import atexit
import logging
import math
import os
import threading
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..errors import GuiAgentError
from ..geometry import Box
from .chevrons import split_chevrons
from .ocr_cache import OcrCache, crop_key
from .text_crops import split_at_gaps, with_air
from .text_regions import text_regions
from .underlines import without_underlines

log = logging.getLogger(__name__)

_MIN_TEXT_SCORE = 0.5   # rapidocr's own default for dropping garbage reads
CHEVRON_CONFIDENCE = 0.9   # a line read around chevrons seen by their shape
SHORT_READ = 4             # characters: a read this short may be a pager's chevrons misread
_REC_HEIGHT = 48        # PP-OCRv4's recogniser input height
_DET_FRAME = 16         # px of edge pixels framing every crop given to the detector
# The detector finds glyphs down to ~6 px high (measured on DejaVu text: every 10 px glyph found at
# 0.6 scale, 70 % at 0.5); screens show glyphs down to 10 px. So a frame is never shrunk below
# MIN_DET_SCALE for detection: a region too large for one pass at that scale is cut into bands.
MIN_GLYPH_PX = 10
DETECTED_GLYPH_PX = 6.5
MIN_DET_SCALE = DETECTED_GLYPH_PX / MIN_GLYPH_PX
BAND_OVERLAP = 128      # px (frame pixels) two bands share: a text line up to half as tall is whole in one

# One lock per process around the native work done here (onnxruntime, OpenCV): making an
# onnxruntime session (its environment, logging, allocator and op registries are process-wide,
# not safe to set up from two threads at once), running one, and detection and recognition as a
# whole. Several engines may live in one process (the app's run thread, its recording's compile
# thread, a test's own parser), so a per-engine lock is not enough; OCR calls from different
# threads take turns (each already uses the cores it is given). At exit the lock is taken and
# kept: a daemon thread still reading would otherwise come back from OpenCV or onnxruntime
# while Python shuts down and abort the process ("terminate called without an active
# exception": Python < 3.14 ends such a thread by unwinding through their C++ frames).
_NATIVE_LOCK = threading.RLock()
_ALPHABET: dict[str, frozenset[str]] = {}   # "characters": the recogniser's, once a model is loaded
# The models' sessions, one per thread count, shared by every engine of the process: they hold
# no state between calls, and every call already takes the process-wide lock above.
_SESSIONS: dict[int, Any] = {}


@atexit.register
def _hold_native_lock_at_exit() -> None:
    _NATIVE_LOCK.acquire(timeout=10)


@dataclass(frozen=True)
class TextLine:
    """One line (or word group) of text; ``box`` in image pixels."""

    text: str
    box: Box
    confidence: float

    def sub_box(self, start: int, end: int) -> Box:
        """Estimated box of ``text[start:end]``, by each character's share of the line width."""
        n = len(self.text)
        if n == 0:
            return self.box
        start, end = max(0, min(start, n)), max(0, min(end, n))
        if end <= start:
            end = min(n, start + 1)
            start = end - 1
        weights = [_char_weight(c) for c in self.text]
        total = sum(weights)
        x0 = self.box.left + self.box.width * sum(weights[:start]) / total
        x1 = self.box.left + self.box.width * sum(weights[:end]) / total
        return Box.from_corners(x0, self.box.top, x1, self.box.bottom)

    def find(self, substring: str) -> Box | None:
        """Box of the first case-insensitive occurrence of ``substring``, or None."""
        at = self.text.lower().find(substring.lower())
        return None if at < 0 or not substring else self.sub_box(at, at + len(substring))

    def shifted(self, dx: int, dy: int) -> TextLine:
        b = self.box
        return replace(self, box=Box(b.left + dx, b.top + dy, b.width, b.height))


def _char_weight(c: str) -> float:
    """Rough advance width of a character in a proportional UI font, in ems."""
    if c == " ":
        return 0.32
    if c in "iljtfI.,:;'!|()[]":
        return 0.35
    if c in "mwMW@":
        return 0.9
    if c.isupper() or c.isdigit():
        return 0.65
    return 0.55 if c.isascii() else 1.0


class OcrEngine:
    """Text detection + cached recognition. Create once and reuse: loading the models costs ~0.3 s.

    ``det_scale``: regions larger than ``full_res_area`` pixels are shrunk by this factor
    before text detection (default: down to ``full_res_area`` pixels, but never below
    ``min_det_scale``, at which a 10 px glyph is still found: a region still too large is
    detected in overlapping horizontal bands); smaller ones are detected at full resolution,
    which reads small UI text best (measured: at 0.75 scale some boxes shift and reads degrade,
    e.g. "Open" -> "open"). ``skip_blank``: detect only where
    the frame has detail (default). ``rec_min_width``: the narrowest recognition strip
    (200 px read the playground and the synthetic screens as well as 320 px, in ~60 % of the
    time); ``rec_batch``: strips of similar width recognised in one call.
    """

    def __init__(
        self,
        *,
        det_scale: float | None = None,
        full_res_area: int = 1_100_000,
        min_det_scale: float = MIN_DET_SCALE,
        threads: int | None = None,
        cache: OcrCache | None = None,
        min_confidence: float = _MIN_TEXT_SCORE,
        rec_min_width: int = 200,
        rec_batch: int = 6,
        skip_blank: bool = True,
    ) -> None:
        self.det_scale = det_scale
        self.full_res_area = full_res_area
        self.min_det_scale = min_det_scale
        self.threads = threads or max(1, min(4, os.cpu_count() or 1))
        self.cache = cache if cache is not None else OcrCache()
        self.min_confidence = min_confidence
        self.rec_min_width = rec_min_width
        self.rec_batch = rec_batch
        self.skip_blank = skip_blank
        self.recognized_crops = 0   # crops actually sent to the recogniser (cache misses)
        self.detect_calls = 0
        self._ocr = None

    # -- model access -------------------------------------------------------------------
    def _engine(self):
        if self._ocr is None:
            with _NATIVE_LOCK:   # the process-wide lock (see above): one session made at a time
                if self._ocr is None:
                    try:
                        from rapidocr_onnxruntime import RapidOCR
                    except ImportError as exc:
                        raise GuiAgentError(
                            "OCR needs rapidocr-onnxruntime==1.4.4: pip install 'rapidocr-onnxruntime==1.4.4'"
                        ) from exc
                    engine = _SESSIONS.get(self.threads)
                    if engine is None:     # the models load once per process (a quarter second)
                        engine = RapidOCR(
                            intra_op_num_threads=self.threads, inter_op_num_threads=1, use_cls=False
                        )
                        _SESSIONS[self.threads] = engine
                    _ALPHABET.setdefault("characters", frozenset(
                        c for c in engine.text_rec.postprocess_op.character if len(c) == 1))
                    self._ocr = engine
        return self._ocr

    # -- public API ---------------------------------------------------------------------
    def read(self, image, region: Box | None = None) -> list[TextLine]:
        """All text lines of ``image`` (PIL RGB image or RGB array), or of ``region`` of it."""
        rgb = np.asarray(image.convert("RGB") if hasattr(image, "convert") else image)
        bgr = np.ascontiguousarray(rgb[:, :, ::-1])
        return self.read_bgr(bgr, region)

    def read_bgr(self, bgr: np.ndarray, region: Box | None = None) -> list[TextLine]:
        boxes = self.detect(bgr, region)
        return self.recognize_boxes(bgr, boxes)

    def detect(self, bgr: np.ndarray, region: Box | None = None) -> list[Box]:
        """Axis-aligned text boxes in image pixels, split at wide gaps between words."""
        with _NATIVE_LOCK:
            return self._detect(bgr, region)

    def _detect(self, bgr: np.ndarray, region: Box | None) -> list[Box]:
        h, w = bgr.shape[:2]
        region = (region or Box(0, 0, w, h)).clip(w, h)
        if region.width < 4 or region.height < 4:
            return []
        parts = text_regions(bgr, region) if self.skip_blank else None
        if parts is None:
            return self._detect_region(bgr, region)
        return [b for part in parts for b in self._detect_region(bgr, part)]

    def _detect_region(self, bgr: np.ndarray, region: Box) -> list[Box]:
        if region.width < 4 or region.height < 4:
            return []
        scale = 1.0
        if region.area > self.full_res_area:
            scale = self.det_scale or max(self.min_det_scale, (self.full_res_area / region.area) ** 0.5)
        out: list[Box] = []
        for band, core in detection_bands(region, scale, self.full_res_area):
            crop = bgr[band.top:band.bottom, band.left:band.right]
            for b in self._detect_crop(crop, scale):
                if not core[0] <= band.top + b.top + b.height / 2 < core[1]:
                    continue   # its line is whole in the neighbouring band, and kept from there
                for part in split_at_gaps(crop, b):
                    out.append(Box(part.left + band.left, part.top + band.top, part.width, part.height))
        return out

    def recognize_boxes(self, bgr: np.ndarray, boxes: list[Box]) -> list[TextLine]:
        crops = [without_underlines(with_air(bgr, b)) for b in boxes]
        reads = self.recognize(crops)
        lines = []
        for box, crop, (text, conf) in zip(boxes, crops, reads, strict=True):
            text = text.strip() if conf >= self.min_confidence else ""
            if len(text) <= SHORT_READ:       # a pager's "1 >" read "1V", "< 3 >" not kept at all
                text, conf = self._with_chevrons(crop, text, conf)
            if text:
                lines.append(TextLine(text, box, conf))
        return lines

    def _with_chevrons(self, crop: np.ndarray, text: str, conf: float) -> tuple[str, float]:
        """A short read again with its end chevrons seen by their shape ('< 3 >'), the rest by
        the recogniser; the read as it was when the crop has none."""
        with _NATIVE_LOCK:   # OpenCV too (see the lock)
            rest, lead, trail = split_chevrons(crop)
        if not (lead or trail):
            return text, conf
        middle, middle_conf = self.recognize([rest])[0]
        middle = middle.strip() if middle_conf >= self.min_confidence else ""
        return " ".join(t for t in (lead, middle, trail) if t), max(middle_conf, CHEVRON_CONFIDENCE)

    def recognize(self, crops: list[np.ndarray], *, min_width: int | None = None) -> list[tuple[str, float]]:
        """(text, confidence) per crop; crops seen before come from the cache.

        ``min_width``: pad each strip to at least this many pixels (default ``rec_min_width``);
        a lone glyph reads most reliably at the 320 px the recogniser was trained on ("0", not "o").
        """
        with _NATIVE_LOCK:
            return self._recognize(crops, min_width or self.rec_min_width)

    def _recognize(self, crops: list[np.ndarray], width: int) -> list[tuple[str, float]]:
        keys = [crop_key(c) + width.to_bytes(2, "little") for c in crops]
        results: list[tuple[str, float] | None] = [self.cache.get(k) for k in keys]
        # crops with the same pixels (a word repeated down a page, a column of zeros) read once
        todo = list({keys[i]: i for i, r in enumerate(results) if r is None}.values())
        if todo:
            fresh = dict(zip((keys[i] for i in todo),
                             self._recognize_uncached([crops[i] for i in todo], width), strict=True))
            for key, value in fresh.items():
                self.cache.put(key, value)
            results = [fresh[k] if r is None else r for r, k in zip(results, keys, strict=True)]
        return [r for r in results if r is not None]

    # -- internals ----------------------------------------------------------------------
    def _recognize_uncached(self, crops: list[np.ndarray], min_width: int) -> list[tuple[str, float]]:
        self.recognized_crops += len(crops)
        rec = self._engine().text_rec
        out: list[tuple[str, float]] = [("", 0.0)] * len(crops)
        for batch, width in recognition_batches(crops, min_width, self.rec_batch):
            x = np.stack([_rec_input(crops[i], width) for i in batch])
            reads = rec.postprocess_op(rec.session(x)[0])
            for i, (text, conf) in zip(batch, reads, strict=True):
                out[i] = (str(text), float(conf))
        return out

    def _detect_crop(self, crop: np.ndarray, scale: float) -> list[Box]:
        """Text boxes of ``crop`` (crop pixels), detected at ``scale``.

        The crop is framed by ``_DET_FRAME`` px of its own edge pixels all round (then padded to
        a multiple of 32): the network reads text hard against an image border badly (the "L"
        of a line starting 4 px from a crop's left edge was missed), and its own background
        around the text gives it what the full screen would.
        """
        import cv2

        self.detect_calls += 1
        det = self._engine().text_det
        h, w = crop.shape[:2]
        sh, sw = max(1, round(h * scale)), max(1, round(w * scale))
        small = crop if (sh, sw) == (h, w) else cv2.resize(crop, (sw, sh), interpolation=cv2.INTER_AREA)
        m = _DET_FRAME
        ph, pw = -(sh + 2 * m) % 32, -(sw + 2 * m) % 32
        framed = cv2.copyMakeBorder(small, m, m + ph, m, m + pw, cv2.BORDER_REPLICATE)
        x = (framed.astype(np.float32) * (2 / 255.0) - 1.0).transpose(2, 0, 1)[None]
        pred = det.infer(x)[0]
        # postprocess maps the prediction onto the given shape: the framed image in crop pixels
        fh, fw = framed.shape[:2]
        polys, _scores = det.postprocess_op(pred, (fh / scale, fw / scale))
        offset = m / scale
        boxes = []
        for poly in polys:
            x0, y0 = np.floor(poly.min(axis=0) - offset)
            x1, y1 = np.ceil(poly.max(axis=0) - offset)
            b = Box.from_corners(max(0, x0), max(0, y0), min(w, x1), min(h, y1))
            if b.width > 3 and b.height > 3:
                boxes.append(b)
        return boxes


def recogniser_alphabet() -> frozenset[str]:
    """The characters the shipped recogniser can output (a text with others is never read as
    written): noted by the first engine that loads its models, or loaded for this."""
    if "characters" not in _ALPHABET:
        OcrEngine()._engine()
    return _ALPHABET["characters"]


def detection_bands(region: Box, scale: float, budget: int) -> list[tuple[Box, tuple[int, int]]]:
    """``region`` cut into horizontal bands of at most ``budget`` pixels once scaled by
    ``scale``, each with the rows (top, bottom) whose lines it keeps.

    Bands span the whole width, so no line is cut across; neighbours share BAND_OVERLAP rows, so
    a line up to half that tall lies whole in the band whose kept rows hold its centre.
    """
    rows = max(1, int(budget / max(1.0, region.width * scale * scale)))
    if region.height <= rows * 1.05:   # it fits (a rounding over the budget is no reason to cut)
        return [(region, (region.top, region.bottom))]
    rows = max(rows, 2 * BAND_OVERLAP)
    step = rows - BAND_OVERLAP
    count = max(1, math.ceil((region.height - BAND_OVERLAP) / step))
    step = math.ceil((region.height - BAND_OVERLAP) / count)   # equal bands
    out = []
    for k in range(count):
        top = region.top + k * step
        bottom = min(region.bottom, top + step + BAND_OVERLAP)
        keep_top = region.top if k == 0 else top + BAND_OVERLAP // 2
        keep_bottom = region.bottom if k == count - 1 else top + step + BAND_OVERLAP // 2
        out.append((Box(region.left, top, region.width, bottom - top), (keep_top, keep_bottom)))
    return out


def recognition_batches(crops: list[np.ndarray], min_width: int,
                        max_batch: int) -> list[tuple[list[int], int]]:
    """Group crops of similar width into batches: ``(crop indices, input width)`` each.

    The recogniser reads a 48 px high strip; rapidocr pads every strip to at least 320 px,
    which for the short labels that fill a UI ("OK", "Name") is mostly padding. Here a strip
    is as wide as its text (at least ``min_width``, in steps of 8 px) and crops are batched
    only with others within ~15 % of their width, so padding stays small; strips at the
    narrowest width go ``2 * max_batch`` to a call.
    """
    widths = [_rec_width(c, min_width) for c in crops]
    order = sorted(range(len(crops)), key=widths.__getitem__)
    batches: list[tuple[list[int], int]] = []
    for i in order:
        if batches:
            batch, _ = batches[-1]
            # strips at the narrowest width are cheap: twice as many share a call (measured on a
            # dense page's 200 px strips: 12 a call read 11-15 % faster than 6; 24 was slower)
            most = 2 * max_batch if widths[i] <= min_width else max_batch
            if len(batch) < most and widths[i] <= widths[batch[0]] * 1.15 + 8:
                batch.append(i)
                batches[-1] = (batch, widths[i])
                continue
        batches.append(([i], widths[i]))
    return batches


def _rec_width(crop: np.ndarray, min_width: int) -> int:
    h, w = crop.shape[:2]
    return max(min_width, -(-math.ceil(_REC_HEIGHT * w / max(1, h)) // 8) * 8)


def _rec_input(crop: np.ndarray, width: int) -> np.ndarray:
    """A crop as the recogniser's input: 48 px high, scaled to [-1, 1], zero-padded to ``width``."""
    import cv2

    h, w = crop.shape[:2]
    scaled_w = min(width, max(1, math.ceil(_REC_HEIGHT * w / max(1, h))))
    strip = cv2.resize(crop, (scaled_w, _REC_HEIGHT)).astype(np.float32)
    out = np.zeros((3, _REC_HEIGHT, width), np.float32)
    out[:, :, :scaled_w] = strip.transpose(2, 0, 1) * (2 / 255.0) - 1.0
    return out
