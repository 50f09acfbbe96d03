"""Asking before a risky action: the screenshot with the intended action drawn on it, and
Allow once / Always for this task / Deny.

"Always for this task" approves the *kind* of risk for the rest of the run: the safety
verdict's word ("delete", "send", "secret", "terminal" ...), matched the way the policy matches
``--allow WORD``. :class:`StandingApprovals` keeps those words for one run (the engine worker
owns it); the dialog itself only reports the choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from .live_view import LiveView, Overlay, pil_to_qimage

ONCE, ALWAYS, DENY = "once", "always", "deny"
SHOT_WIDTH = 960          # the screenshot is scaled down to this many pixels before it is shown
ZOOM_MARGIN = (48, 32)    # around the target, the close-up shows this much more (image pixels)


@dataclass(frozen=True)
class ConfirmRequest:
    """One question: the action (canonical text), what it acts on, why the policy asks, the
    screen it was grounded on (PIL image) with the chosen box (l, t, r, b) and point in that
    image's pixels, and the verdict's word ("" when unknown: then no "Always" choice)."""

    action: str
    target: str = ""
    reason: str = ""
    image: Any = None
    box: tuple[int, int, int, int] | None = None
    point: tuple[int, int] | None = None
    word: str = ""


def risk_of(action: Any, candidate: Any, task: str, window_title: str | None) -> Any:
    """The safety policy's Risk for ``action`` on ``candidate`` (None when it finds none)."""
    from gui_agent import SafetyContext, assess, visible_text

    return assess(action, SafetyContext(task=task, target_text=visible_text(candidate),
                                        window_title=window_title))


def risk_word(risk: Any) -> str:
    """The word that approves this kind of risk (as ``--allow WORD`` would)."""
    if risk is None:
        return ""
    return risk.words[0] if risk.words else risk.category


class StandingApprovals:
    """The kinds of risk the person allowed for the rest of one run."""

    def __init__(self) -> None:
        self.words: list[str] = []

    def add(self, word: str) -> None:
        if word and word not in self.words:
            self.words.append(word)

    def covers(self, action: Any, candidate: Any, task: str, window_title: str | None) -> bool:
        """Whether an earlier "Always for this task" already allows this action."""
        if not self.words:
            return False
        from gui_agent import SafetyContext, SafetyGate, SafetyPolicy, visible_text

        gate = SafetyGate(SafetyPolicy("ask", tuple(self.words), max_steps=None, max_seconds=None))
        context = SafetyContext(task=task, target_text=visible_text(candidate), window_title=window_title)
        return gate.check(action, context).decision == "allow"


class ConfirmDialog(QDialog):
    """Modal; Deny is the default and what Escape or closing the window chooses."""

    def __init__(self, request: ConfirmRequest, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self.choice = DENY
        self.setWindowTitle("gui-agent asks before acting")
        self.setWindowFlag(Qt.WindowType.WindowStaysOnTopHint)
        self.setModal(True)
        head = QLabel(f"The agent wants to:  <b>{_escape(request.action)}</b>")
        head.setTextFormat(Qt.TextFormat.RichText)
        head.setWordWrap(True)
        why = f"Why it asks: {request.reason}" if request.reason else "This action needs your permission."
        if request.target:
            why += f"\nOn: {request.target}"
        self.why = QLabel(why)
        self.why.setWordWrap(True)
        self.view = LiveView()
        self.view.placeholder = "(no screenshot of this step)"
        self.view.setMinimumSize(480, 300)
        self.zoom = LiveView()           # a close-up of the target, readable where the whole screen is not
        self.zoom.placeholder = ""
        self.zoom.setFixedSize(300, 200)
        if request.image is not None:
            self.view.set_frame(pil_to_qimage(request.image, SHOT_WIDTH), tuple(request.image.size),
                                Overlay(request.box, request.point, (), f"next: {request.action}"))
            self._close_up(request)
        self.zoom.setVisible(self.zoom.image is not None)
        self.once_button = QPushButton("Allow once")
        self.always_button = QPushButton(f"Always allow “{request.word}” for this task" if request.word
                                         else "Always for this task")
        self.always_button.setEnabled(bool(request.word))
        self.always_button.setToolTip("Do not ask again during this run for actions that "
                                      f"{request.word or 'are risky this way'}")
        self.deny_button = QPushButton("Deny")
        for button, slot in ((self.once_button, self._once), (self.always_button, self._always),
                             (self.deny_button, self.reject)):
            button.setAutoDefault(False)
            button.clicked.connect(slot)      # bound methods: no lambda receivers outliving the dialog
        self.deny_button.setDefault(True)
        self.deny_button.setFocus()
        row = QHBoxLayout()
        row.addWidget(self.once_button)
        row.addWidget(self.always_button)
        row.addStretch(1)
        row.addWidget(self.deny_button)
        layout = QVBoxLayout(self)
        layout.addWidget(head)
        layout.addWidget(self.why)
        pictures = QHBoxLayout()
        pictures.addWidget(self.view, 1)
        pictures.addWidget(self.zoom, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(pictures, 1)
        layout.addLayout(row)
        self.resize(900, 560)

    def _close_up(self, request: ConfirmRequest) -> None:
        if request.box is None:
            return
        width, height = request.image.size
        left, top, right, bottom = request.box
        x0, y0 = max(0, left - ZOOM_MARGIN[0]), max(0, top - ZOOM_MARGIN[1])
        x1, y1 = min(width, right + ZOOM_MARGIN[0]), min(height, bottom + ZOOM_MARGIN[1])
        if x1 <= x0 or y1 <= y0:
            return
        crop = request.image.crop((x0, y0, x1, y1))
        point = (request.point[0] - x0, request.point[1] - y0) if request.point else None
        self.zoom.set_frame(pil_to_qimage(crop), crop.size, Overlay((left - x0, top - y0, right - x0, bottom - y0), point))

    def _once(self) -> None:
        self.choice = ONCE
        self.accept()

    def _always(self) -> None:
        self.choice = ALWAYS
        self.accept()

    def ask(self) -> str:
        """Show it and wait: ONCE, ALWAYS or DENY."""
        self.choice = DENY
        self.exec()
        return self.choice


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
