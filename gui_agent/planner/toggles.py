"""Clicks on check boxes and radio buttons are toggles: a second click undoes the first.

So a toggle already in the state a subtask asks for is not clicked ('check "Remember me"' on
a ticked box), and a retry of a subtask counts done the toggles its failed attempt clicked
('select A, B, C' failing at C must not click A and B again, which would clear them). The
state is read by a ``StateReader`` (the agent wires it to the grounder): True or False for a
box's state, None where the target is no toggle or its state cannot be told.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from ..actions import Click
from ..screen.observation import Observation
from .base import StepRecord, Subtask
from .instruction_parser import wanted_state

log = logging.getLogger(__name__)

StateReader = Callable[[str, Observation], "bool | None"]


def already_there(subtask: Subtask, observation: Observation | None, reader: StateReader | None) -> bool:
    """Whether a one-click check/uncheck/expand/collapse subtask's target is in the wanted state."""
    if reader is None or observation is None or len(subtask.actions) != 1:
        return False
    click = subtask.actions[0]
    want = wanted_state(subtask.instruction)
    if want is None or not isinstance(click, Click) or not isinstance(click.target, str):
        return False
    if reader(click.target, observation) is want:
        log.info("%r: already %s, nothing to do", click.target, "on" if want else "off")
        return True
    return False


def toggles_clicked(steps: Sequence[StepRecord], observation: Observation | None,
                    reader: StateReader | None) -> list[StepRecord]:
    """The steps of a failed attempt that clicked a check box or a radio button."""
    if reader is None or observation is None:
        return []
    return [r for r in steps if r.ok and isinstance(r.action, Click) and r.action.clicks == 1
            and isinstance(r.action.target, str) and reader(r.action.target, observation) is not None]
