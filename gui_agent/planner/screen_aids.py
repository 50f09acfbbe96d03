"""What the offline worker does when the screen is not as the plan has it.

The plan is made from the task's words alone; these aids look at the screen (through the
readers the composition root hands over, :class:`~gui_agent.grounding.queries.ScreenQueries`)
when a step is due or has failed: a text to be read off the screen before it is typed
(reading.py), a date a field would not take typed (calendar.py), a dialog the task does not
mention in the way (dialogs.py), a form's committing button under another name, a slider set
with its keys (slider.py), a numbered item on a later page of its list (paging.py). Each returns the next action, or None when it does not apply; a
Done or Fail it returns ends the worker's attempt.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..actions import Action, Click, Done, Fail, Scroll, Type, format_action
from ..errors import NOT_FOUND
from ..grounding.description import ordinal_word
from ..screen.observation import Observation
from . import vocabulary as vocab
from .base import StepRecord, Subtask
from .calendar import MAX_CALENDAR_STEPS, calendar_click, is_calendar_click, parse_date
from .dialogs import MAX_DISMISSALS, DialogView, committing, dismissal, is_dismissal, way_out
from .each_record import EachRecord, EachRecordRun
from .paging import PagingRun, next_page_word
from .phrases import quote
from .reading import EACH_LABEL, VALUE_OF, read_value, scroll_first
from .slider import SliderRun, SliderView

log = logging.getLogger(__name__)

# (target description, observation) -> the text it shows. None: cannot tell.
ValueReader = Callable[[str, Observation], "str | None"]
# observation -> the screen's text lines, or its buttons' captions (the task's words left out).
TextsReader = Callable[[Observation], "list[str]"]
# observation -> the dialog on the screen (its message and buttons), None: none.
ModalReader = Callable[[Observation], "DialogView | None"]
# (description, observation) -> the slider it names (thumb, orientation, value shown), None: none.
SliderReader = Callable[[str, Observation], "SliderView | None"]
# (description, observation) -> the texts of the elements it names on the screen, in order.
NamedReader = Callable[[str, Observation], "list[str]"]
RECORD_LINES = 2                # lines under a found name that show its record's parts
FIND_SCROLL = 1                 # wheel clicks per look further down a list (more may skip items)
ANCHORS_TRIED = 3               # lines from the bottom a find scroll is tried at before turning back


def is_further(action: Action) -> bool:
    """Whether ``action`` is one of :meth:`ScreenAids.look_further`'s: a click on a next-page
    control or a find scroll."""
    if isinstance(action, Scroll):
        return action.direction in ("down", "up") and action.amount == FIND_SCROLL
    return isinstance(action, Click) and isinstance(action.target, str) \
        and action.target.strip("\"'").lower() in vocab.NEXT_PAGE_WORDS


def line_at(lines: list[str], index: int) -> str:
    """A description of the screen's line ``index``: its text, or, where the same text shows
    on several lines (posts of one name), that one of them counted from the last."""
    line = lines[index]
    later = sum(1 for other in lines[index + 1:] if other == line)
    if lines.count(line) == 1:
        return quote(line)
    return f"the last {quote(line)}" if later == 0 else f"the {ordinal_word(later + 1)} to last {quote(line)}"


@dataclass
class ScreenAids:
    """The readers, the task, and what one attempt at a subtask has done so far."""

    value_reader: ValueReader | None = None
    texts_reader: TextsReader | None = None
    modal_reader: ModalReader | None = None
    buttons_reader: TextsReader | None = None
    slider_reader: SliderReader | None = None
    named_reader: NamedReader | None = None
    task: Callable[[], str] = lambda: ""
    rows_reader: TextsReader | None = None      # the screen's texts joined row by row
    labels_reader: TextsReader | None = None    # the labels of the screen's text fields
    each_fills: tuple[Action, ...] | None = None   # this attempt's fills for 'each label'
    commit_click: Click | None = None           # the committing button clicked for another name
    slider_run: SliderRun = field(default_factory=SliderRun)
    scrolled: bool = False                      # a text area was scrolled to its end to read it
    paging: PagingRun = field(default_factory=PagingRun)
    lines_scrolled: list[str] | None = None     # the lines shown before the last find scroll
    anchor: int = 0                             # the find scroll's line, counted from the bottom
    scroll_way: str = "down"                    # ... and its direction
    records: EachRecordRun = field(default_factory=EachRecordRun)   # 'on 3 posts by @ann'

    def new_attempt(self, same_subtask: bool = False) -> None:
        """A new attempt; at the same subtask again, what it did to records it keeps."""
        self.commit_click, self.slider_run, self.scrolled, self.each_fills = None, SliderRun(), False, None
        self.paging, self.lines_scrolled, self.anchor, self.scroll_way = PagingRun(), None, 0, "down"
        if same_subtask:
            self.records.retried()
        else:
            self.records = EachRecordRun()

    def turn_page(self, paged: tuple[int, str], failed: StepRecord,
                  observation: Observation | None) -> Action | None:
        """After "the Nth X" was not found: the click to the list's next page when this page
        shows fewer than N Xs (paging.py); None otherwise."""
        if self.named_reader is None or self.texts_reader is None or observation is None \
                or not failed.note.startswith(NOT_FOUND):
            return None
        _, what = paged
        click = self.paging.turn(paged, self.named_reader(what, observation),
                                 self.texts_reader(observation))
        if click is not None:
            log.info("the %s is not on this page (%d shown so far): going to the next one with %s",
                     f"{paged[0]}th {what}", self.paging.passed, format_action(click))
        return click

    def look_further(self, observation: Observation | None, pages: bool = True) -> Action | None:
        """While a name to find is not on the screen: the click on the list's next-page control
        when it shows one, else a scroll down at the screen's last line of text (the list
        searched runs on below what shows). A scroll that changes none of the lines is tried at
        the lines above (the last line may be a button under a list box that scrolls on its
        own), then the list is looked through upwards (it may have been scrolled past the name,
        looking for another); None when there is nowhere further to look. ``pages=False``:
        scrolls only (a next-page click changes more than the view)."""
        if self.texts_reader is None or observation is None:
            return None
        lines = self.texts_reader(observation)
        word = next_page_word(lines) if pages else None
        if word is not None:
            return Click(quote(word))
        if not lines:
            return None
        if lines == self.lines_scrolled:           # the last scroll moved nothing
            self.anchor += 1
            if self.anchor >= min(len(lines), ANCHORS_TRIED):
                if self.scroll_way == "up":
                    return None
                self.scroll_way, self.anchor = "up", 0
        self.lines_scrolled = lines
        return Scroll(self.scroll_way, FIND_SCROLL, line_at(lines, len(lines) - 1 - self.anchor))

    def each_record(self, each: EachRecord, click: Click, steps: list[StepRecord],
                    observation: Observation | None) -> Action:
        """The next click on one of several records of a name (each_record.py); when the screen
        shows none left to do, the list is looked through further (its next page, or a scroll
        down); at its end the attempt is done, or fails short of the count."""
        if self.rows_reader is None or observation is None:
            return Fail(f"cannot read the screen's rows to find the records by {each.name!r}")
        rows = self.rows_reader(observation)
        action = self.records.next(each, click, steps, rows, self.records.ended)
        if action is not None or self.records.ended:
            return action or self.records.at_end(each)
        further = self.look_further(observation)
        if further is None or (isinstance(further, Scroll) and further.direction == "up"):
            self.records.ended = True    # the records left on the screen show whole
            return self.records.next(each, click, steps, rows, whole=True) or self.records.at_end(each)
        return further

    def scroll_list(self, observation: Observation | None) -> Scroll | None:
        """A scroll down at the screen's last line of text: inside the list a click opened, which
        lies over what was below it (its items run on past its edge)."""
        if self.texts_reader is None or observation is None:
            return None
        lines = self.texts_reader(observation)
        return Scroll("down", FIND_SCROLL, line_at(lines, len(lines) - 1)) if lines else None

    def parts_hidden(self, name: str, observation: Observation | None) -> bool:
        """Whether a record found by ``name`` (a quoted target) may have its parts cut off
        below: fewer than RECORD_LINES lines of text follow its line on the screen. Unknown
        (no reader, the name not read): assumed so."""
        reader = self.rows_reader or self.texts_reader
        if reader is None or observation is None:
            return True
        word = name.strip().strip('"').lower()
        lines = [ln.lower() for ln in reader(observation)]
        at = [k for k, line in enumerate(lines) if word and word in line]
        return not at or len(lines) - at[-1] - 1 < RECORD_LINES

    def each_label(self, subtask: Subtask, observation: Observation | None) -> Subtask:
        """'enter the value that corresponds with each label into the form': the planned step
        becomes one fill per labelled text field on the screen, with the value its label's
        name shows elsewhere (beside it, or below it), all read at the attempt's first look;
        a value that cannot be read fails the subtask, saying which."""
        if not any(isinstance(a, Type) and a.read_from == EACH_LABEL for a in subtask.actions):
            return subtask
        if self.each_fills is None:
            self.each_fills = self._fills(observation)
        actions: list[Action] = []
        for a in subtask.actions:
            each = isinstance(a, Type) and a.read_from == EACH_LABEL
            actions.extend(self.each_fills if each else (a,))
        return replace(subtask, actions=tuple(actions))

    def _fills(self, observation: Observation | None) -> tuple[Action, ...]:
        if self.labels_reader is None or self.value_reader is None or observation is None:
            return (Fail("cannot see the form's fields and their labels"),)
        reader = self.value_reader
        labels = [name for name in dict.fromkeys(label.strip().rstrip(":").strip()
                                                 for label in self.labels_reader(observation)) if name]
        if not labels:
            return (Fail("no labelled text field on the screen to fill"),)
        fills: list[Action] = []
        for name in labels:
            value = read_value(f'{VALUE_OF} "{name}"', lambda d: reader(d, observation))
            if value is None:
                return (Fail(f"could not read the value of {name!r} on the screen"),)
            log.info("the value of %r: %r", name, value)
            fills.append(Type(value, into=f'the "{name}" field', clear=True))
        return tuple(fills)

    def due(self, action: Action, observation: Observation | None) -> Action:
        """The planned action as it is handed out: a typing step whose text is to be read off
        the screen ('the value of "Color"') gets the text read now, or the subtask fails. The
        last word of a text area is read once it is scrolled to its end (its text may run on
        past what it shows)."""
        if not isinstance(action, Type) or action.read_from is None:
            return action
        scroll = scroll_first(action.read_from)
        if scroll is not None and not self.scrolled:
            self.scrolled = True
            return scroll
        reader = self.value_reader
        value = None
        if reader is not None and observation is not None:
            value = read_value(action.read_from, lambda description: reader(description, observation))
        if value is None:
            return Fail(f"could not read {action.read_from} on the screen")
        log.info("read %s: %r", action.read_from, value)
        return replace(action, text=value, read_from=None)

    def slide(self, slider: tuple[str, float], steps: list[StepRecord],
              observation: Observation | None) -> Action:
        """The next click or key that sets a slider to its number (slider.py)."""
        what, wanted = slider
        failed = next((r for r in steps if not r.ok), None)
        if failed is not None:
            return Fail(f"{format_action(failed.action)} failed: {failed.note or 'it did not work'}")
        if observation is None or self.slider_reader is None:
            return Fail(f"cannot see {what}")
        action = self.slider_run.next(self.slider_reader(what, observation), wanted, what)
        if action is None:
            log.info("%s shows %g", what, wanted)
            return Done()
        return action

    def kept(self, action: Action, observation: Observation | None) -> bool:
        """Whether a typing step made before a dialog got in the way still shows in its field
        (the dialog may have opened as the field took the focus, and the keys gone nowhere)."""
        if not isinstance(action, Type) or not isinstance(action.into, str) or not action.text \
                or self.value_reader is None or observation is None:
            return True
        return bool(self.value_reader(action.into, observation))

    def dismiss(self, failed: StepRecord, dismissals: int, observation: Observation | None) -> Action | None:
        """After a failed step: the harmless way out of a dialog the task does not mention, if
        one is on the screen (dialogs.py); None otherwise."""
        if self.modal_reader is None or observation is None or dismissals >= MAX_DISMISSALS \
                or is_dismissal(failed.action):
            return None
        dialog = self.modal_reader(observation)
        caption = way_out(dialog, self.task()) if dialog is not None else None
        if dialog is None or caption is None:
            return None
        log.warning("a dialog the task does not mention is in the way (%s): dismissing it with %r",
                    " ".join(dialog.message)[:120], caption)
        return dismissal(caption)

    def commit(self, failed: StepRecord, steps: list[StepRecord], observation: Observation | None) -> Action | None:
        """After 'press login' found no "login": the form's one committing button under another
        name ("OK"), once, when no dialog is open; None otherwise."""
        click = failed.action
        if self.buttons_reader is None or observation is None or not isinstance(click, Click) \
                or not isinstance(click.target, str) or not failed.note.startswith(NOT_FOUND):
            return None
        if self.commit_click is not None and steps[-1].action == self.commit_click:
            return Done() if steps[-1].ok else None
        if self.modal_reader is not None and self.modal_reader(observation) is not None:
            return None
        caption = committing(click.target, self.buttons_reader(observation))
        if caption is None or caption.lower() == click.target.strip('"').lower():
            return None
        log.warning("no %r on the screen: clicking the form's one committing button %r", click.target, caption)
        self.commit_click = Click(f'the "{caption}" button')
        return self.commit_click

    def on_calendar(self, steps: list[StepRecord], observation: Observation | None) -> Action | None:
        """After typing a date (taken or not by its field) while a calendar is open: the next
        click on that calendar (calendar.py), Done once its day was clicked. A calendar left
        open covers the form, and a read-only date field takes its date only from it. None when
        this is not such a case (no date typed, no calendar, a calendar click failed, too many
        clicks)."""
        typed = next((r.action for r in steps if isinstance(r.action, Type)), None)
        wanted = parse_date(typed.text) if isinstance(typed, Type) else None
        clicks = [r for r in steps if is_calendar_click(r.action)]
        if wanted is None or self.texts_reader is None or observation is None or \
                (clicks and not clicks[-1].ok) or len(clicks) >= MAX_CALENDAR_STEPS:
            return None
        if clicks and str(clicks[-1].action.target).startswith('"'):    # type: ignore[attr-defined]
            log.info("picked %s on the calendar", wanted.isoformat())
            return Done()
        click = calendar_click(wanted, self.texts_reader(observation))
        if click is not None:
            log.info("the field took no typed date: picking %s on its calendar", wanted.isoformat())
        return click
