"""What the agent sees, scaled to fit, with the next target drawn over it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

Corners = tuple[int, int, int, int]

TARGET_COLOUR = QColor(230, 40, 60)
OTHER_COLOUR = QColor(250, 190, 30)
BACKGROUND = QColor(32, 35, 42)


# What found a target, in words (a step's ``source``: the grounding rung or replay's anchor).
SOURCE_NAMES = {
    "a11y": "the accessibility tree", "ocr": "the pixels (OCR and widgets)",
    "template": "a skill's image", "template-anywhere": "a skill's image, searched everywhere",
    "landmarks": "a skill's landmarks", "vlm": "the pointing model", "point": "coordinates",
}


def describe_source(source: str | None) -> str:
    """'a11y' -> 'a11y (the accessibility tree)'; '' for no source."""
    if not source:
        return ""
    name = SOURCE_NAMES.get(source)
    return f"{source} ({name})" if name else source


@dataclass(frozen=True)
class Overlay:
    """The next target in source-image pixels: the chosen box, the point, other boxes, and
    what found it (``source``: "a11y", "ocr", "template", "vlm" ...)."""

    box: Corners | None = None
    point: tuple[int, int] | None = None
    others: tuple[Corners, ...] = ()
    label: str = ""
    source: str = ""


def pil_to_qimage(image: Any, max_width: int | None = None) -> QImage:
    """A QImage copy of a PIL image, optionally scaled down to ``max_width`` (safe off the UI thread)."""
    rgb = image.convert("RGB")
    width, height = rgb.size
    qimage = QImage(rgb.tobytes(), width, height, 3 * width, QImage.Format.Format_RGB888).copy()
    if max_width is not None and width > max_width:
        qimage = qimage.scaledToWidth(max_width, Qt.TransformationMode.SmoothTransformation)
    return qimage


class LiveView(QWidget):
    """Paints one frame (a QImage showing a source image of ``source_size`` pixels) and an
    :class:`Overlay` in that source's coordinates."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(240, 150)
        self._image: QImage | None = None
        self._source_size: tuple[int, int] = (0, 0)
        self._overlay: Overlay | None = None
        self.placeholder = "What the agent sees appears here while a task runs."

    # -- state -------------------------------------------------------------------------------
    @property
    def image(self) -> QImage | None:
        return self._image

    @property
    def overlay(self) -> Overlay | None:
        return self._overlay

    def set_frame(self, image: QImage, source_size: tuple[int, int] | None = None,
                  overlay: Overlay | None = None) -> None:
        self._image = image
        self._source_size = source_size or (image.width(), image.height())
        self._overlay = overlay
        self.update()

    def set_overlay(self, overlay: Overlay | None) -> None:
        self._overlay = overlay
        self.update()

    def clear(self) -> None:
        self._image, self._overlay, self._source_size = None, None, (0, 0)
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(560, 360)

    # -- painting ----------------------------------------------------------------------------
    def image_rect(self) -> QRectF:
        """Where the frame is drawn: scaled to fit, aspect kept, centred."""
        if self._image is None or self._image.isNull():
            return QRectF()
        w, h = self._image.width(), self._image.height()
        scale = min(self.width() / w, self.height() / h)
        dw, dh = w * scale, h * scale
        return QRectF((self.width() - dw) / 2, (self.height() - dh) / 2, dw, dh)

    def to_widget(self, x: float, y: float) -> QPointF:
        """Source-image pixel -> widget coordinates."""
        rect = self.image_rect()
        sw, sh = self._source_size
        if not sw or not sh:
            return QPointF(rect.left(), rect.top())
        return QPointF(rect.left() + x * rect.width() / sw, rect.top() + y * rect.height() / sh)

    def _box_rect(self, corners: Corners) -> QRectF:
        return QRectF(self.to_widget(corners[0], corners[1]), self.to_widget(corners[2], corners[3]))

    def paintEvent(self, event: Any) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        painter.fillRect(self.rect(), BACKGROUND)
        if self._image is None or self._image.isNull():
            painter.setPen(QColor(170, 175, 185))
            painter.drawText(self.rect().adjusted(16, 16, -16, -16),
                             Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.placeholder)
            painter.end()
            return
        painter.drawImage(self.image_rect(), self._image)
        if self._overlay is not None:
            self._paint_overlay(painter, self._overlay)
        painter.end()

    def _paint_overlay(self, painter: QPainter, overlay: Overlay) -> None:
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(OTHER_COLOUR, 1.5, Qt.PenStyle.DashLine))
        for corners in overlay.others:
            painter.drawRect(self._box_rect(corners))
        if overlay.box is not None:
            painter.setPen(QPen(TARGET_COLOUR, 2.5))
            painter.drawRect(self._box_rect(overlay.box).adjusted(-2, -2, 2, 2))
        if overlay.point is not None:
            centre = self.to_widget(*overlay.point)
            painter.setPen(QPen(TARGET_COLOUR, 2.5))
            painter.drawEllipse(centre, 9, 9)
            painter.setPen(QPen(TARGET_COLOUR, 1.5))
            painter.drawLine(centre + QPointF(-15, 0), centre + QPointF(15, 0))
            painter.drawLine(centre + QPointF(0, -15), centre + QPointF(0, 15))
        text = " — found by ".join(t for t in (overlay.label, describe_source(overlay.source)) if t)
        if text:
            self._paint_label(painter, text)

    def _paint_label(self, painter: QPainter, text: str) -> None:
        font = QFont(self.font())
        font.setPointSizeF(max(8.0, font.pointSizeF()))
        painter.setFont(font)
        metrics = painter.fontMetrics()
        text = metrics.elidedText(text, Qt.TextElideMode.ElideRight, self.width() - 24)
        band = QRectF(0, self.height() - metrics.height() - 12, self.width(), metrics.height() + 12)
        painter.fillRect(band, QColor(0, 0, 0, 170))
        painter.setPen(QColor(255, 255, 255))
        painter.drawText(band.adjusted(12, 0, -12, 0),
                         Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, text)
