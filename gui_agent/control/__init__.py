"""Performs actions: real mouse and keyboard (pyautogui), a dry run, key names, the stop hotkey,
and application launches through the application registry.

Importing this package imports neither pyautogui nor pynput: both open the display.
"""

from .app_registry import AppEntry, AppFinder, AppRefused, AppRegistry
from .base import (
    BUTTONS,
    DIRECTIONS,
    Controller,
    FailSafeTriggered,
    MouseButton,
    ScrollDirection,
    needs_clipboard,
)
from .dry_run import DryRunController, DryRunEntry
from .keys import UnknownKey, normalize_key, parse_hotkey
from .launcher import launch_app
from .pyautogui_controller import PyAutoGuiController
from .stop_hotkey import DEFAULT_STOP_HOTKEY, StopHotkey

__all__ = [
    "BUTTONS",
    "AppEntry",
    "AppFinder",
    "AppRefused",
    "AppRegistry",
    "DEFAULT_STOP_HOTKEY",
    "DIRECTIONS",
    "Controller",
    "DryRunController",
    "DryRunEntry",
    "FailSafeTriggered",
    "MouseButton",
    "PyAutoGuiController",
    "ScrollDirection",
    "StopHotkey",
    "UnknownKey",
    "launch_app",
    "needs_clipboard",
    "normalize_key",
    "parse_hotkey",
]
