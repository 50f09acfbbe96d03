"""Perturbations of the playground for the replay benchmark (imports Qt).

* ``extra_widget``: an info bar (a text and a harmless "Learn more" button) above the content of
  every page, so that every page's targets move down while the tabs stay put.
* ``rename``: visible texts replaced (``{"Add": "Append"}``): buttons, labels, group titles, tabs
  and menu entries whose whole text is a key. The state file keeps the original names
  (``current_tab``, ``last_clicked``, ``dialog``), so checks read the same; ``targets`` shows
  what is on screen.

(``reorder`` needs no widget code: the Items list and the Contacts rows are built from the state,
whose initial order :func:`gui_agent.playground.state.initial_state` reverses.)
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractButton,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QMenuBar,
    QPushButton,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from gui_agent.playground.state import StateRecorder

BANNER_TEXT = "Tip: this is a sandbox, nothing done here leaves this window."
BANNER_BUTTON = "Learn more"


class InfoBanner(QFrame):
    """A strip with a text and a button whose click is only recorded (``last_clicked``)."""

    def __init__(self, recorder: StateRecorder) -> None:
        super().__init__()
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 6, 12, 6)
        self.label = QLabel(BANNER_TEXT)
        self.button = QPushButton(BANNER_BUTTON)
        self.button.clicked.connect(lambda: recorder.click(BANNER_BUTTON, "Banner"))
        row.addWidget(self.label)
        row.addStretch(1)
        row.addWidget(self.button)


def with_banner(page: QWidget, recorder: StateRecorder) -> QWidget:
    """A container showing an :class:`InfoBanner` above ``page``."""
    container = QWidget()
    column = QVBoxLayout(container)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(0)
    column.addWidget(InfoBanner(recorder))
    column.addWidget(page, 1)
    return container


def apply_renames(root: QWidget, renames: Mapping[str, str]) -> None:
    """Replace every visible text of ``root`` and its children that equals a key of ``renames``."""
    if not renames:
        return
    for widget in [root, *root.findChildren(QWidget)]:
        if isinstance(widget, QAbstractButton | QLabel) and widget.text() in renames:
            widget.setText(renames[widget.text()])
        elif isinstance(widget, QGroupBox) and widget.title() in renames:
            widget.setTitle(renames[widget.title()])
        elif isinstance(widget, QTabBar):
            for i in range(widget.count()):
                if widget.tabText(i) in renames:
                    widget.setTabText(i, renames[widget.tabText(i)])
        elif isinstance(widget, QMenuBar | QMenu):
            for action in widget.actions():
                if action.text() in renames:
                    action.setText(renames[action.text()])
        if widget.accessibleName() in renames:   # a field named by a renamed label
            widget.setAccessibleName(renames[widget.accessibleName()])
