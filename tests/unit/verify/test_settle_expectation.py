"""The settle rule under a step's expectation: the first frame that shows the step's effect ends
the wait (a skill step), the grace only for an action expected to change the screen, and no
wait before a run's first look."""

from __future__ import annotations

import threading

from PIL import Image, ImageDraw

from gui_agent.config import Settings
from gui_agent.screen.observation import Observation
from gui_agent.verify import frames_equal
from gui_agent.verify import settle as settle_module
from gui_agent.verify.settle import Expectation, expected, expecting, settle_after


def _screen(mark: tuple[int, int] | None = None) -> Image.Image:
    img = Image.new("RGB", (200, 100), "white")
    if mark:
        ImageDraw.Draw(img).rectangle([mark[0], mark[1], mark[0] + 9, mark[1] + 4], fill="black")
    return img


class _FakeTime:
    """A clock that moves only when the code under test waits on it (and 1 ms per capture)."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def wait(self, seconds: float) -> bool:
        self.now += seconds
        return False

    def is_set(self) -> bool:
        return False


def _run(monkeypatch, frames, expectation: Expectation | None, before=True):
    """settle_after on a screen showing ``frames(t)`` at fake time t: (frame, waited, captures)."""
    fake = _FakeTime()
    monkeypatch.setattr(settle_module, "time", fake)
    monkeypatch.setattr(settle_module, "wait_until_settled", _fake_settled(fake))
    seen = [0]

    def observe() -> Observation:
        seen[0] += 1
        fake.now += 0.001
        return Observation.from_image(frames(fake.now))

    first = Observation.from_image(_screen()) if before else None
    settings = Settings(settle_interval=0.05)
    if expectation is None:
        obs = settle_after(observe, first, settings, stop=fake)
    else:
        with expecting(expectation):
            obs = settle_after(observe, first, settings, stop=fake)
    return obs.image, fake.now, seen[0]


def _fake_settled(fake: _FakeTime):
    def wait_until_settled(observe, *, timeout=3.0, interval=0.05, first=None, **_):
        start, previous = fake.now, first or observe()
        while fake.now - start < timeout:
            fake.wait(interval)
            current = observe()
            if frames_equal(previous.image, current.image):
                return settle_module.Settled(current, True, fake.now - start)
            previous = current
        return settle_module.Settled(previous, False, fake.now - start)
    return wait_until_settled


def _changes_at(t0: float, then: Image.Image | None = None):
    after = then or _screen((50, 20))
    return lambda now: after if now >= t0 else _screen()


def _any_change(before: Observation, frame: Observation) -> bool:
    return not frames_equal(before.image, frame.image)


def test_a_ready_frame_ends_the_wait_without_two_equal_frames(monkeypatch) -> None:
    image, waited, seen = _run(monkeypatch, _changes_at(0.01), Expectation(ready=_any_change))
    assert frames_equal(image, _screen((50, 20))) and waited < 0.03 and seen == 1
    # without the expectation: an interval first, then two equal frames
    image, plain, _ = _run(monkeypatch, _changes_at(0.01), None)
    assert frames_equal(image, _screen((50, 20))) and plain >= 0.1


def test_a_late_effect_is_still_waited_for_within_the_grace(monkeypatch) -> None:
    image, waited, _ = _run(monkeypatch, _changes_at(1.2), Expectation(ready=_any_change))
    assert frames_equal(image, _screen((50, 20))) and 1.2 <= waited < 1.3


def test_no_grace_when_no_change_was_expected(monkeypatch) -> None:
    unchanged = lambda now: _screen()   # noqa: E731
    _, waited, _ = _run(monkeypatch, unchanged, Expectation(ready=_any_change, changes=False))
    assert waited < 0.2
    _, waited, _ = _run(monkeypatch, unchanged, Expectation(changes=False))
    assert waited < 0.2
    _, waited, _ = _run(monkeypatch, unchanged, Expectation(ready=_any_change))
    assert 1.45 <= waited <= 1.7                        # expected to change: the whole grace
    _, waited, _ = _run(monkeypatch, unchanged, None)
    assert 1.45 <= waited <= 1.7                        # the agent's rule, as before


def test_a_runs_first_look_does_not_wait_for_an_action(monkeypatch) -> None:
    _, waited, seen = _run(monkeypatch, lambda now: _screen(), None, before=False)
    assert seen == 2 and waited < 0.06                  # two captures one interval apart


def test_the_expectation_holds_only_inside_its_block_and_thread() -> None:
    mine = Expectation(changes=False)
    other: list[Expectation] = []
    with expecting(mine):
        assert expected() is mine
        t = threading.Thread(target=lambda: other.append(expected()))
        t.start()
        t.join()
    assert expected() == Expectation() and other == [Expectation()]


def test_a_hover_or_a_scroll_is_settled_without_the_grace(monkeypatch) -> None:
    from gui_agent import acting
    from gui_agent.actions import Click, Move, Scroll
    from gui_agent.geometry import Point

    monkeypatch.setattr(acting, "perform", lambda *a, **k: None)
    seen: list[bool] = []
    obs = Observation.from_image(_screen())

    def settle(before):
        seen.append(expected().changes)
        return obs

    actor = acting.Actor(object(), lambda: obs, settle)
    for action in (Move(Point(10, 10)), Scroll("down"), Click(Point(10, 10))):
        actor.act(action, {}, obs)
    assert seen[:2] == [False, False] and seen[2:] and all(seen[2:])   # a click expects a change


def _first_ready(monkeypatch, frames, expectation: Expectation | None):
    """first_ready on a screen showing ``frames(t)``: (frame or None, waited)."""
    fake = _FakeTime()
    monkeypatch.setattr(settle_module, "time", fake)

    def observe() -> Observation:
        fake.now += 0.001
        return Observation.from_image(frames(fake.now))

    before = Observation.from_image(_screen())
    if expectation is None:
        return settle_module.first_ready(observe, before, limit=1.0, interval=0.05, stop=fake), fake.now
    with expecting(expectation):
        return settle_module.first_ready(observe, before, limit=1.0, interval=0.05, stop=fake), fake.now


def test_the_phases_of_typing_go_on_at_the_first_frame_that_shows_them(monkeypatch) -> None:
    """Under a skill step, a field taking the click and the typed text showing each end their
    wait at the first frame that shows them; nothing showing: three still frames, not a second;
    outside a skill step the caller settles as before (None)."""
    frame, waited = _first_ready(monkeypatch, _changes_at(0.06), Expectation(ready=_any_change))
    assert frame is not None and frames_equal(frame.image, _screen((50, 20))) and waited < 0.1
    frame, waited = _first_ready(monkeypatch, lambda now: _screen(), Expectation(ready=_any_change))
    assert frame is not None and 0.15 <= waited < 0.25
    assert _first_ready(monkeypatch, _changes_at(0.06), None)[0] is None
    assert _first_ready(monkeypatch, _changes_at(0.06), Expectation(changes=False))[0] is None
