"""How the offline worker looks for a quoted target that is not on the screen.

Only where the task asks for a search: a clause that says how ('Switch between the tabs to find
and click on the link "nibh"', 'Expand the sections below, to find and click on "massa"': the
plural noun says what to open, one at a time, until it shows), a task that names a tree (its
collapsed nodes), a record to find ('Find Ann in the contact book': the list's next page, or
further down), and an item of a record ('For the user @ann, click "Block"': the menu the
record's "more" icon opens), and a name not shown in a task that scrolled before ('scroll
down ..., then click Submit': further down, and back up).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..actions import Action, Click, Move, Scroll
from ..grounding.description import ordinal_word, parse_description
from . import vocabulary as vocab
from .base import StepRecord, Subtask
from .choices import is_list_box
from .each_record import each_record
from .scoping import finds_record
from .screen_aids import is_further

EXPAND_CLICK = Click("the 1st expand icon")
TREE_NODES = "collapsed node"   # a subtask's ``reveal`` when a tree's nodes are to be opened
PAGES = "page"                  # ... when a list's next pages are to be turned (a find)
MORE_MENU = "more icon"         # ... when a record's overflow menu may hold it (parsing/more_icons)
SCROLLS = "scroll"              # ... when the task scrolled before: it may lie further down
MENU_SCROLLS = 2      # scrolls that bring a record's menu cut off at the list's edge into view
LIST_SCROLLS = 4      # ... that bring an item below an open list's edge into view

_REVEAL_RE = re.compile(
    r"^(?:please\s+)?(?:switch|move|go|click|cycle|flip|navigate|look|browse|search)\s+"
    r"(?:between|through|across|among)\s+(?:all\s+)?(?:of\s+)?(?:the\s+)?(?P<a>[a-z]+)\s*$"
    r"|^(?:please\s+)?(?:expand|open|unfold|check)\s+(?:all\s+)?(?:of\s+)?(?:the\s+)?"
    r"(?P<b>[a-z]+)(?:\s+(?:below|above|here|on\s+the\s+page))?\s*$",
    re.IGNORECASE,
)


def reveal_noun(clause: str) -> str | None:
    """The singular noun of what a search clause opens one by one ("tab" for 'switch between
    the tabs'), or None when the clause is not one (a plural is required: 'expand the section'
    is a step of its own)."""
    match = _REVEAL_RE.match(clause.strip().rstrip(".,;"))
    if match is None:
        return None
    word = (match.group("a") or match.group("b")).lower()
    if len(word) < 4 or not word.endswith("s") or word.endswith("ss"):
        return None
    if word.endswith(("xes", "ches", "shes", "sses")):
        return word[:-2]
    return word[:-1]


def explorable(subtask: Subtask) -> bool:
    """A lone click (or a find's hover) on a quoted name that the task asked to search for
    (``reveal`` set): when the name is not on the screen, it may be in a collapsed tree node,
    a closed tab or section, on a later page."""
    if subtask.reveal is None or len(subtask.actions) != 1:
        return False
    click = subtask.actions[0]
    if not isinstance(click, Click | Move) or not isinstance(click.target, str):
        return False
    return click.target.count('"') >= 2 or (subtask.reveal == SCROLLS and _named(click.target))


def _named(target: str) -> bool:
    """A target named by its text alone ('Submit', 'the Submit button'): no place, no count."""
    query = parse_description(target)
    return bool(query.text) and query.ordinal is None and not query.relations \
        and query.container is None and not query.any_one


def with_reveals(subtasks: list[Subtask]) -> list[Subtask]:
    """A search clause ('switch between the tabs') followed by a click on a quoted name becomes
    that click, told what to open one by one while the name is not on the screen; a click on a
    quoted name in a task that names a tree ('navigate through the file tree', 'in the tree')
    opens its collapsed nodes. Any other click looks at the screen as it is."""
    out: list[Subtask] = []
    for sub in subtasks:
        noun = reveal_noun(out[-1].instruction) if out else None
        scrolled = any(_scrolls(s) for s in out)
        if _picks_from_a_list_box(sub):
            # each item is looked for on its own, by scrolling the list while it does not show
            out.extend(replace(sub, actions=(a,), reveal=PAGES) for a in sub.actions)
        elif explorable(replace(sub, reveal=PAGES)) and finds_record(sub.instruction):
            out.append(replace(sub, reveal=PAGES))
        elif explorable(replace(sub, reveal=MORE_MENU)) and isinstance(sub.actions[0], Click) \
                and ' after "' in str(sub.actions[0].target):
            out.append(replace(sub, reveal=MORE_MENU))   # a record's item: maybe in its menu
        elif noun is not None and explorable(replace(sub, reveal=noun)):
            out[-1] = replace(sub, reveal=noun)
        elif explorable(replace(sub, reveal=TREE_NODES)) and _names_a_tree(
                [sub.instruction, *(s.instruction for s in out[-1:])]):
            out.append(replace(sub, reveal=TREE_NODES))
        elif scrolled and isinstance(sub.actions[:1] and sub.actions[0], Click) \
                and explorable(replace(sub, reveal=SCROLLS)):
            out.append(replace(sub, reveal=SCROLLS))   # 'scroll down ..., then click Submit'
        else:
            out.append(sub)
    return out


def _scrolls(sub: Subtask) -> bool:
    """Whether a subtask scrolls what the screen shows: a scroll of its own, a record looked for
    down its list, one part of each of several records."""
    return sub.reveal == PAGES or any(isinstance(a, Scroll) for a in sub.actions) \
        or each_record(sub) is not None


def _picks_from_a_list_box(sub: Subtask) -> bool:
    """'select Ilise, Rachael from the scroll list': clicks on quoted items of a list box."""
    return bool(sub.actions) and is_list_box(sub.instruction) and all(
        isinstance(a, Click) and isinstance(a.target, str) and a.target.count('"') >= 2 for a in sub.actions)


def _names_a_tree(instructions: list[str]) -> bool:
    words = {w.strip(".,;:!?").lower() for text in instructions for w in text.split()}
    return bool(words & vocab.TREE_WORDS)


def reveal_click(subtask: Subtask, opened: int) -> Click:
    """The next thing to open while looking for the subtask's target: the ``opened + 1``-th
    element of its ``reveal`` kind, or the first collapsed tree node."""
    if subtask.reveal in (None, TREE_NODES):
        return EXPAND_CLICK
    if subtask.reveal == MORE_MENU:
        target = str(subtask.actions[0].target)      # type: ignore[union-attr]
        return Click(f"the {MORE_MENU} {target[target.rindex(' after '):].strip()}")
    return Click(f"the {ordinal_word(opened + 1)} {subtask.reveal}")


def menu_item(subtask: Subtask) -> Click | None:
    """The click on the item alone ('the "Block" button' for 'the "Block" button after "@ann"'):
    once the menu the record's more icon opened was scrolled into view, the record's name may be
    gone above it, and the open menu is that record's."""
    click = subtask.actions[0] if len(subtask.actions) == 1 else None
    if not isinstance(click, Click) or not isinstance(click.target, str) or ' after "' not in click.target:
        return None
    return replace(click, target_=click.target[:click.target.rindex(" after ")])


def is_reveal(subtask: Subtask, action: Action) -> bool:
    """Whether ``action`` is one of the clicks that open what may hide the subtask's target."""
    if action == EXPAND_CLICK:
        return True
    if subtask.reveal == SCROLLS:
        return isinstance(action, Scroll) and is_further(action)
    if subtask.reveal == PAGES:    # the scroll that shows a found record's parts is no search
        return is_further(action) and not (isinstance(action, Scroll) and action.at == subtask.actions[0].target)
    if subtask.reveal == MORE_MENU:
        return action == reveal_click(subtask, 0)
    return (subtask.reveal is not None and isinstance(action, Click) and isinstance(action.target, str)
            and re.fullmatch(rf"the \d+(?:st|nd|rd|th) {re.escape(subtask.reveal)}", action.target) is not None)


def list_opener(subtask: Subtask) -> Click | None:
    """'select Karlen from the list' is planned as the click that opens the list, then the
    item's: that opening click, when the subtask is one such (its item may lie below the open
    list's edge); None otherwise."""
    acts = subtask.actions
    if len(acts) < 2 or not all(isinstance(a, Click) and isinstance(a.target, str) for a in acts):
        return None
    opener = acts[0]
    words = {w.strip(".,\"'").lower() for w in str(opener.target).split()}   # type: ignore[union-attr]
    return opener if words & (vocab.DROPDOWN_WORDS | {"list"}) else None   # type: ignore[return-value]


def listed_item(click: Action) -> Click | None:
    """'the "Karlen" item' for a click on '"Karlen"': the item of an open list, not the box that
    opened it when that box shows the same name (its current value); None for another target."""
    if not isinstance(click, Click) or not isinstance(click.target, str):
        return None
    target = click.target.strip()
    if len(target) < 3 or target[0] not in "\"'" or target[-1] != target[0] or target[0] in target[1:-1]:
        return None
    return replace(click, target_=f"the {target} item")


def after_inner_scrolls(subtask: Subtask, steps: list[StepRecord], expanded: bool) -> tuple[list[StepRecord], int]:
    """Scrolls that looked further inside what a click of the attempt opened (a record's menu
    after its "more" icon, a list after its box): the steps to go on from, so that the target
    is looked for again after each scroll, and how many such scrolls were made."""
    opener = list_opener(subtask)
    if subtask.reveal == MORE_MENU and expanded:
        start = 0
    elif opener is not None and any(r.ok and r.action == opener for r in steps):
        start = max(k for k, r in enumerate(steps) if r.ok and r.action == opener) + 1
    else:
        return steps, 0
    scrolls = [k for k, r in enumerate(steps) if k >= start and r.ok and isinstance(r.action, Scroll)]
    if not scrolls:
        return steps, 0
    return steps[:start] + steps[scrolls[-1] + 1:], len(scrolls)


def looks_inside(subtask: Subtask, failed: StepRecord, steps: list[StepRecord], scrolls: int) -> bool:
    """Whether an item not found is looked for further inside what a click opened: a record's
    menu (MENU_SCROLLS), a list whose opening click was made (LIST_SCROLLS)."""
    opener = list_opener(subtask)
    if subtask.reveal == MORE_MENU:
        return scrolls < MENU_SCROLLS
    return opener is not None and failed.action in subtask.actions[1:] and scrolls < LIST_SCROLLS \
        and any(r.ok and r.action == opener for r in steps)
