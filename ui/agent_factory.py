"""The agent the app runs by default: the offline planner on the real screen.

Engine modules (and with them OCR and onnxruntime) are imported on the first run, in the
worker thread, so the window opens fast. The grounding ladder and its screen parser are
kept between runs: loading the OCR models once is enough.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gui_agent.agent import Agent

    from .engine_worker import RunRequest


class EngineFactory:
    """Builds an Agent for a RunRequest: real input, or a dry run that only records."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ladder: Any = None
        self._parser: Any = None

    def _grounding(self) -> tuple[Any, Any]:
        with self._lock:
            if self._ladder is None:
                from gui_agent.grounding.default import default_ladder

                self._ladder, self._parser = default_ladder()
            return self._ladder, self._parser

    def __call__(self, request: RunRequest) -> Agent:
        from gui_agent.agent import Agent
        from gui_agent.desktop import LiveDesktop
        from gui_agent.display import display_available, no_display_message
        from gui_agent.errors import DisplayError
        from gui_agent.planner import offline_planner

        if not display_available():
            raise DisplayError(no_display_message())
        if request.dry_run:
            from gui_agent.control.dry_run import DryRunController

            controller: Any = DryRunController()
        else:
            from gui_agent.control.pyautogui_controller import PyAutoGuiController

            controller = PyAutoGuiController()
        ladder, parser = self._grounding()
        settings = request.settings
        memory = None
        if not request.dry_run:
            from gui_agent.memory.experience import ExperienceMemory

            memory = ExperienceMemory.from_settings(settings)
        return Agent(LiveDesktop(controller, settings.monitor), offline_planner(),
                     settings=settings, ladder=ladder, parser=parser, live=not request.dry_run,
                     memory=memory)
