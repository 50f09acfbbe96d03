"""The small always-on-top panel shown while the agent uses the real screen.

It sits in a screen corner (bottom-right by default, away from where apps usually open),
never takes the keyboard focus, shows the current step and offers Stop. Its rectangle is
handed to the engine as a keep-out zone (see ``ui/keep_out.py``); ``clicks`` counts presses
that reached it, which must stay 0 for presses by the agent.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, QRect, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from gui_agent import Box

PANEL_SIZE = (320, 90)
MARGIN = 8
CORNERS = ("bottom-right", "bottom-left", "top-right", "top-left")

STYLE = """
#StatusPanel { background: #1f2430; border: 1px solid #4b5563; }
#StatusPanel QLabel { color: #e5e7eb; background: transparent; }
#StatusPanel QLabel#PanelTitle { color: #9ca3af; font-size: 11px; }
#StatusPanel QPushButton { background: #c0262d; color: white; border: none;
                            padding: 6px 14px; border-radius: 3px; font-weight: bold; }
#StatusPanel QPushButton:hover { background: #dc2f36; }
"""


class StatusPanel(QWidget):
    stop_clicked = Signal()

    def __init__(self, stop_hint: str = "", corner: str = "bottom-right", style: str = STYLE) -> None:
        super().__init__(None, Qt.WindowType.Tool | Qt.WindowType.FramelessWindowHint
                         | Qt.WindowType.WindowStaysOnTopHint
                         | Qt.WindowType.WindowDoesNotAcceptFocus)
        self.setObjectName("StatusPanel")
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        self.setWindowTitle("gui-agent is working")
        self.setStyleSheet(style)   # set once, here: Qt does not repaint a tool window's restyle
        self.setFixedSize(*PANEL_SIZE)
        self.corner = corner if corner in CORNERS else "bottom-right"
        self.clicks = 0

        self.title = title = QLabel()
        title.setObjectName("PanelTitle")
        self.set_hint(stop_hint)
        self.step_label = QLabel("Starting…")
        self.step_label.setWordWrap(True)
        self.step_label.setObjectName("PanelStep")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("PanelStop")
        self.stop_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.stop_button.clicked.connect(self.stop_clicked)

        text = QVBoxLayout()
        text.setSpacing(4)
        text.addWidget(title)
        text.addWidget(self.step_label, 1)
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 8, 10, 8)
        row.addLayout(text, 1)
        row.addWidget(self.stop_button, 0, Qt.AlignmentFlag.AlignVCenter)
        for widget in (self, title, self.step_label, self.stop_button):
            widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.MouseButtonPress:
            self.clicks += 1
        return False

    def set_hint(self, stop_hint: str) -> None:
        """Name the global stop hotkey in the title line."""
        self.title.setText(f"gui-agent · {stop_hint} stops it" if stop_hint else "gui-agent is working")
        self.title.setToolTip(self.title.text())

    def set_step(self, text: str) -> None:
        metrics = self.step_label.fontMetrics()
        width = max(40, self.width() - 120)
        self.step_label.setText(metrics.elidedText(text, Qt.TextElideMode.ElideRight, width * 2))
        self.step_label.setToolTip(text)

    def placement(self, screen: Any | None = None) -> QRect:
        """Where the panel goes on ``screen`` (default: the primary screen)."""
        screen = screen or QGuiApplication.primaryScreen()
        area = screen.availableGeometry() if screen is not None else QRect(0, 0, 1280, 800)
        w, h = PANEL_SIZE
        x = area.right() - w - MARGIN + 1 if "right" in self.corner else area.left() + MARGIN
        y = area.bottom() - h - MARGIN + 1 if "bottom" in self.corner else area.top() + MARGIN
        return QRect(x, y, w, h)

    def show_in_corner(self, screen: Any | None = None) -> None:
        self.setGeometry(self.placement(screen))
        self.set_step("Starting the engine…")
        self.show()
        self.raise_()

    def screen_box(self) -> Box:
        """The panel's rectangle in screen pixels (what the controller takes)."""
        rect = self.frameGeometry()
        screen = self.screen() or QGuiApplication.primaryScreen()
        ratio = screen.devicePixelRatio() if screen is not None else 1.0
        return Box(round(rect.x() * ratio), round(rect.y() * ratio),
                   round(rect.width() * ratio), round(rect.height() * ratio))
