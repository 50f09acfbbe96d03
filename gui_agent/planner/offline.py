"""The offline planner: no model, explicit instructions only (see :mod:`.instruction_parser`).

``OfflineManager.plan`` makes one :class:`Subtask` per clause with its actions planned up
front; ``OfflineWorker.next_action`` hands them out one by one. Re-planning is simple on
purpose: a failed subtask is retried once, and if it fails again the run gives up with the
reason (``replan`` returns an empty list).

Exploring stays in bounds: a name that is not on the screen is looked for by opening things
one at a time only when the task asks for such a search ('switch between the tabs to find …',
'navigate through the file tree. Find and click …'), and never by clicking inside a dialog the
task does not name (where the accessibility tree tells dialogs apart).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..actions import Action, Click, Done, Fail, Scroll, Type, format_action
from ..errors import AMBIGUOUS, NO_EFFECT
from ..screen.observation import Observation
from .base import Planner, StepRecord, Subtask
from .dialogs import is_dismissal
from .each_record import each_record
from .instruction_parser import parse_instructions
from .paging import paged_target
from .reveal import (
    MORE_MENU,
    PAGES,
    SCROLLS,
    TREE_NODES,
    after_inner_scrolls,
    explorable,
    is_reveal,
    list_opener,
    listed_item,
    looks_inside,
    menu_item,
    reveal_click,
    with_reveals,
)
from .screen_aids import (
    FIND_SCROLL,
    NOT_FOUND,
    ModalReader,
    NamedReader,
    ScreenAids,
    SliderReader,
    TextsReader,
    ValueReader,
)
from .slider import one_slider_each, slider_target
from .spinner import nudge
from .toggles import StateReader, already_there, toggles_clicked

log = logging.getLogger(__name__)

# (target description, observation) -> the title of the dialog it lies in. None: in none.
DialogReader = Callable[[str, Observation], "str | None"]
MAX_RETRIES = 1
MAX_EXPANSIONS = 15
_NOT_FOUND = NOT_FOUND


def planned(subtask: Subtask, action: Action) -> bool:
    """Whether ``action`` is one of the subtask's planned steps (a typing step read off the
    screen counts as the planned one it was read for)."""
    if action in subtask.actions:
        return True
    return isinstance(action, Type) and any(
        isinstance(p, Type) and p.read_from is not None
        and replace(action, text="", read_from=p.read_from) == p for p in subtask.actions)


def next_planned(subtask: Subtask, steps: Sequence[StepRecord]) -> Action | None:
    """The first planned action that no step of the attempt has done yet (in plan order)."""
    taken = [r.action for r in steps]
    for action in subtask.actions:
        match = next((i for i, a in enumerate(taken) if a == action or planned(
            Subtask("", (action,)), a)), None)
        if match is None:
            return action
        del taken[match]
    return None


class OfflineManager:
    """Plans a task by reading it; keeps the last plan to answer ``replan``."""

    replans_after_success = False

    def __init__(self, max_retries: int = MAX_RETRIES) -> None:
        self.max_retries = max_retries
        self._task: str | None = None
        self._plan: list[Subtask] = []
        self._retries: dict[int, int] = {}

    @property
    def task(self) -> str | None:
        """The task of the latest plan."""
        return self._task

    def plan(self, task: str, observation: Observation | None = None) -> list[Subtask]:
        subtasks = with_reveals([one for p in parse_instructions(task)
                                 for one in one_slider_each(Subtask(p.text, p.actions, p.expect))])
        self._task, self._plan, self._retries = task, subtasks, {}
        log.debug("offline plan for %r: %s", task, [s.instruction for s in subtasks])
        return list(subtasks)

    def replan(self, task: str, observation: Observation | None, done: list[Subtask],
               failed: Subtask | None, reason: str) -> list[Subtask]:
        """The rest of the plan; after a failure, the failed subtask once more first.

        Returns [] (give up) when the failed subtask was already retried ``max_retries`` times.
        """
        if task != self._task:
            self.plan(task, observation)
        position = len(done)
        rest = self._plan[position + 1:] if failed is not None else self._plan[position:]
        if failed is None:
            return list(rest)
        tries = self._retries.get(position, 0)
        if tries >= self.max_retries:
            log.info("giving up on %r after %d retries: %s", failed.instruction, tries, reason)
            return []
        self._retries[position] = tries + 1
        log.info("retrying %r: %s", failed.instruction, reason)
        return [failed, *rest]


class OfflineWorker:
    """Hands out a subtask's planned actions in order, then ``Done()``.

    An *attempt* at a subtask starts when the worker is given a different Subtask object
    than on its previous call, or after it answered Done/Fail; the attempt's steps are the
    history records appended since then. A failed step ends the attempt with ``Fail``.

    For check/uncheck/tick/untick/expand/collapse, ``state_reader`` (the agent wires it to
    the grounder) tells whether the target is already in the wanted state; then the click is
    skipped. None, or a reader answering None, means unknown: the click is made.

    When a subtask sets a number ('set the spinner to 4', 'select 4 with the spinner'),
    ``value_reader`` reads the field back after typing; a field that refused the keys (many
    spinners do) is then nudged with its up/down arrows (spinner.py).

    When a lone click on a quoted name fails because the name is not on the screen, the
    worker opens 'the 1st expand icon' (the first collapsed tree node in reading order) and
    tries the name again, and so on, at most MAX_EXPANSIONS times; when no collapsed node is
    left it fails, saying so.

    What it does when the screen is not as planned (a text to read before typing it, a date
    picked on a calendar, a dialog in the way, a slider) is :mod:`.screen_aids`'.
    """

    def __init__(self, state_reader: StateReader | None = None,
                 value_reader: ValueReader | None = None,
                 dialog_reader: DialogReader | None = None,
                 task: Callable[[], str] | None = None,
                 texts_reader: TextsReader | None = None,
                 modal_reader: ModalReader | None = None,
                 buttons_reader: TextsReader | None = None,
                 slider_reader: SliderReader | None = None,
                 named_reader: NamedReader | None = None,
                 rows_reader: TextsReader | None = None,
                 labels_reader: TextsReader | None = None) -> None:
        self.state_reader = state_reader
        self.value_reader = value_reader
        self.dialog_reader = dialog_reader
        self.task = task or (lambda: "")
        self.aids = ScreenAids(value_reader, texts_reader, modal_reader, buttons_reader,
                               slider_reader, named_reader, self.task, rows_reader, labels_reader)
        self._subtask: Subtask | None = None
        self._start = 0
        self._toggled_before: list[StepRecord] = []     # see toggles.toggles_clicked
        self._closed = True

    def next_action(self, subtask: Subtask, observation: Observation | None,
                    history: Sequence[StepRecord]) -> Action:
        if subtask is not self._subtask or self._closed or len(history) < self._start:
            same = subtask is self._subtask
            toggled = toggles_clicked(history[self._start:], observation, self.state_reader) if same else []
            self._subtask, self._start, self._closed = subtask, len(history), False
            self._toggled_before = toggled
            self.aids.new_attempt(same)
        return self._final(self._next(subtask, observation, self._toggled_before + list(history[self._start:])))

    def _next(self, subtask: Subtask, observation: Observation | None, steps: list[StepRecord]) -> Action:
        aids = self.aids
        subtask = aids.each_label(subtask, observation)
        slider = slider_target(subtask)
        if slider is not None and aids.slider_reader is not None:
            return aids.slide(slider, steps, observation)
        records = each_record(subtask)
        if records is not None:
            return aids.each_record(records, subtask.actions[0], steps, observation)  # type: ignore[arg-type]
        dismissed = [k for k, r in enumerate(steps) if r.ok and is_dismissal(r.action)]
        if dismissed:   # a dialog was in the way: go on from the step it made fail
            k = dismissed[-1]
            steps = [r for r in steps[:k] if r.ok and not is_dismissal(r.action)
                     and aids.kept(r.action, observation)] + steps[k + 1:]
        expanded = [k for k, r in enumerate(steps) if r.ok and is_reveal(subtask, r.action)]
        scrolled = bool(expanded) and isinstance(steps[expanded[-1]].action, Scroll)
        if expanded and explorable(subtask):
            steps = steps[expanded[-1] + 1:]      # after an expansion, the target is tried anew
        steps, scrolled_on = after_inner_scrolls(subtask, steps, bool(expanded))
        item = menu_item(subtask) if subtask.reveal == MORE_MENU and scrolled_on else None
        if item is not None:   # the record's name may have scrolled away above its open menu
            steps = [replace(r, action=subtask.actions[0]) if r.action == item else r for r in steps]
        if subtask.reveal == PAGES and (scrolled or not expanded) and len(steps) == 1 and steps[0].ok \
                and aids.parts_hidden(str(subtask.actions[0].target), observation):  # type: ignore[union-attr]
            # found at the bottom edge (of the list as it first showed, or as it was scrolled
            # to): one more, so its parts show
            return Scroll("down", FIND_SCROLL, subtask.actions[0].target)  # type: ignore[union-attr]
        paged = paged_target(subtask)
        if paged is not None and aids.paging.click is not None:
            turned = [k for k, r in enumerate(steps) if r.ok and r.action == aids.paging.click]
            steps = steps[turned[-1] + 1:] if turned else steps   # on a new page, tried anew
            planned_click = subtask.actions[0]
            steps = [replace(r, action=planned_click)
                     if r.action == aids.paging.retarget(planned_click, paged) else r for r in steps]
        opener = list_opener(subtask)
        taken = {r.action for r in steps}
        if opener is not None:      # an item retried as the list's item stands for the planned one
            listed = {listed_item(a): a for a in subtask.actions[1:]}
            retried = taken & listed.keys()
            steps = [replace(r, action=listed.get(r.action, r.action)) for r in steps
                     if r.ok or listed_item(r.action) not in retried]
        failed = next((r for r in reversed(steps) if not r.ok), None)
        if failed is not None and opener is not None and failed.action in subtask.actions[1:] \
                and AMBIGUOUS in failed.note:
            item = listed_item(failed.action)       # the box shows the item's name too
            if item is not None and item not in taken:
                return item
        if failed is not None and failed.action == subtask.actions[0] and failed.note.startswith(NO_EFFECT):
            # a number field that took none of the keys (a spin box only its arrows set; the
            # tree said its value stayed): its arrows, as after a typing the pixels took for done
            arrows = sum(1 for r in steps if r.ok and isinstance(r.action, Click))
            refused = self._nudge(subtask, observation, arrows, refused=True)
            if refused is not None:
                return refused
        if failed is not None:
            picked = aids.on_calendar(steps, observation) or \
                aids.dismiss(failed, len(dismissed), observation) or aids.commit(failed, steps, observation)
            if picked is None and paged is not None and failed.action == subtask.actions[0]:
                picked = aids.turn_page(paged, failed, observation)
            if picked is not None:
                return picked
            if opener is not None and failed.note.startswith(_NOT_FOUND) \
                    and looks_inside(subtask, failed, steps, scrolled_on):
                further = aids.scroll_list(observation)    # the item may lie below the list's edge
                if further is not None:
                    return further
            missed = next((r.note for r in reversed(steps) if not r.ok and r is not failed), "")
            return self._after_failure(subtask, failed, len(expanded), missed, observation, scrolled_on)
        done = sum(1 for r in steps if planned(subtask, r.action))
        if done == 0 and already_there(subtask, observation, self.state_reader):
            return Done()
        due = next_planned(subtask, steps)
        if due is not None and item is not None and due == subtask.actions[0]:
            return item
        if due is not None and paged is not None and isinstance(due, Click):
            return aids.paging.retarget(due, paged)
        if due is not None:
            return aids.due(due, observation)
        picked = aids.on_calendar(steps, observation)   # a date typed, its calendar still open
        if picked is not None:
            return picked
        nudge = self._nudge(subtask, observation, len(steps) - done)
        return nudge if nudge is not None else Done()

    def _final(self, action: Action) -> Action:
        """A Done or a Fail ends the attempt."""
        return self._close(action) if isinstance(action, Done | Fail) else action

    def _nudge(self, subtask: Subtask, observation: Observation | None,
               nudges: int, refused: bool = False) -> Action | None:
        """The next arrow click towards a wanted number, Fail when it will not get there."""
        if self.value_reader is None or observation is None:
            return None
        reader = self.value_reader
        return nudge(subtask, lambda field: reader(field, observation), nudges, refused)

    def _after_failure(self, subtask: Subtask, failed: StepRecord, expansions: int,
                       missed: str, observation: Observation | None = None, scrolled_on: int = 0) -> Action:
        """Fail, unless a quoted name was not found: then the next thing that may hide it is
        opened (the first collapsed tree node, or the subtask's next ``reveal`` element: a tab,
        a section) and the name tried again, at most MAX_EXPANSIONS times. A record's menu that
        opened without the name may run on below the list's edge: the list is scrolled under
        the pointer (which rests on the icon that opened it), ``scrolled_on`` times so far."""
        why = failed.note or "it did not work"
        if not explorable(subtask):
            return self._close(Fail(f"{format_action(failed.action)} failed: {why}"))
        target = subtask.actions[0].target  # type: ignore[union-attr]
        if subtask.reveal in (PAGES, SCROLLS):
            return self._next_page(subtask, failed, why, expansions, observation)
        tree = subtask.reveal == TREE_NODES
        what = "collapsed nodes" if tree else f"{subtask.reveal}s"
        if subtask.reveal == MORE_MENU and expansions and why.startswith(_NOT_FOUND) \
                and looks_inside(subtask, failed, [], scrolled_on):
            log.info("%s not in the menu as it shows: scrolling it into view", target)
            return Scroll("down", FIND_SCROLL)
        if subtask.reveal == MORE_MENU and expansions:
            return self._close(Fail(f"{format_action(failed.action)} failed: {why} (nor in the "
                                    "menu its record's more icon opened)"))
        if is_reveal(subtask, failed.action):
            if expansions == 0:   # keep the grounder's own account of the miss
                why = missed or f"could not find {target} on the screen"
                nothing = "no collapsed node was there to expand" if tree else \
                    f"no {subtask.reveal} was there to open"
                return self._close(Fail(f"{why} (and {nothing})"))
            every = "expanding every collapsed node" if tree else f"opening each of the {what}"
            return self._close(Fail(f"could not find {target} on the screen, even after {every} "
                                    f"({expansions} {'expanded' if tree else 'opened'})"))
        if not why.startswith(_NOT_FOUND):
            return self._close(Fail(f"{format_action(failed.action)} failed: {why}"))
        if expansions >= MAX_EXPANSIONS:
            verb = "expanding" if tree else "opening"
            return self._close(Fail(f"could not find {target} on the screen after {verb} "
                                    f"{expansions} {what}"))
        reveal = reveal_click(subtask, expansions)
        dialog = self._unnamed_dialog(reveal, observation)
        if dialog is not None:
            return self._close(Fail(f"could not find {target} on the screen; looking further would "
                                    f"click inside {dialog}, which the task does not name"))
        log.info("%s not found: opening %s to look inside", target, what)
        return reveal

    def _next_page(self, subtask: Subtask, failed: StepRecord, why: str, pages: int,
                   observation: Observation | None) -> Action:
        """A name to find that is not on the screen: the list's next page, while it has one, or
        further down it (a name not shown in a task that scrolled before: scrolls only)."""
        target = subtask.actions[0].target  # type: ignore[union-attr]
        if is_reveal(subtask, failed.action):
            return self._close(Fail(f"{format_action(failed.action)} failed: {why}"))
        if not why.startswith(_NOT_FOUND):
            return self._close(Fail(f"{format_action(failed.action)} failed: {why}"))
        further = self.aids.look_further(observation, subtask.reveal == PAGES) \
            if pages < MAX_EXPANSIONS else None
        if further is None:
            looked = f", even after looking further {pages} time{'s' if pages != 1 else ''}" \
                if pages else " (and nothing to look further: no next page, no scrolling)"
            return self._close(Fail(f"could not find {target} on the screen{looked}"))
        log.info("%s not found: looking further with %s", target, format_action(further))
        return further

    def _unnamed_dialog(self, click: Click, observation: Observation | None) -> str | None:
        """The dialog ("the 'Open' dialog", "an untitled dialog") the click would land in when
        the task does not name it; None when it lands in no dialog, or one the task names."""
        if self.dialog_reader is None or observation is None or not isinstance(click.target, str):
            return None
        title = self.dialog_reader(click.target, observation)
        if title is None:
            return None
        if title and title.lower() in self.task().lower():
            return None
        return f"the {title!r} dialog" if title else "an untitled dialog"

    def _close(self, action: Action) -> Action:
        self._closed = True
        return action


def offline_planner(state_reader: StateReader | None = None,
                    value_reader: ValueReader | None = None,
                    dialog_reader: DialogReader | None = None,
                    texts_reader: TextsReader | None = None,
                    modal_reader: ModalReader | None = None,
                    buttons_reader: TextsReader | None = None,
                    slider_reader: SliderReader | None = None,
                    named_reader: NamedReader | None = None,
                    rows_reader: TextsReader | None = None,
                    labels_reader: TextsReader | None = None) -> Planner:
    """The no-model planner; the composition root gives it the screen's answers (a box's state,
    a field's value, the dialog a target lies in, the texts shown, a dialog in the way) through
    its readers."""
    manager = OfflineManager()
    return Planner("offline", manager, OfflineWorker(state_reader, value_reader, dialog_reader,
                                                     task=lambda: manager.task or "",
                                                     texts_reader=texts_reader,
                                                     modal_reader=modal_reader,
                                                     buttons_reader=buttons_reader,
                                                     slider_reader=slider_reader,
                                                     named_reader=named_reader,
                                                     rows_reader=rows_reader,
                                                     labels_reader=labels_reader))
