"""Counting proxies for benchmarks: how often the planner was asked, how often OCR really ran.

Both forward every other attribute (reads and writes) to what they wrap, so the agent can set
``worker.state_reader`` on a counted worker exactly as on the real one.
"""

from __future__ import annotations

from typing import Any

from ..planner.base import Planner


class _Counted:
    _COUNTED: tuple[str, ...] = ()

    def __init__(self, inner: Any, counter: dict[str, int], prefix: str) -> None:
        object.__setattr__(self, "_inner", inner)
        object.__setattr__(self, "_counter", counter)
        object.__setattr__(self, "_prefix", prefix)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if name in self._COUNTED and callable(value):
            def counted(*args: Any, **kwargs: Any) -> Any:
                self._counter[self._prefix] = self._counter.get(self._prefix, 0) + 1
                return value(*args, **kwargs)
            return counted
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._inner, name, value)


class _CountedManager(_Counted):
    _COUNTED = ("plan", "replan")


class _CountedWorker(_Counted):
    _COUNTED = ("next_action",)


def counted_planner(planner: Planner, counter: dict[str, int]) -> Planner:
    """The same planner; each plan/replan/next_action call adds one to ``counter['planner']``."""
    return Planner(planner.name, _CountedManager(planner.manager, counter, "planner"),
                   _CountedWorker(planner.worker, counter, "planner"))


class CountingParser:
    """A ScreenParser whose full parses (not frame-cache hits) and region reads are counted."""

    def __init__(self, inner: Any, counter: dict[str, int]) -> None:
        self._inner = inner
        self._counter = counter

    def parse(self, image: Any) -> Any:
        parsed = self._inner.parse(image)
        if not getattr(self._inner, "last_timings", {}).get("cached"):
            self._counter["ocr"] = self._counter.get("ocr", 0) + 1
        return parsed

    def read_text(self, *args: Any, **kwargs: Any) -> Any:
        self._counter["ocr"] = self._counter.get("ocr", 0) + 1
        return self._inner.read_text(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
