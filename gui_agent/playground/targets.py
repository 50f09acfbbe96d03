"""Ground truth for the screen: every visible control with its text and screen box (imports Qt).

Written into the state file as ``targets`` so end-to-end tests can click real coordinates
without hard-coding a layout, and grounding can be scored against the truth. Boxes are
``[left, top, width, height]`` in global (screen) coordinates.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRect, QTimer
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QCheckBox,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QMenuBar,
    QPlainTextEdit,
    QRadioButton,
    QSpinBox,
    QTabBar,
    QWidget,
)

from gui_agent.playground.state import StateRecorder


def _box(widget: QWidget, rect: QRect | None = None) -> list[int]:
    rect = rect if rect is not None else widget.rect()
    top_left = widget.mapToGlobal(rect.topLeft())
    return [top_left.x(), top_left.y(), rect.width(), rect.height()]


def _target(kind: str, text: str, box: list[int], window: str, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "text": text, "box": box, "window": window, **extra}


def _inside(widget: QWidget, rect: QRect) -> bool:
    """Whether ``rect`` (widget coordinates) is within the widget's visible area."""
    return widget.visibleRegion().boundingRect().intersects(rect)


def widget_targets(widget: QWidget, window: str) -> list[dict[str, Any]]:
    """The targets one visible widget contributes (none for containers)."""
    name = widget.accessibleName()
    if isinstance(widget, QAbstractButton):
        if isinstance(widget, QCheckBox | QRadioButton):
            # only the indicator and the text react to a click, not the whole (stretched) row
            kind = "checkbox" if isinstance(widget, QCheckBox) else "radio"
            rect = QRect(0, 0, min(widget.width(), widget.sizeHint().width()), widget.height())
            return [
                _target(kind, widget.text(), _box(widget, rect), window, checked=widget.isChecked())
            ]
        return [_target("button", widget.text(), _box(widget), window)]
    if isinstance(widget, QLineEdit):
        if widget.parent() is not None and isinstance(widget.parent(), QSpinBox | QComboBox):
            return []
        return [_target("field", name, _box(widget), window)]
    if isinstance(widget, QComboBox):
        return [_target("combo", name, _box(widget), window, value=widget.currentText())]
    if isinstance(widget, QSpinBox):
        return [_target("spinbox", name, _box(widget), window, value=widget.value())]
    if isinstance(widget, QPlainTextEdit):
        return [_target("text_area", name, _box(widget), window)]
    if isinstance(widget, QLabel):
        return [_target("label", widget.text(), _box(widget), window)] if widget.text() else []
    if isinstance(widget, QGroupBox):
        return [_target("group", widget.title(), _box(widget), window)]
    if isinstance(widget, QTabBar):
        return [
            _target(
                "tab",
                widget.tabText(i),
                _box(widget, widget.tabRect(i)),
                window,
                selected=i == widget.currentIndex(),
            )
            for i in range(widget.count())
        ]
    if isinstance(widget, QListView):  # QListWidget, and the popup list of a QComboBox
        viewport, model = widget.viewport(), widget.model()
        selection = widget.selectionModel()
        out = []
        for row in range(model.rowCount()):
            index = model.index(row, 0)
            rect = widget.visualRect(index)
            if _inside(viewport, rect):
                out.append(
                    _target(
                        "list_item",
                        str(index.data()),
                        _box(viewport, rect),
                        window,
                        selected=bool(selection and selection.isSelected(index)),
                    )
                )
        return out
    if isinstance(widget, QMenuBar | QMenu):
        kind = "menu" if isinstance(widget, QMenuBar) else "menu_item"
        return [
            _target(kind, action.text(), _box(widget, widget.actionGeometry(action)), window)
            for action in widget.actions()
            if action.isVisible() and not action.isSeparator()
        ]
    return []


def visible_targets() -> list[dict[str, Any]]:
    """All visible targets of all visible top-level windows (dialogs and popups included)."""
    out: list[dict[str, Any]] = []
    for top in QApplication.topLevelWidgets():
        if not top.isVisible():
            continue
        window = top.windowTitle() or type(top).__name__
        for widget in [top, *top.findChildren(QWidget)]:
            if widget.isVisible() and widget.window() is top:
                out.extend(widget_targets(widget, window))
    return out


class TargetsPublisher:
    """Refreshes ``targets`` in the state whenever what is on screen moved or changed.

    A cheap poll (every ``interval_ms``) is simpler and more robust than tracking every
    show/hide/move event of every widget; nothing is written when nothing changed.
    """

    def __init__(self, recorder: StateRecorder, interval_ms: int = 50) -> None:
        self._recorder = recorder
        self._timer = QTimer()
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.publish)

    def start(self) -> None:
        self.publish()
        self._timer.start()

    def publish(self) -> None:
        self._recorder.set("targets", visible_targets())
