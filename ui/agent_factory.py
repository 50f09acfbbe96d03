"""The agent the app runs by default, on the real screen: the offline planner, or the model the
settings name (``model`` / ``base_url`` / ``grounding_model``, the engine selector's choice).

Engine modules (and with them OCR and onnxruntime) are imported on the first run, in the
worker thread, so the window opens fast. The grounding ladder and its screen parser are
kept between runs: loading the OCR models once is enough. A model is set up per run through
``model_parts(settings)`` as the CLI does (its weights are cached by the backend, so they load
once); a model that cannot be loaded raises here, in the worker thread, and the run ends with
that error.
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

    def planning(self, settings: Any, deadline: Any = None) -> tuple[Any, Any, Any]:
        """(planner, ladder, parser) for ``settings``: the model's when one is set, like the CLI;
        ``deadline``: the run's, which every model call keeps within."""
        from gui_agent.planner import offline_planner

        ladder, parser = self._grounding()
        if not (settings.model or settings.grounding_model):
            return offline_planner(), ladder, parser
        from gui_agent.planner.vlm_setup import model_parts

        model_planner, model_ladder, parser = model_parts(settings, parser, deadline=deadline)
        return model_planner or offline_planner(), model_ladder, parser

    def __call__(self, request: RunRequest) -> Agent:
        from gui_agent.agent import Agent
        from gui_agent.desktop import LiveDesktop
        from gui_agent.display import display_available, no_display_message
        from gui_agent.errors import DisplayError

        if not display_available():
            raise DisplayError(no_display_message())
        from gui_agent.control.app_registry import AppRegistry
        from gui_agent.control.dry_run import DryRunController
        from gui_agent.safety import SafetyGate

        settings = request.settings
        apps = AppRegistry.for_platform(settings.allow_apps)
        if request.dry_run:
            controller: Any = DryRunController(apps=apps)
        else:
            from gui_agent.control.pyautogui_controller import PyAutoGuiController

            controller = PyAutoGuiController(apps=apps)
        from gui_agent.deadline import Deadline

        deadline = Deadline()
        planner, ladder, parser = self.planning(settings, deadline)
        memory = None
        if not request.dry_run:
            from gui_agent.memory.experience import ExperienceMemory

            memory = ExperienceMemory.from_settings(settings)
        return Agent(LiveDesktop(controller, settings.monitor), planner,
                     settings=settings, ladder=ladder, parser=parser, live=not request.dry_run,
                     memory=memory, deadline=deadline, safety=SafetyGate.from_settings(settings, apps))
