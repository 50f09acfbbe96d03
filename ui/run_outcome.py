"""What the main window says of a finished run: its outcome in a line (with the colour it is
shown in) and a link to its run folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QUrl

OUTCOME_TEXT = {"done": "Done", "failed": "Failed", "refused": "Refused", "stopped": "Stopped",
                "error": "Error"}
OUTCOME_STYLE = {"done": "color: #16803d;", "stopped": "color: #6b7280;"}
FAILURE_STYLE = "color: #b91c1c;"
FOLDER_NAME_CHARS = 40


def outcome_summary(result: Any) -> tuple[str, str]:
    """(text, style sheet) for a run's result: outcome, steps, time, skill, reason, answer."""
    word = OUTCOME_TEXT.get(result.outcome, result.outcome)
    text = f"{word} — {len(result.steps)} steps in {result.seconds:.1f} s"
    if getattr(result, "skill", None):
        text += f" (skill {result.skill!r})"
    if result.reason:
        text += f": {result.reason}"
    if result.answer:
        text += f" — answer: {result.answer}"
    return text, OUTCOME_STYLE.get(result.outcome, FAILURE_STYLE)


def run_folder_link(run_dir: str | Path) -> str:
    """A rich-text link to the run folder, its name cut to FOLDER_NAME_CHARS characters."""
    name = Path(run_dir).name
    name = name if len(name) <= FOLDER_NAME_CHARS else name[:FOLDER_NAME_CHARS - 1] + "…"
    return f'run folder: <a href="{QUrl.fromLocalFile(str(run_dir)).toString()}">{name}</a>'
