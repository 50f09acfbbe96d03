"""Real Qt widgets rendered offscreen (QT_QPA_PLATFORM=offscreen), with ground truth taken
from each widget's geometry mapped into the grabbed window image."""

from __future__ import annotations

import os
import random

from PIL import Image

from gui_agent.geometry import Box
from gui_agent.parsing.elements import ElementKind as K

from . import ABSENT, AMBIGUOUS, GroundingCase, SyntheticScreen, TruthElement

FIELDS = ["Name", "Email", "Phone", "City", "Company"]
CHECKS = ["Remember me", "Send me updates", "Use dark mode"]
RADIOS = ["Small", "Medium", "Large"]
ITEMS = ["Inbox", "Drafts", "Archive", "Spam"]


def _app():
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication([])


def _dark_palette():
    from PySide6.QtGui import QColor, QPalette

    pal = QPalette()
    for role, color in [(QPalette.Window, (45, 45, 48)), (QPalette.WindowText, (230, 230, 230)),
                        (QPalette.Base, (30, 30, 30)), (QPalette.Text, (230, 230, 230)),
                        (QPalette.Button, (60, 60, 64)), (QPalette.ButtonText, (230, 230, 230)),
                        (QPalette.Highlight, (60, 120, 215)), (QPalette.HighlightedText, (255, 255, 255))]:
        pal.setColor(role, QColor(*color))
    return pal


def qt_form_screen(seed: int, dark: bool = False, size: tuple[int, int] = (1024, 768)) -> SyntheticScreen:
    """A window with a tab widget: a form tab (fields, check boxes, radios, a combo) and buttons."""
    app = _app()
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import (
        QCheckBox,
        QComboBox,
        QFormLayout,
        QHBoxLayout,
        QLabel,
        QLineEdit,
        QListWidget,
        QPushButton,
        QRadioButton,
        QTabWidget,
        QVBoxLayout,
        QWidget,
    )

    rng = random.Random(seed)
    window = QWidget()
    if dark:
        window.setPalette(_dark_palette())
        window.setAutoFillBackground(True)
    font = QFont(rng.choice(["DejaVu Sans", "Liberation Sans", "DejaVu Serif"]))
    font.setPixelSize(rng.randint(12, 17))
    window.setFont(font)
    window.resize(*size)
    outer = QVBoxLayout(window)
    tabs = QTabWidget()
    tab_names = ["Account", "Notifications", "Security"]
    page = QWidget()
    tabs.addTab(page, tab_names[0])
    for name in tab_names[1:]:
        tabs.addTab(QWidget(), name)
    outer.addWidget(tabs)
    columns = QHBoxLayout(page)
    form_host = QWidget()
    form = QFormLayout(form_host)
    labels = rng.sample(FIELDS, 4)
    edits = {}
    qlabels = []
    for lab in labels:
        edits[lab] = QLineEdit()
        qlabels.append(QLabel(f"{lab}:"))
        form.addRow(qlabels[-1], edits[lab])
    combo = QComboBox()
    combo.addItems(["Europe", "Asia", "Americas"])
    qlabels.append(QLabel("Region:"))
    form.addRow(qlabels[-1], combo)
    checks = [QCheckBox(t) for t in CHECKS]
    for cb in checks:
        form.addRow(cb)
    radios = [QRadioButton(t) for t in RADIOS]
    radios[0].setChecked(True)
    radio_row = QHBoxLayout()
    for rb in radios:
        radio_row.addWidget(rb)
    qlabels.append(QLabel("Size:"))
    form.addRow(qlabels[-1], radio_row)
    buttons = QHBoxLayout()
    ok1, cancel, apply_b = QPushButton("OK"), QPushButton("Cancel"), QPushButton("Apply")
    for b in (ok1, cancel, apply_b):
        buttons.addWidget(b)
    form.addRow(buttons)
    columns.addWidget(form_host, 2)
    side = QVBoxLayout()
    lst = QListWidget()
    lst.addItems(ITEMS)
    side.addWidget(lst)
    ok2 = QPushButton("OK")
    side.addWidget(ok2)
    columns.addLayout(side, 1)
    window.show()
    app.processEvents()
    pixmap = window.grab()
    qimage = pixmap.toImage().convertToFormat(pixmap.toImage().Format.Format_RGB888)
    image = Image.frombuffer("RGB", (qimage.width(), qimage.height()),
                             bytes(qimage.constBits()), "raw", "RGB", qimage.bytesPerLine(), 1).copy()

    def box(widget) -> Box:
        top_left = widget.mapTo(window, QPoint(0, 0))
        return Box(top_left.x(), top_left.y(), widget.width(), widget.height())

    def item_box(i: int) -> Box:
        r = lst.visualItemRect(lst.item(i))
        top_left = lst.viewport().mapTo(window, QPoint(r.x(), r.y()))
        return Box(top_left.x(), top_left.y(), r.width(), r.height())

    def tab_box(i: int) -> Box:
        r = tabs.tabBar().tabRect(i)
        top_left = tabs.tabBar().mapTo(window, QPoint(r.x(), r.y()))
        return Box(top_left.x(), top_left.y(), r.width(), r.height())

    elements = [TruthElement(K.TEXT_FIELD, box(edits[lab]), "", lab) for lab in labels]
    elements += [TruthElement(K.CHECKBOX, box(cb), cb.text()) for cb in checks]
    elements += [TruthElement(K.RADIO, box(rb), rb.text()) for rb in radios]
    elements += [TruthElement(K.BUTTON, box(b), b.text()) for b in (ok1, cancel, apply_b, ok2)]
    elements += [TruthElement(K.COMBO, box(combo), combo.currentText(), "Region")]
    elements += [TruthElement(K.TAB, tab_box(i), t) for i, t in enumerate(tab_names)]
    elements += [TruthElement(K.TEXT, item_box(i), t) for i, t in enumerate(ITEMS)]
    elements += [TruthElement(K.TEXT, box(q), q.text()) for q in qlabels]
    a, b = rng.sample(range(len(labels)), 2)
    item = rng.choice(ITEMS[1:])
    cases = [
        GroundingCase(f"the {labels[a]} field", box(edits[labels[a]])),
        GroundingCase(f"the field for {labels[b].lower()}", box(edits[labels[b]])),
        GroundingCase(f"the field right of {labels[b]}", box(edits[labels[b]])),
        GroundingCase("the 2nd text field", box(edits[labels[1]])),
        GroundingCase("the last text field", box(edits[labels[-1]])),
        GroundingCase("the Region dropdown", box(combo)),
        GroundingCase(f"the {CHECKS[0]} checkbox", box(checks[0])),
        GroundingCase(f"the checkbox next to {CHECKS[2]}", box(checks[2])),
        GroundingCase("the second checkbox", box(checks[1])),
        GroundingCase(f"the {RADIOS[2]} radio button", box(radios[2])),
        GroundingCase(f'the "{RADIOS[1]}" option', box(radios[1])),
        GroundingCase("Cancel", box(cancel)),
        GroundingCase("the apply button", box(apply_b)),
        GroundingCase("the button right of Cancel", box(apply_b)),
        GroundingCase(f"the {tab_names[1]} tab", tab_box(1)),
        GroundingCase("security", tab_box(2)),
        GroundingCase(item, item_box(ITEMS.index(item))),
        GroundingCase("the item below Inbox", item_box(1)),
        GroundingCase("OK", None, AMBIGUOUS),
        GroundingCase("the OK button", None, AMBIGUOUS),
        GroundingCase("the OK button below Spam", box(ok2)),
        GroundingCase("the Delete button", None, ABSENT),
    ]
    window.close()
    window.deleteLater()
    app.processEvents()
    return SyntheticScreen(f"qt-form-{seed}{'-dark' if dark else ''}", image, elements, cases)


def qt_screens() -> list[SyntheticScreen]:
    return [qt_form_screen(1), qt_form_screen(2, dark=True, size=(1280, 800))]
