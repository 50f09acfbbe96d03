"""No window outlives the UI test that made it.

Windows a test left open (a main window's status panel, a recording indicator: top-level tool
windows no test closes) lived on in the one QApplication of the test process, and were destroyed
later by the garbage collector at any moment of any later test, or had their timers and events
delivered while pytest-qt processed events after an unrelated test. Here each test's new
top-level windows are closed and deleted when it ends, and the deletions carried out at once.
"""

from __future__ import annotations

import gc

import pytest


@pytest.fixture(autouse=True)
def _windows_closed_after_each_test():
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    before = {id(w) for w in app.topLevelWidgets()} if isinstance(app, QApplication) else set()
    yield
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return
    from PySide6.QtCore import QCoreApplication, QEvent

    for widget in app.topLevelWidgets():
        if id(widget) not in before:
            widget.close()
            widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    app.processEvents()
    gc.collect()
