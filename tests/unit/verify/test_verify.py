from __future__ import annotations

from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from gui_agent.screen.observation import Observation
from gui_agent.verify import LoopDetector, changed_region, frames_equal, wait_until_settled


def _screen(mark: tuple[int, int] | None = None) -> Image.Image:
    img = Image.new("RGB", (200, 100), "white")
    if mark:
        ImageDraw.Draw(img).rectangle([mark[0], mark[1], mark[0] + 9, mark[1] + 4], fill="black")
    return img


def test_changed_region_is_the_bounding_box_of_the_difference():
    assert changed_region(_screen(), _screen()) is None
    assert changed_region(_screen(), _screen((50, 20))) == Box(50, 20, 10, 5)


def test_tiny_noise_is_not_a_change():
    a = _screen()
    b = a.copy()
    b.putpixel((5, 5), (250, 250, 250))
    assert frames_equal(a, b)


def test_wait_until_settled_returns_when_two_frames_agree():
    frames = [_screen((i * 10, 10)) for i in range(4)] + [_screen((40, 10))] * 3
    calls = iter(frames)
    t = [0.0]
    settled = wait_until_settled(
        lambda: Observation.from_image(next(calls)), timeout=5, interval=0.1,
        sleep=lambda s: t.__setitem__(0, t[0] + s), clock=lambda: t[0],
    )
    assert settled.settled
    assert changed_region(settled.observation.image, _screen((40, 10))) is None


def test_wait_until_settled_gives_up_at_the_timeout():
    counter = iter(range(1000))
    t = [0.0]
    settled = wait_until_settled(
        lambda: Observation.from_image(_screen((next(counter) % 150, 10))), timeout=1, interval=0.1,
        sleep=lambda s: t.__setitem__(0, t[0] + s), clock=lambda: t[0],
    )
    assert not settled.settled
    assert settled.waited >= 1


def test_loop_detector_flags_the_same_action_on_the_same_screen():
    loop = LoopDetector(repeats=3)
    assert not loop.observe("click('OK')", "s1")
    assert not loop.observe("click('OK')", "s1")
    assert not loop.observe("click('OK')", "s2")  # the screen changed: progress
    assert loop.observe("click('OK')", "s1")


# -- settle_after: the grace for an action that changed nothing (Settings.settle_change_grace) --

class _FakeTime:
    """A clock that moves only when the code under test waits (stop.wait) on it."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def wait(self, seconds: float) -> bool:   # threading.Event.wait, never set
        self.now += seconds
        return False

    def is_set(self) -> bool:
        return False


def _settle_with_change_at(monkeypatch, change_at: float | None) -> tuple[Image.Image, float, int]:
    """settle_after with default Settings on a screen that changes at ``change_at`` (fake) seconds
    after the action, or never: (the frame it returns, fake seconds waited, frames observed)."""
    from gui_agent.config import Settings
    from gui_agent.verify import settle as settle_module

    fake = _FakeTime()
    monkeypatch.setattr(settle_module, "time", fake)
    before, after = _screen(), _screen((50, 20))
    seen = [0]

    def observe() -> Observation:
        seen[0] += 1
        changed = change_at is not None and fake.now >= change_at
        return Observation.from_image(after if changed else before)

    settings = Settings(settle_interval=0.01)      # the grace and timeout stay the defaults
    obs = settle_module.settle_after(observe, Observation.from_image(before), settings, stop=fake)
    return obs.image, fake.now, seen[0]


def test_an_unchanged_screen_is_watched_for_the_grace_then_taken_as_it_is(monkeypatch):
    """No change at all: the agent waits the whole grace (1.5 s by default), then goes on."""
    image, waited, seen = _settle_with_change_at(monkeypatch, None)
    assert frames_equal(image, _screen())
    assert 1.45 <= waited <= 1.6, waited
    assert seen >= 100     # it kept looking (every settle_interval), not one long sleep


def test_a_late_change_within_the_grace_is_waited_for(monkeypatch):
    """A dialog that opens 1.2 s after the click is seen (a grace cut to 1 s would miss it)."""
    image, waited, _ = _settle_with_change_at(monkeypatch, 1.2)
    assert frames_equal(image, _screen((50, 20)))
    assert 1.2 <= waited < 1.3, waited


def test_a_change_after_the_grace_is_not_waited_for(monkeypatch):
    """A change 2.5 s after the click comes too late: the grace is bounded (not 3 s or more)."""
    image, waited, _ = _settle_with_change_at(monkeypatch, 2.5)
    assert frames_equal(image, _screen())
    assert waited < 1.6, waited
