"""After each action: has the screen settled, did the step have its effect, is the agent looping?

:mod:`.settle` waits for the screen; :mod:`.effect` judges what a step changed.
"""

from .effect import Effect, action_effect, typed_effect, visible_change
from .settle import (
    PIXEL_TOLERANCE,
    LoopDetector,
    Settled,
    changed_region,
    frame_digest,
    frames_equal,
    settle_after,
    wait_until_settled,
)

__all__ = [
    "PIXEL_TOLERANCE", "Effect", "LoopDetector", "Settled", "action_effect", "changed_region",
    "frame_digest", "frames_equal", "settle_after", "typed_effect", "visible_change",
    "wait_until_settled",
]
