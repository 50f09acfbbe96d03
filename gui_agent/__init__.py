"""gui-agent: a local-first desktop computer-use agent.

The public API — what the desktop app (``ui/``), the command line (``gui_agent.commands``) and
users import. Names load on first use, so ``import gui_agent`` stays fast (no OCR, no Qt, no
model library until something needs it)::

    from gui_agent import Engine, Settings
    with Engine.from_settings(Settings(safety="refuse")) as engine:
        result = engine.run('type "Ann" into the Name field, then click "Save"')

The engine (:class:`Engine`: ``run``, ``replay``, ``record``, ``save_as``) and its settings; the
action space; observations and geometry; what a run returns; the error hierarchy; and the
library around them: the skill memory, recording, batch suites, the display, the config file.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    # the engine
    "Engine": "engine", "live_desktop": "engine",
    "AgentHooks": "step", "RunControl": "step",
    "Settings": "config", "load_settings": "config", "user_data_dir": "config",
    "user_config_dir": "config", "SAFETY_MODES": "config",
    "save_settings": "config_file", "config_path": "config_file", "check_hotkey": "config_file",
    # the action space
    "Action": "actions", "Click": "actions", "Type": "actions", "Hotkey": "actions",
    "Scroll": "actions", "Drag": "actions", "Resize": "actions", "Move": "actions", "Wait": "actions",
    "OpenApp": "actions", "Done": "actions", "Fail": "actions", "AskUser": "actions",
    "RunSkill": "actions", "parse_action": "actions", "format_action": "actions",
    # the screen and where things are
    "Observation": "screen.observation", "MonitorGeometry": "screen.observation",
    "ScreenCapture": "screen.capture", "Point": "geometry", "Box": "geometry",
    "Desktop": "desktop", "LiveDesktop": "desktop", "StillDesktop": "desktop",
    "ScreenParser": "parsing.screen_parser", "Candidate": "grounding.candidate",
    "visible_text": "grounding.candidate",
    # what a run returns
    "RunResult": "trajectory", "StepLog": "trajectory", "ReplayResult": "replay",
    "ReportEntry": "report", "write_report": "report",
    # safety, secrets, text from screens and models
    "SafetyGate": "safety", "SafetyPolicy": "safety", "SafetyContext": "safety",
    "assess": "safety", "TaskSecrets": "secrets", "secret_env_var": "secrets",
    "printable": "terminal_text", "say": "terminal_text", "private_files": "",
    # control
    "AppRegistry": "control.app_registry", "StopHotkey": "control.stop_hotkey",
    "DryRunController": "control.dry_run", "Controller": "control.base", "PyAutoGuiController": "control.pyautogui_controller",
    "check_point": "control.base",
    # the experience memory and skills
    "MemoryStore": "memory.store", "default_memory_path": "memory.store",
    "ExperienceMemory": "memory.experience", "SkillIndex": "memory.recall",
    "Skill": "memory.models", "SkillParameter": "memory.models", "PARAM_KINDS": "memory.models",
    "PLACEHOLDER_RE": "memory.models", "SkillNameTaken": "memory.models",
    "check_skill_name": "memory.models", "export_skill": "memory.portable",
    "import_skill": "memory.portable",
    # recording
    "Recorder": "recording", "compile_demo": "recording", "load_demo": "recording",
    # batch
    "load_suite": "batch.suite", "BatchOptions": "batch.options", "run_batch": "batch.runner",
    "read_records": "batch.results", "latest_by_task": "batch.results",
    # displays
    "ensure_display": "display", "display_available": "display",
    "no_display_message": "display", "wayland_limits": "display",
    # models
    "load_registry": "backends.registry", "registry_path": "backends.registry",
    "find_local_models": "backends.local_models", "hf_hub_dir": "backends.local_models",
    "resolve_model": "backends.local_models", "parse_budget": "backends.images",
    "configured_mode": "backends.modes", "ModeChoice": "backends.modes",
    "family_uses": "backends.modes",
    # errors
    "GuiAgentError": "errors", "ConfigError": "errors", "ActionParseError": "errors",
    "DisplayError": "errors", "CaptureError": "errors", "ControlError": "errors",
    "GroundingError": "errors", "TargetNotFound": "errors", "AmbiguousTarget": "errors",
    "PlanningError": "errors", "SafetyRefusal": "errors", "StepLimitReached": "errors",
    "DeadlineExceeded": "errors", "MemoryStoreError": "errors", "BackendError": "errors",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gui_agent' has no attribute {name!r}")
    if not module:   # a module of its own
        return importlib.import_module(f"{__name__}.{name}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:   # for type checkers and editors: the same names, imported eagerly
    from . import private_files
    from .actions import (
        Action,
        AskUser,
        Click,
        Done,
        Drag,
        Fail,
        Hotkey,
        Move,
        OpenApp,
        Resize,
        RunSkill,
        Scroll,
        Type,
        Wait,
        format_action,
        parse_action,
    )
    from .backends.images import parse_budget
    from .backends.local_models import find_local_models, hf_hub_dir, resolve_model
    from .backends.modes import ModeChoice, configured_mode, family_uses
    from .backends.registry import load_registry, registry_path
    from .batch.options import BatchOptions
    from .batch.results import latest_by_task, read_records
    from .batch.runner import run_batch
    from .batch.suite import load_suite
    from .config import SAFETY_MODES, Settings, load_settings, user_config_dir, user_data_dir
    from .config_file import check_hotkey, config_path, save_settings
    from .control.app_registry import AppRegistry
    from .control.base import Controller, check_point
    from .control.dry_run import DryRunController
    from .control.pyautogui_controller import PyAutoGuiController
    from .control.stop_hotkey import StopHotkey
    from .desktop import Desktop, LiveDesktop, StillDesktop
    from .display import display_available, ensure_display, no_display_message, wayland_limits
    from .engine import Engine, live_desktop
    from .errors import (
        ActionParseError,
        AmbiguousTarget,
        BackendError,
        CaptureError,
        ConfigError,
        ControlError,
        DeadlineExceeded,
        DisplayError,
        GroundingError,
        GuiAgentError,
        MemoryStoreError,
        PlanningError,
        SafetyRefusal,
        StepLimitReached,
        TargetNotFound,
    )
    from .geometry import Box, Point
    from .grounding.candidate import Candidate, visible_text
    from .memory.experience import ExperienceMemory
    from .memory.models import (
        PARAM_KINDS,
        PLACEHOLDER_RE,
        Skill,
        SkillNameTaken,
        SkillParameter,
        check_skill_name,
    )
    from .memory.portable import export_skill, import_skill
    from .memory.recall import SkillIndex
    from .memory.store import MemoryStore, default_memory_path
    from .parsing.screen_parser import ScreenParser
    from .recording import Recorder, compile_demo, load_demo
    from .replay import ReplayResult
    from .report import ReportEntry, write_report
    from .safety import SafetyContext, SafetyGate, SafetyPolicy, assess
    from .screen.capture import ScreenCapture
    from .screen.observation import MonitorGeometry, Observation
    from .secrets import TaskSecrets, secret_env_var
    from .step import AgentHooks, RunControl
    from .terminal_text import printable, say
    from .trajectory import RunResult, StepLog
