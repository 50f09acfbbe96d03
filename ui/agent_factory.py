"""The engine the app runs, on the real screen: the offline planner, or the model the settings
name (``model`` / ``base_url`` / ``grounding_model``, the engine selector's choice).

Engine modules (and with them OCR and onnxruntime) are imported on the first run, in the
worker thread, so the window opens fast. The screen parser is kept between runs: loading the
OCR models once is enough. Each run gets its engine from ``Engine.from_settings`` as the CLI
does; a model that cannot be loaded raises here, in the worker thread, and the run ends with
that error.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gui_agent import AgentHooks, Desktop, Engine, RunControl

    from .engine_worker import RunRequest


class EngineFactory:
    """Builds an Engine for a RunRequest: real input, or a dry run that only records.

    ``wrap`` puts the app's keep-out wrapper around the real desktop; ``hooks`` and ``control``
    (Stop and Pause) are the worker's.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._parser: Any = None

    def parser(self) -> Any:
        with self._lock:
            if self._parser is None:
                from gui_agent import ScreenParser

                self._parser = ScreenParser()
            return self._parser

    def __call__(self, request: RunRequest, hooks: AgentHooks, control: RunControl,
                 wrap: Callable[[Desktop], Desktop]) -> Engine:
        from gui_agent import (
            AppRegistry,
            DisplayError,
            Engine,
            display_available,
            live_desktop,
            no_display_message,
        )

        if not display_available():
            raise DisplayError(no_display_message())
        settings = request.settings
        apps = AppRegistry.for_platform(settings.allow_apps)
        desktop = wrap(live_desktop(settings, apps, dry_run=request.dry_run))
        return Engine.from_settings(settings, desktop, hooks, dry_run=request.dry_run, apps=apps,
                                    parser=self.parser(), control=control)
