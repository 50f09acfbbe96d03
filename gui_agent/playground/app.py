"""The playground's main window and entry point (imports Qt).

A deterministic-looking app for demos and end-to-end tests: Fusion style, fixed size and
position, no animations, no blinking cursor, so two screenshots of an idle window are
identical. Everything a test needs to check is in the state file (see ``state.py``).
"""

from __future__ import annotations

import logging
import shutil
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QStyleFactory,
    QTabBar,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gui_agent.errors import ConfigError
from gui_agent.playground.editor import EditorPage
from gui_agent.playground.options import PlaygroundOptions, parse_options
from gui_agent.playground.pages import ContactsPage, ItemsPage, LoginPage, SettingsPage
from gui_agent.playground.perturb import apply_renames, with_banner
from gui_agent.playground.state import StateRecorder, initial_state
from gui_agent.playground.targets import TargetsPublisher

log = logging.getLogger(__name__)

WINDOW_TITLE = "gui-agent playground"
TAB_NAMES = ("Login", "Settings", "Items", "Editor", "Contacts")
BASE_POINT_SIZE = 10.5


def dark_palette() -> QPalette:
    palette = QPalette()
    roles = QPalette.ColorRole
    for role, color in (
        (roles.Window, "#2b2b2b"),
        (roles.WindowText, "#e8e8e8"),
        (roles.Base, "#1e1e1e"),
        (roles.AlternateBase, "#333333"),
        (roles.Text, "#e8e8e8"),
        (roles.Button, "#3a3a3a"),
        (roles.ButtonText, "#e8e8e8"),
        (roles.BrightText, "#ff6b6b"),
        (roles.Highlight, "#2f65ca"),
        (roles.HighlightedText, "#ffffff"),
        (roles.ToolTipBase, "#3a3a3a"),
        (roles.ToolTipText, "#e8e8e8"),
        (roles.PlaceholderText, "#9a9a9a"),
        (roles.Link, "#6ea8ff"),
        (roles.Light, "#505050"),
        (roles.Midlight, "#444444"),
        (roles.Mid, "#303030"),
        (roles.Dark, "#1a1a1a"),
        (roles.Shadow, "#000000"),
    ):
        palette.setColor(role, QColor(color))
    disabled = QColor("#7a7a7a")
    for role in (roles.WindowText, roles.Text, roles.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return palette


def configure_application(app: QApplication, theme: str, font_scale: float) -> None:
    """Deterministic look: Fusion, a fixed font, no effects, a steady text cursor.

    (Fusion animates nothing the playground uses; a QProxyStyle that forced the animation
    hints off crashed PySide6 6.12 at interpreter exit, so there is none.)
    """
    app.setStyle(QStyleFactory.create("Fusion"))
    palette = dark_palette() if theme == "dark" else app.style().standardPalette()
    app.setPalette(palette)
    font = QFont("DejaVu Sans")
    font.setPointSizeF(BASE_POINT_SIZE * font_scale)
    font.setHintingPreference(QFont.HintingPreference.PreferFullHinting)
    app.setFont(font)
    for effect in (
        Qt.UIEffect.UI_AnimateMenu,
        Qt.UIEffect.UI_FadeMenu,
        Qt.UIEffect.UI_AnimateCombo,
        Qt.UIEffect.UI_AnimateTooltip,
        Qt.UIEffect.UI_FadeTooltip,
        Qt.UIEffect.UI_AnimateToolBox,
    ):
        app.setEffectEnabled(effect, False)
    app.setCursorFlashTime(0)
    app.styleHints().setShowShortcutsInContextMenus(True)


class RoomyTabBar(QTabBar):
    """Tabs a little larger than Fusion's default, so labels are never clipped and easy to hit."""

    def tabSizeHint(self, index: int):  # noqa: N802 (Qt API)
        hint = super().tabSizeHint(index)
        hint.setWidth(hint.width() + 16)
        hint.setHeight(hint.height() + 8)
        return hint


class HeaderBar(QFrame):
    """The app name on the left and who is signed in on the right (no WM draws a title)."""

    def __init__(self) -> None:
        super().__init__()
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.Button)
        self.setFrameShape(QFrame.Shape.NoFrame)
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 6, 12, 6)
        self.title_label = QLabel(WINDOW_TITLE)
        bold = QFont(self.title_label.font())
        bold.setBold(True)
        self.title_label.setFont(bold)
        self.user_label = QLabel("Not signed in")
        row.addWidget(self.title_label)
        row.addStretch(1)
        row.addWidget(self.user_label)

    def show_user(self, name: str | None) -> None:
        self.user_label.setText(f"Signed in as {name}" if name else "Not signed in")


class PlaygroundWindow(QMainWindow):
    """Tabs Login / Settings / Items / Editor / Contacts over one state recorder."""

    def __init__(self, recorder: StateRecorder, options: PlaygroundOptions, save_dir: Path):
        super().__init__()
        self.recorder = recorder
        self.setWindowTitle(WINDOW_TITLE)
        self.setFixedSize(*options.size)
        self.move(*options.pos)
        self.header = HeaderBar()
        self.tabs = QTabWidget()
        self.tabs.setTabBar(RoomyTabBar())
        self.login_page = LoginPage(recorder)
        self.settings_page = SettingsPage(recorder)
        self.items_page = ItemsPage(recorder)
        self.editor_page = EditorPage(recorder, save_dir, self.quit_app)
        self.contacts_page = ContactsPage(recorder)
        pages: tuple[QWidget, ...] = (
            self.login_page,
            self.settings_page,
            self.items_page,
            self.editor_page,
            self.contacts_page,
        )
        for page, name in zip(pages, TAB_NAMES, strict=True):
            self.tabs.addTab(with_banner(page, recorder) if options.extra_widget else page, name)
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        column.addWidget(self.header)
        column.addWidget(self.tabs, 1)
        self.setCentralWidget(central)
        self.login_page.logged_in.connect(self.header.show_user)
        self.renames = dict(options.rename)   # dialogs rename their texts from this too
        apply_renames(self, self.renames)
        self.targets_publisher = TargetsPublisher(recorder)
        self.tabs.currentChanged.connect(self._tab_changed)
        recorder.set("current_tab", TAB_NAMES[0])

    def show_tab(self, name: str) -> None:
        self.tabs.setCurrentIndex(TAB_NAMES.index(name))

    def _tab_changed(self, index: int) -> None:
        name = TAB_NAMES[index]   # the tab's own name, even when shown renamed
        self.recorder.set("current_tab", name)
        self.recorder.event("tab", name=name)

    def record_geometry(self) -> None:
        g = self.geometry()
        self.recorder.set(
            "window",
            {
                "title": self.windowTitle(),
                "x": g.x(),
                "y": g.y(),
                "width": g.width(),
                "height": g.height(),
            },
        )

    def quit_app(self) -> None:
        self.recorder.event("quit")
        self.close()
        QApplication.instance().quit()


class ReadyWatcher:
    """Writes ``ready: true`` once the window is exposed and has painted itself."""

    def __init__(self, window: PlaygroundWindow, interval_ms: int = 30) -> None:
        self._window = window
        self._timer = QTimer()
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._check)
        self._timer.start()

    def _check(self) -> None:
        handle = self._window.windowHandle()
        if handle is None or not handle.isExposed():
            return
        self._timer.stop()
        self._window.repaint()
        QTimer.singleShot(100, self._ready)

    def _ready(self) -> None:
        self._window.record_geometry()
        self._window.targets_publisher.start()
        self._window.recorder.set("ready", True)
        self._window.recorder.event("ready")


def build_window(options: PlaygroundOptions) -> PlaygroundWindow:
    """Create the window (the QApplication must exist and be configured)."""
    save_dir = options.resolved_save_dir()
    state = initial_state(
        save_dir=save_dir, theme=options.theme, font_scale=options.font_scale,
        reorder=options.reorder,
    )
    recorder = StateRecorder(state, options.state_file)
    return PlaygroundWindow(recorder, options, save_dir)


def main(argv: Sequence[str] | None = None) -> int:
    """`gui-agent playground` / `python -m gui_agent.playground`: run the app until it quits."""
    try:
        options = parse_options(argv)
    except ConfigError as exc:
        print(f"gui-agent playground: {exc}", file=sys.stderr)  # noqa: T201 (CLI output)
        return 2
    app = QApplication.instance() or QApplication([sys.argv[0]])
    configure_application(app, options.theme, options.font_scale)
    window = build_window(options)
    app.aboutToQuit.connect(lambda: window.recorder.set("running", False))
    _wake = quit_on_terminate(app)
    window.show()
    _watcher = ReadyWatcher(window)
    log.info("playground running; state file: %s", options.state_file)
    try:
        return app.exec()
    finally:
        if options.save_dir is None:       # the fresh temp folder it made for Save / Save As
            shutil.rmtree(window.editor_page.save_dir, ignore_errors=True)


def quit_on_terminate(app: QApplication) -> QTimer:
    """SIGTERM and SIGINT quit the Qt loop, so that the app ends as if closed (its state says it
    stopped, its temp folder is removed). Python runs signal handlers only between bytecodes;
    the returned timer, which must be kept, wakes the interpreter while Qt waits."""
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: app.quit())
    timer = QTimer()
    timer.timeout.connect(lambda: None)
    timer.start(200)
    return timer
