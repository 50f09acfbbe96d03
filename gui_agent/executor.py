"""Turns one grounded action into controller calls (screen coordinates)."""

from __future__ import annotations

import logging
import sys
import threading

from .actions import (
    Action,
    Click,
    Drag,
    Hotkey,
    Move,
    OpenApp,
    Resize,
    RunSkill,
    Scroll,
    Type,
    Wait,
)
from .control.base import Controller
from .errors import PlanningError
from .geometry import Point

log = logging.getLogger(__name__)

PRIMARY_MODIFIER = "command" if sys.platform == "darwin" else "ctrl"


def perform(action: Action, points: dict[str, Point], controller: Controller,
            stop: threading.Event | None = None) -> None:
    """Carry out ``action``; ``points`` maps the action's target fields to screen points."""
    match action:
        case Click(button=button, clicks=clicks, hold=hold):
            if hold:
                controller.key_down(hold)
            try:
                controller.click(points["target"], button=button, clicks=clicks)
            finally:
                if hold:
                    controller.key_up(hold)
        case Type(read_from=str() as source):
            raise PlanningError(f"the text to type was to be read from {source} first; "
                                "the planner hands out a typing step with the text it read")
        case Type(text=text, clear=clear, enter=enter):
            if "into" in points:
                controller.click(points["into"])
            if clear:
                controller.hotkey(PRIMARY_MODIFIER, "a")
                controller.press("backspace")
            if text:
                controller.type_text(text)
            if enter:
                controller.press("enter")
        case Hotkey(keys=keys):
            controller.hotkey(*keys)
        case Scroll(direction=direction, amount=amount):
            controller.scroll(direction, amount, points.get("at"))
        case Drag() | Resize():
            # a resize's grip and where it goes are worked out from the element's box (acting.py)
            controller.drag(points["source"], points["destination"])
        case Move():
            controller.move(points["target"])
        case Wait(seconds=seconds):
            (stop or threading.Event()).wait(seconds)
        case OpenApp(app=name):
            controller.launch(name)
        case RunSkill(skill=name):
            raise PlanningError(f"there is no skill named {name!r} in the skill library")
        case _:
            raise PlanningError(f"{action} is not something the controller performs")
