"""Perform one grounded action, wait for the screen, and see that it had its effect.

Shared by the agent loop and replay, so that a step is judged the same way however it was
planned. Every input goes through the controller (:func:`gui_agent.executor.perform`). Typing
into a field is done in phases: click the field, wait until the click has been taken (the screen
settles), type, check the text shows, and only then press Enter — so a calculator that showed
"12" after "12*12" is caught before Enter hides it. A step whose effect was not seen, after the
settle grace, is performed once more only when nothing on the screen changed (so nothing is done
twice); then the verdict says what was expected and what was seen (:mod:`gui_agent.verify.effect`).
An Enter that changed nothing is not pressed again: it may have submitted something that shows
nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .accessibility.live import handle_of, wait_for_focus, wait_until_enabled
from .actions import Action, Click, Drag, Move, Resize, Scroll, Type, Wait
from .control.base import Controller
from .executor import perform
from .geometry import Box, Point
from .grounding.candidate import Candidate
from .screen.observation import ActiveWindow, Observation
from .verify.dialog_enter import dialog_kept_open, field_holds
from .verify.effect import (
    NOT_JUDGED,
    Effect,
    TextReader,
    action_effect,
    change_effect,
    frames_equal_in,
    typed_effect,
    visible_change,
)
from .verify.settle import expected, expecting, first_ready, frames_equal, wait_until_settled

Observe = Callable[[], Observation]
Settle = Callable[[Observation | None], Observation]
FOCUS_WAIT_S = 1.0        # at most this long for a clicked field to take the focus
ENABLED_WAIT_S = 2.0      # at most this long for a control the tree says is disabled to turn on
HOVER_WAIT_S = 0.5        # at most this long for a target's hover look to settle before the click
HOVER_REACH = 6           # px around a target its own hover look may reach (a ring, a shadow)
DRY_RUN = Effect(True, "nothing: a dry run performs nothing", judged=False)
# Actions with no effect that can be seen for certain are performed once and not judged.
_UNJUDGED = (Scroll, Move, Wait)


def resize_drag(box: Box, width: float, height: float, screen: tuple[int, int]) -> tuple[Point, Point]:
    """Where to grab an element to resize it (just inside its bottom-right corner, where a text
    area's grip is) and where to let go so that it becomes ``width`` x ``height`` times its
    size, kept a few pixels inside the screen (image pixels)."""
    inset = max(3, min(8, round(0.03 * min(box.width, box.height))))
    grip = Point(box.right - inset, box.bottom - inset)
    x = grip.x + round(box.width * (width - 1))
    y = grip.y + round(box.height * (height - 1))
    w, h = screen
    return grip, Point(min(max(x, box.left + inset), w - 3), min(max(y, box.top + inset), h - 3))


@dataclass(frozen=True)
class Acted:
    """What performing a step left: the settled screen after it, and the verdict on its effect."""

    after: Observation
    effect: Effect
    attempts: int = 1
    timings: dict[str, float] = field(default_factory=dict)   # act, settle, verify (seconds)


class Actor:
    """Performs grounded actions through ``controller`` and judges their effect.

    ``observe`` captures the screen, ``settle`` waits after an action (given the frame before
    it); ``reader`` reads typed text back (the screen parser); ``live`` False: nothing changes
    (a dry run or a screenshot), so nothing is judged.
    """

    def __init__(self, controller: Controller, observe: Observe, settle: Settle, *,
                 reader: TextReader | None = None, live: bool = True,
                 stop: threading.Event | None = None, settle_interval: float = 0.05,
                 clipboard: Callable[[], str | None] | None = None) -> None:
        self.controller = controller
        self.observe = observe
        self.settle = settle
        self.reader = reader
        self.live = live
        self.stop = stop or threading.Event()
        self.settle_interval = settle_interval
        self.clipboard = clipboard
        self._last_input: float | None = None    # when the last input was sent (monotonic)

    def act(self, action: Action, cands: dict[str, Candidate], obs: Observation, *,
            secret: bool = False) -> Acted:
        """Perform ``action`` (its targets already grounded to ``cands`` on ``obs``)."""
        self._timings: dict[str, float] = {}
        acted = self._act(action, cands, obs, secret)
        return replace(acted, timings=self._timings)

    def _act(self, action: Action, cands: dict[str, Candidate], obs: Observation,
             secret: bool) -> Acted:
        points = {name: obs.to_screen(c.point) for name, c in cands.items()}
        if isinstance(action, Resize):
            grip, to = resize_drag(cands["target"].box, action.width, action.height, obs.image.size)
            points = {"source": obs.to_screen(grip), "destination": obs.to_screen(to)}
        if not self.live:
            self._perform(action, points)
            return Acted(self.observe(), DRY_RUN)
        if isinstance(action, Wait):
            return self._wait(action)
        if isinstance(action, Type):
            return self._type(action, points, cands.get("into"), obs, secret)
        if isinstance(action, Click | Drag | Resize):
            refused = self._disabled(cands.get("target") or cands.get("source"), obs)
            if refused is not None:
                return refused
        reacted = False
        if isinstance(action, Click) and "target" in points:
            hovered = self._hovered(points["target"], obs)
            reacted, obs = hovered is not obs and self._took_hover(cands.get("target"), obs, hovered), hovered
        self._perform(action, points)
        if isinstance(action, _UNJUDGED):
            # Nothing is expected to change (the end of a list, a hover): no settle grace.
            with expecting(replace(expected(), changes=False)):
                return Acted(self._settled(obs), NOT_JUDGED)
        after = self._settled(obs)
        main = cands.get("target") or cands.get("source")
        where = {"target": main.element if main else None, "target_box": main.box if main else None}
        effect = self._judge(action_effect, action, obs.image, after.image, self.clipboard, **where)
        if effect.seen or self.stop.is_set() or reacted:
            # A target that took the hover is live: a click on it may rightly show nothing
            # (a button of a sequence), and a second one would be a second click.
            return Acted(after, effect)
        self._perform(action, points)   # nothing changed, not even under the pointer: once more
        again = self._settled(after)
        return Acted(again, self._judge(action_effect, action, obs.image, again.image, self.clipboard,
                                        **where), 2)

    @staticmethod
    def _took_hover(target: Candidate | None, before: Observation, hovered: Observation) -> bool:
        """Whether the target redrew itself under the arriving pointer: a change on it (or
        around it, its hover ring), not one elsewhere (the widget the pointer left)."""
        if target is None:
            return not frames_equal(before.image, hovered.image)
        return not frames_equal_in(before.image, hovered.image, target.box.expand(HOVER_REACH))

    def _hovered(self, point: Point, obs: Observation) -> Observation:
        """Rest the pointer on a click's target before pressing, as a hand does: an element
        that redraws itself under the pointer (a web page's icon swapped for its hover image)
        lost a press that came with the pointer, and its redraw is no effect of the click. The
        frame once the hover has shown (the click's effect is judged against it)."""
        if obs.cursor == point:
            return obs
        t = time.perf_counter()
        self.controller.move(point)
        self._clock("act", t)
        t = time.perf_counter()
        self.stop.wait(self.settle_interval)
        now = self.observe()
        if not frames_equal(obs.image, now.image):
            now = wait_until_settled(self.observe, timeout=HOVER_WAIT_S, interval=self.settle_interval,
                                     first=now).observation
        self._clock("settle", t)
        return now

    def _disabled(self, main: Candidate | None, obs: Observation) -> Acted | None:
        """A control the accessibility tree says is disabled is given ENABLED_WAIT_S to turn on
        (a Save button waits for its dialog to take the typed name); still disabled, it is not
        clicked and the step fails: a click on it would change at most its own pixels, which
        must not pass for the step's effect."""
        info = main.element.accessible if main is not None and main.element is not None else None
        if info is None or info.enabled or info.handle is None:
            return None
        t = time.perf_counter()
        turned_on = wait_until_enabled(info.handle, ENABLED_WAIT_S, self.stop)
        self._clock("settle", t)
        if turned_on:
            return None
        name = main.element.text if main is not None and main.element is not None else ""
        return Acted(obs, Effect(False, f"{name!r} enabled, to be clicked",
                                 f"the accessibility tree says {name!r} is disabled; not clicked"))

    # -- timed stages ------------------------------------------------------------------------
    def _clock(self, stage: str, start: float) -> None:
        self._timings[stage] = self._timings.get(stage, 0.0) + time.perf_counter() - start

    def _perform(self, action: Action, points: dict[str, Point]) -> None:
        t = time.perf_counter()
        perform(action, points, self.controller, self.stop)
        self._clock("act", t)
        self._last_input = time.monotonic()

    def _press_enter(self) -> None:
        t = time.perf_counter()
        self.controller.press("enter")
        self._clock("act", t)
        self._last_input = time.monotonic()

    def _wait(self, action: Wait) -> Acted:
        """'click ONE, wait 3 seconds, then click TWO': the seconds count from the last input,
        so the time the step before spent settling and being checked is part of the wait."""
        t = time.perf_counter()
        spent = time.monotonic() - self._last_input if self._last_input is not None else 0.0
        self.stop.wait(max(0.0, action.seconds - spent))
        self._clock("act", t)
        return Acted(self.observe(), NOT_JUDGED)

    def _settled(self, before: Observation | None) -> Observation:
        t = time.perf_counter()
        after = self.settle(before)
        self._clock("settle", t)
        return after

    def _judge(self, judge: Callable[..., Effect], *args: object, **kwargs: object) -> Effect:
        t = time.perf_counter()
        effect = judge(*args, **kwargs)
        self._clock("verify", t)
        return effect

    # -- typing, in phases -----------------------------------------------------------------
    def _type(self, action: Type, points: dict[str, Point], field: Candidate | None,
              obs: Observation, secret: bool) -> Acted:
        def judge(typed: Observation) -> Effect:
            return self._judge(typed_effect, action.text, secret=secret,
                               target=field.element if field else None,
                               target_box=field.box if field else None, before=obs.image,
                               after=typed.image, reader=self.reader, cleared=action.clear)

        attempts = 1
        focused, typed = self._type_text(action, points, field)
        effect = judge(typed)
        if not effect.seen and not self.stop.is_set():
            # A slow application may show the text later: wait as after any action (the settle
            # grace) before deciding the keys were lost.
            typed = self._settled(typed)
            effect = judge(typed)
        if not effect.seen and not self.stop.is_set() and (
                action.clear or visible_change(focused.image, typed.image) is None):
            # Nothing changed anywhere since the field was clicked, so nothing was typed, or
            # the field is filled anew (cleared first): typing again cannot double it.
            attempts += 1
            _, typed = self._type_text(action, points, field)
            effect = judge(typed)
        if not effect.seen or not action.enter:
            return Acted(typed, effect, attempts)
        # Enter acts on what the typed text made of the screen: a completer's list or a search-
        # as-you-type list still catching up would take the Enter (a save dialog then opened a
        # folder instead of saving): it is pressed once the screen has settled.
        t = time.perf_counter()
        typed = wait_until_settled(self.observe, timeout=FOCUS_WAIT_S, interval=self.settle_interval,
                                   first=typed).observation
        self._clock("settle", t)
        self._press_enter()
        after = self._settled(typed)
        entered = self._judge(change_effect, "pressing Enter", typed.image, after.image, required=True)
        if entered.seen:
            after, entered = self._into_dialog(action, field, secret, typed, after, entered)
        if entered.seen:
            entered = replace(entered, observed=f"{effect.observed}; then {entered.observed}")
        return Acted(after, entered, attempts)

    def _into_dialog(self, action: Type, field: Candidate | None, secret: bool, typed: Observation,
                     after: Observation, entered: Effect) -> tuple[Observation, Effect]:
        """The screen changed after an Enter; when it was pressed in a dialog that did not take
        it (:mod:`gui_agent.verify.dialog_enter`), it is pressed once more -- the dialog
        submitted nothing -- except into a secret's field; a dialog that still does not take it
        fails the step."""
        def ignored(now: Observation, holding: bool) -> ActiveWindow | None:
            t = time.perf_counter()
            kept = None
            if typed.window is not None and typed.window.dialog:
                kept = dialog_kept_open(typed, now, visible_change(typed.image, now.image))
            if kept is not None and holding and not field_holds(action.text, field, now, self.reader):
                kept = None
            self._clock("verify", t)
            return kept

        kept = ignored(after, holding=not secret)    # a secret's field cannot be read back
        if kept is None:
            return after, entered
        if not secret and not self.stop.is_set():
            self._press_enter()
            after = self._settled(after)
            # Now the dialog must be gone (or something behind it changed), whatever its field shows.
            kept = ignored(after, holding=False)
            if kept is None:
                again = self._judge(change_effect, "pressing Enter", typed.image, after.image, required=True)
                return after, replace(again, observed=f"{again.observed} (the dialog took the second "
                                                      "Enter; the first went to its own list)")
        title = repr(kept.title) if kept.title else "the dialog"
        return after, Effect(False, f"{title} to take the Enter (close, or open the next window)",
                             f"{title} is still open with the text in its field; what changed "
                             "lies inside it, so its own list took the Enter")

    def _type_text(self, action: Type, points: dict[str, Point],
                   field: Candidate | None = None) -> tuple[Observation, Observation]:
        """Click the field (and wait until the click is taken), clear it, type: the screen before
        the keys and after them."""
        if "into" in points:
            before = self.observe()
            t = time.perf_counter()
            self.controller.click(points["into"])
            self._clock("act", t)
            focused = self._focus_wait(before, field)
        else:
            focused = self.observe()
        keys = replace(action, into=None, enter=False)
        if field is not None and field.segmented:     # (see Candidate.segmented)
            keys = replace(keys, text="".join(action.text.split()))
        self._perform(keys, {})
        t = time.perf_counter()
        typed = first_ready(self.observe, focused, limit=FOCUS_WAIT_S, interval=self.settle_interval,
                            stop=self.stop)
        if typed is None:
            typed = wait_until_settled(self.observe, timeout=FOCUS_WAIT_S,
                                       interval=self.settle_interval).observation
        self._clock("settle", t)
        return focused, typed

    def _focus_wait(self, before: Observation, field: Candidate | None = None) -> Observation:
        """Until the screen has taken the click (it changed and settled), at most FOCUS_WAIT_S;
        the screen then. A field of the accessibility tree says when it has the focus."""
        t = time.perf_counter()
        handle = handle_of(field.element if field is not None else None)
        if handle is not None and wait_for_focus(handle, FOCUS_WAIT_S, self.stop):
            self._clock("settle", t)
            return self.observe()
        shown = first_ready(self.observe, before, limit=FOCUS_WAIT_S, interval=self.settle_interval,
                            stop=self.stop)
        if shown is not None:   # a skill step: the first frame that took the click
            self._clock("settle", t)
            return shown
        settled = wait_until_settled(self.observe, timeout=FOCUS_WAIT_S, interval=self.settle_interval,
                                     first=before)
        if settled.settled:
            # The first two equal frames may both predate the click: give it one more look.
            settled = wait_until_settled(self.observe, timeout=FOCUS_WAIT_S / 2,
                                         interval=self.settle_interval)
        self._clock("settle", t)
        return settled.observation
