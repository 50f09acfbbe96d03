"""Waiting on something that happens in another process or thread."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest


def wait_until(condition: Callable[[], object], what: str, timeout: float = 30.0,
               interval: float = 0.05) -> object:
    """Poll ``condition`` until it returns something true (returned); fail naming ``what``.

    ``timeout`` is a ceiling for a busy machine, not a measure: waits end when the condition holds.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}", pytrace=False)
        time.sleep(interval)
