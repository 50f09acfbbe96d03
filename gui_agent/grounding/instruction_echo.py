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
LINE_RUN_SHARE = 0.6       # a line of the echo: this share of its letters is one run of the task's
LINE_SLACK = 6             # letters a line of the echo may start after where the one above it ended


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


def _beyond_name(text: str, said: str, named: str) -> bool:
    """Whether a run that holds the target's name also repeats the task's other words: 'dog
    near the river' holds the name of 'bold "near the river"' and "dog", which the task does not
    say; the task's echo would say "bold"."""
    if not named or named not in text:
        return True
    rest, others = text.replace(named, "", 1), said.replace(named, "", 1)
    if not rest or not others:
        return False
    blocks = SequenceMatcher(None, rest, others, autojunk=False).get_matching_blocks()
    return sum(b.size for b in blocks) >= MATCHED_SHARE * len(rest)


def _place_in_task(line: str, said: str, after: int | None) -> int | None:
    """Where in the task a line's letters end, when they are, for the most part, one run of
    the task's (OCR may misread a few); ``after``: the previous line's end, which this line must
    follow closely (the task's lines run on in its order: a label that happens to be a word of
    the task, further down the page, is not its next line). None: not a line of the task."""
    lo = 0 if after is None else after
    hi = len(said) if after is None else min(len(said), after + len(line) + LINE_SLACK)
    window = said[lo:hi]
    blocks = SequenceMatcher(None, line, window, autojunk=False).get_matching_blocks()
    best = max(blocks, key=lambda b: b.size, default=None)
    if best is None or best.size < LINE_RUN_SHARE * len(line):
        return None
    if after is not None and best.b - best.a > LINE_SLACK:
        return None
    return lo + best.b + best.size + (len(line) - best.a - best.size)


def echoes(parse: ScreenParse, task: str, target: str = "") -> list[Echo]:
    """The paragraphs of ``parse`` that repeat ``task`` and say more than ``target`` does."""
    said, named = letters(task), letters(target)
    if len(said) < MIN_ECHO_CHARS:
        return []
    found = []
    for group in paragraphs(parse.elements):
        for run in _echo_runs(group, said, named):
            box = run[0].box
            for e in run[1:]:
                box = box.union(e.box)
            found.append(Echo(box, tuple(run)))
    return found


def _echo_runs(group: list[Element], said: str, named: str) -> list[list[Element]]:
    """The runs of consecutive lines of a paragraph that repeat the task, each as long as it
    goes on repeating it: the instruction's lines run on into the page's first lines when they
    lie close under them (a list scrolled up to the instruction bar)."""
    runs: list[list[Element]] = []
    start = 0
    while start < len(group):
        text, best, at = "", None, None
        for end in range(start, len(group)):
            line = letters(group[end].text)
            at = _place_in_task(line, said, at)
            if at is None:
                break
            text += line
            if len(text) < MIN_ECHO_CHARS:
                continue
            if not _repeats(text, said):
                break
            if len(text) >= TASK_SHARE * len(said) and not (named and text in named) \
                    and _beyond_name(text, said, named):
                best = end     # a run that is the target's own name is no echo
        if best is None:
            start += 1
            continue
        runs.append(group[start:best + 1])
        start = best + 1
    return runs


def without_echo(parse: ScreenParse, task: str, target: str = "") -> ScreenParse:
    """``parse`` less the task's echo: its lines and whatever lies inside it (a word the parser
    took for a button or a link)."""
    found = echoes(parse, task, target)
    if not found:
        return parse
    kept = tuple(e for e in parse.elements
                 if not any(e in echo.lines or echo.box.contains(e.box.center) for echo in found))
    return ScreenParse(kept, parse.width, parse.height, parse.windows)
