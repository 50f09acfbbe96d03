"""The instruction the agent is given: the MiniWoB utterance, as a user would type it.

Deliberately no rewriting: no task-specific rules, no translation into the offline planner's
preferred phrasing. If the planner cannot read a plain phrasing such as
'Click on the "OK" button.', that is a planner gap the benchmark must show, not hide.
Only whitespace is normalised (the utterance comes from the page's text, where line breaks
and indentation of the HTML source leak in).
"""

from __future__ import annotations

import re

from ...errors import GuiAgentError

_SPACE = re.compile(r"\s+")


def utterance_text(value: str | dict[str, object] | None) -> str:
    """The text of what ``core.getUtterance()`` returned: a string, or on the tasks with natural
    language fields ({'utterance': ..., 'fields': {...}}) its 'utterance' only; the fields are the
    page's answer key, which a user never sees."""
    if isinstance(value, dict):
        value = value.get("utterance")
    return value if isinstance(value, str) else ""


def instruction_from_utterance(utterance: str) -> str:
    """The utterance with runs of whitespace made single spaces; raises if it is empty."""
    text = _SPACE.sub(" ", utterance or "").strip()
    if not text:
        raise GuiAgentError("the MiniWoB episode has no instruction text (an empty #query); "
                            "the page may not have started its episode")
    return text
