"""Grounding on the real playground app, rendered offscreen (light and dark), with the real parser.

Each scene is the main window grabbed with ``widget.grab()``, with a dialog (a separate
top-level window) painted over it where the app placed it. The truth is the Qt geometry of the
widget a description names: the grounded point must fall inside it.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np
import pytest
from PIL import Image

from gui_agent.errors import GroundingError
from gui_agent.geometry import Box
from gui_agent.grounding.ladder import GroundingLadder
from gui_agent.grounding.ocr_grounder import OcrGrounder
from gui_agent.screen.observation import Observation
from tests.support.requirements import require_module

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def qapp():
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    widgets = require_module("PySide6.QtWidgets")
    app = widgets.QApplication.instance() or widgets.QApplication([])
    saved = (app.style().name(), app.palette(), app.font())
    yield app
    app.setStyle(saved[0])
    app.setPalette(saved[1])
    app.setFont(saved[2])


def _image(widget) -> Image.Image:
    from PySide6.QtGui import QImage

    qimage = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    w, h = qimage.width(), qimage.height()
    rows = np.frombuffer(qimage.constBits(), np.uint8).reshape(h, qimage.bytesPerLine())
    return Image.fromarray(rows[:, : w * 3].reshape(h, w, 3).copy())


def _box(widget, window, rect=None) -> Box:
    from PySide6.QtCore import QPoint

    rect = rect if rect is not None else widget.rect()
    top_left = widget.mapToGlobal(rect.topLeft()) - window.mapToGlobal(QPoint(0, 0))
    return Box(top_left.x(), top_left.y(), rect.width(), rect.height())


def _scene(app, window, dialog=None) -> Image.Image:
    app.processEvents()
    image = _image(window)
    if dialog is not None:
        offset = dialog.mapToGlobal(dialog.rect().topLeft()) - window.mapToGlobal(window.rect().topLeft())
        image.paste(_image(dialog), (offset.x(), offset.y()))
    return image


Scene = tuple[str, Image.Image, list[tuple[str, Box]]]


def _scenes(app, theme: str) -> list[Scene]:
    from gui_agent.playground.app import TAB_NAMES, build_window, configure_application
    from gui_agent.playground.options import PlaygroundOptions
    from gui_agent.playground.pages import CONTACTS

    configure_application(app, theme, 1.0)
    window = build_window(PlaygroundOptions(theme=theme))
    window.show()
    tabs = window.tabs
    tab = lambda name: _box(tabs.tabBar(), window, tabs.tabBar().tabRect(TAB_NAMES.index(name)))  # noqa: E731
    of: Callable[[object], Box] = lambda w: _box(w, window)  # noqa: E731
    scenes: list[Scene] = []
    login = window.login_page
    scenes.append(("login", _scene(app, window), [
        ("the Username field", of(login.username_edit)), ("the Password field", of(login.password_edit)),
        ('"Remember me"', of(login.remember_check)), ('"Log in"', of(login.login_button)),
        ("the Settings tab", tab("Settings")), ('"Settings"', tab("Settings"))]))

    window.show_tab("Settings")
    settings = window.settings_page
    scenes.append(("settings", _scene(app, window), [('"Open settings…"', of(settings.open_button))]))
    settings.open_dialog()
    d = settings.dialog
    scenes.append(("settings dialog", _scene(app, window, d), [
        ("the Name field", of(d.name_edit)), ("the Email field", of(d.email_edit)),
        ('"Enable notifications"', of(d.notifications_check)), ('"Large"', of(d.size_radios["Large"])),
        ("the Color dropdown", of(d.color_combo)), ("Color", of(d.color_combo)), ('"OK"', of(d.ok_button))]))
    d.reject()

    window.show_tab("Items")
    items = window.items_page
    scenes.append(("items", _scene(app, window), [
        ('"Items"', tab("Items")), ("the New item field", of(items.new_item_edit)),
        ('"Add"', of(items.add_button)), ('"Delete"', of(items.delete_button))]))
    items.list_widget.setCurrentRow(0)
    items.ask_delete()
    scenes.append(("confirm", _scene(app, window, items.confirm_dialog),
                   [('"Yes"', of(items.confirm_dialog.yes_button))]))
    items.confirm_dialog.reject()

    window.show_tab("Editor")
    editor = window.editor_page
    editor.text_edit.setPlainText("hello world")
    file_item = editor.menu_bar.actionGeometry(editor.file_menu.menuAction())
    scenes.append(("editor", _scene(app, window), [
        ('"Editor"', tab("Editor")), ('"File"', _box(editor.menu_bar, window, file_item)),
        ("the text area", of(editor.text_edit))]))
    editor.save_as()
    fd = editor.file_dialog
    scenes.append(("save as", _scene(app, window, fd), [
        ("the File name field", of(fd.name_edit)), ('"Save"', of(fd.action_button))]))
    fd.reject()

    window.show_tab("Contacts")
    contacts = window.contacts_page
    bob = [name for name, _ in CONTACTS].index("Bob")
    scenes.append(("contacts", _scene(app, window), [
        ("the Edit button next to Bob", of(contacts.edit_buttons[bob])),
        ("the 3rd Edit button", of(contacts.edit_buttons[2]))]))
    window.close()
    window.deleteLater()
    app.processEvents()
    return scenes


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_playground_descriptions_resolve_inside_their_widget(qapp, theme: str) -> None:
    from gui_agent.parsing.screen_parser import ScreenParser

    ladder = GroundingLadder([OcrGrounder(ScreenParser())])
    failures = []
    total = 0
    for name, image, cases in _scenes(qapp, theme):
        obs = Observation.from_image(image)
        for description, box in cases:
            total += 1
            try:
                found = ladder.resolve(description, obs)
            except GroundingError as exc:
                failures.append(f"{name}: {description!r}: {type(exc).__name__} {exc}")
                continue
            if not box.contains(found.point):
                failures.append(f"{name}: {description!r} -> {found} ({found.why}), expected inside {box}")
    assert total >= 25
    assert not failures, "\n".join(failures)
