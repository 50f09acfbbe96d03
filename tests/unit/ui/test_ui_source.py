"""The app says what found each target: the step log's "Found by" column and tooltip, and the
live view's label (a11y, ocr, template, vlm)."""

from __future__ import annotations

from tests.support.requirements import require_module

require_module("PySide6")
require_module("pytestqt")

def _step(source: str | None):
    from gui_agent import StepLog

    return StepLog(3, "click OK", "click('\"OK\"')", "ok", box=(10, 10, 60, 30), point=(35, 20),
                   source=source, timings={"ground": 0.01})


def test_the_step_log_names_the_source_in_its_column_and_tooltip(qtbot):
    from PySide6.QtCore import Qt

    from ui.step_log import StepLogModel, make_row

    model = StepLogModel()
    model.append(make_row(_step("a11y"), None))
    model.append(make_row(_step("ocr"), None))
    model.append(make_row(_step(None), None))
    found_by = [model.data(model.index(r, 4)) for r in range(3)]
    assert found_by == ["a11y", "ocr", "—"]
    tip = model.data(model.index(0, 2), Qt.ItemDataRole.ToolTipRole)
    assert "found by: a11y (the accessibility tree)" in tip
    assert "found by" not in model.data(model.index(2, 2), Qt.ItemDataRole.ToolTipRole)


def test_the_live_view_labels_the_target_with_its_source(qtbot):
    from PySide6.QtGui import QColor, QImage

    from ui.live_view import LiveView, Overlay, describe_source

    assert describe_source("vlm") == "vlm (the pointing model)"
    assert describe_source("template") == "template (a skill's image)"
    assert describe_source("something-new") == "something-new" and describe_source(None) == ""
    view = LiveView()
    qtbot.addWidget(view)
    view.resize(400, 300)
    image = QImage(200, 150, QImage.Format.Format_RGB888)
    image.fill(QColor(255, 255, 255))
    painted = []
    view._paint_label = lambda painter, text: painted.append(text)   # what would be written
    view.set_frame(image, (200, 150), Overlay((10, 10, 60, 30), (35, 20), (), "next: click OK", "a11y"))
    view.grab()
    view.set_overlay(Overlay((10, 10, 60, 30), (35, 20), (), "next: click OK"))
    view.grab()
    assert painted == ["next: click OK — found by a11y (the accessibility tree)", "next: click OK"]
