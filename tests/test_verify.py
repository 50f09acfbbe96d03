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
