"""The task's own words on the screen are never a target.

A benchmark page prints the instruction above its form, and on a real screen the agent's own
task box may be visible: 'click submit' must not click the word "submit" of the sentence
"... and click submit.". A paragraph of text lines (lines stacked as a wrapped text is) whose
letters reproduce a run of the task's letters is the task's echo when it says more than the
target description itself ('click Terms and Conditions' may still find the link "Terms and
Conditions") and holds a good share of the task (a label "Year of Birth" stays a label). Letters are compared without spaces or punctuation, so OCR that glues bold words
together ("EnterthevalueofYearofBirth") is still recognised.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

from ..geometry import Box
from ..parsing.elements import Element, ScreenParse
from .paragraphs import letters, paragraphs

MIN_ECHO_CHARS = 10        # a paragraph shorter than this (in letters) is a label, not an echo
TASK_SHARE = 0.4           # ... and so is one holding less than this share of the task's letters
MATCHED_SHARE = 0.85       # share of a paragraph's letters found in the task, in order
LONGEST_RUN_SHARE = 0.5    # ... of which one unbroken run holds at least this share


@dataclass(frozen=True)
class Echo:
    """A paragraph of the screen that repeats the task: its box and lines."""

    box: Box
    lines: tuple[Element, ...]


def _repeats(text: str, task: str) -> bool:
    """Whether ``text``'s letters appear in ``task``'s in order, mostly as one run."""
    if len(text) < MIN_ECHO_CHARS:
        return False
    if text in task:
        return True
    matcher = SequenceMatcher(None, text, task, autojunk=False)
    blocks = matcher.get_matching_blocks()
    matched = sum(b.size for b in blocks)
    longest = max((b.size for b in blocks), default=0)
    return matched >= MATCHED_SHARE * len(text) and longest >= LONGEST_RUN_SHARE * len(text)


def echoes(parse: ScreenParse, task: str, target: str = "") -> list[Echo]:
    """The paragraphs of ``parse`` that repeat ``task`` and say more than ``target`` does."""
    said, named = letters(task), letters(target)
    if len(said) < MIN_ECHO_CHARS:
        return []
    found = []
    for group in paragraphs(parse.elements):
        text = "".join(letters(e.text) for e in group)
        if named and text in named:
            continue   # the paragraph is the target's own name
        if len(text) >= TASK_SHARE * len(said) and _repeats(text, said):
            box = group[0].box
            for e in group[1:]:
                box = box.union(e.box)
            found.append(Echo(box, tuple(group)))
    return found


def without_echo(parse: ScreenParse, task: str, target: str = "") -> ScreenParse:
    """``parse`` less the task's echo: its lines and whatever lies inside it (a word the parser
    took for a button or a link)."""
    found = echoes(parse, task, target)
    if not found:
        return parse
    kept = tuple(e for e in parse.elements
                 if not any(e in echo.lines or echo.box.contains(e.box.center) for echo in found))
    return ScreenParse(kept, parse.width, parse.height, parse.windows)
