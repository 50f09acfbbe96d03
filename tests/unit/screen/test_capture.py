"""ScreenCapture: image pixels map to the exact pyautogui point, on faked monitor layouts.

A fake mss renders a "desktop" in mss units: every captured pixel shows what lies at
its position, and one red square of one screen unit marks a known point. The first
pixel of that square must map back (Observation.to_screen) to the marked point.
"""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest
from PIL import Image

from gui_agent.display import VirtualDisplay, ensure_display
from gui_agent.errors import CaptureError, DisplayError
from gui_agent.geometry import Box, Point
from gui_agent.screen import MonitorGeometry, ScreenCapture

RED = (255, 0, 0)


class FakeShot:
    def __init__(self, bgra: np.ndarray) -> None:
        self.size = (bgra.shape[1], bgra.shape[0])
        self.raw = bytearray(bgra.tobytes())


class FakeMss:
    """mss-like: ``monitors`` in mss units; ``grab`` returns ``ratio`` pixels per mss unit."""

    def __init__(self, monitors: list[dict], ratios: list[float],
                 markers: list[tuple[int, int]], fail_grabs: int = 0) -> None:
        self.monitors = monitors
        self.ratios = ratios  # per monitor index, 0 = all together
        self.markers = markers
        self.grabs: list[dict] = []
        self.fail_grabs = fail_grabs
        self.closed = False

    def _ratio(self, region: dict) -> float:
        if (region["left"], region["top"], region["width"], region["height"]) == tuple(
                self.monitors[0][k] for k in ("left", "top", "width", "height")):
            return self.ratios[0]
        for mon, ratio in zip(self.monitors[1:], self.ratios[1:], strict=True):
            if (mon["left"] <= region["left"] < mon["left"] + mon["width"]
                    and mon["top"] <= region["top"] < mon["top"] + mon["height"]):
                return ratio
        raise AssertionError(f"region {region} starts on no monitor")

    def grab(self, region: dict) -> FakeShot:
        if self.fail_grabs:
            self.fail_grabs -= 1
            raise RuntimeError("XGetImage failed")
        self.grabs.append(region)
        r = self._ratio(region)
        w, h = round(region["width"] * r), round(region["height"] * r)
        xs = np.floor(region["left"] + np.arange(w) / r).astype(int)
        ys = np.floor(region["top"] + np.arange(h) / r).astype(int)
        bgra = np.zeros((h, w, 4), np.uint8)
        bgra[...] = (40, 40, 40, 255)
        for mx, my in self.markers:
            bgra[np.ix_(ys == my, xs == mx)] = (0, 0, 255, 255)  # BGRA red
        return FakeShot(bgra)

    def close(self) -> None:
        self.closed = True


def _mon(left: int, top: int, width: int, height: int) -> dict:
    return {"left": left, "top": top, "width": width, "height": height}


def _union(*mons: dict) -> dict:
    left, top = min(m["left"] for m in mons), min(m["top"] for m in mons)
    right = max(m["left"] + m["width"] for m in mons)
    bottom = max(m["top"] + m["height"] for m in mons)
    return _mon(left, top, right - left, bottom - top)


def _capture(fake: FakeMss, **kw) -> ScreenCapture:
    return ScreenCapture(mss_factory=lambda: fake, window_info=False, **kw)


def _marker_pixel(image: Image.Image) -> Point:
    arr = np.asarray(image)
    hits = np.argwhere((arr == RED).all(axis=2))
    assert len(hits), "marker not in the captured image"
    y, x = hits.min(axis=0)
    return Point(int(x), int(y))


# Primary: a 1280x800-point panel at 1.5 pixels per point; left of it a 1920x1080 Retina
# monitor at 2 pixels per point starting at x=-1920 (macOS-style units: points).
PRIMARY = _mon(0, 0, 1280, 800)
LEFT = _mon(-1920, 0, 1920, 1080)
MARKERS = [(201, 133), (-1500, 250), (1279, 799), (-1920, 0)]


@pytest.fixture
def fake() -> FakeMss:
    return FakeMss([_union(PRIMARY, LEFT), PRIMARY, LEFT], [2.0, 1.5, 2.0], MARKERS)


def test_scale_1_5_monitor_maps_pixels_to_points(fake: FakeMss) -> None:
    obs = _capture(fake).capture(1)
    assert obs.size == (1920, 1200)
    assert obs.monitor == MonitorGeometry(0, 0, 1280, 800, 1.5, 1)
    pixel = _marker_pixel(obs.image)
    assert obs.to_screen(pixel) == Point(201, 133)
    assert obs.to_image(Point(201, 133)) == Point(302, 200)  # 301.5/199.5 round to even
    corner = np.asarray(obs.image)[1199, 1919]
    assert tuple(corner) == RED  # (1279, 799) is the last point: its pixels end the image


def test_negative_x_monitor_at_scale_2(fake: FakeMss) -> None:
    obs = _capture(fake).capture(2)
    assert obs.size == (3840, 2160)
    assert obs.monitor == MonitorGeometry(-1920, 0, 1920, 1080, 2.0, 2)
    assert tuple(np.asarray(obs.image)[0, 0]) == RED  # (-1920, 0) is its top-left point
    arr = np.asarray(obs.image).copy()
    arr[0:2, 0:2] = 0  # look for the other marker
    assert obs.to_screen(_marker_pixel(Image.fromarray(arr))) == Point(-1500, 250)
    assert obs.to_screen(Point(0, 0)) == Point(-1920, 0)
    assert obs.to_screen(Point(3838, 2158)) == Point(-1, 1079)


def test_all_monitors_together(fake: FakeMss) -> None:
    obs = _capture(fake).capture(0)
    assert obs.monitor == MonitorGeometry(-1920, 0, 3200, 1080, 2.0, 0)
    assert obs.size == (6400, 2160)
    assert obs.to_screen(obs.to_image(Point(201, 133))) == Point(201, 133)
    assert obs.to_image(Point(-1500, 250)) == Point(840, 500)
    assert tuple(np.asarray(obs.image)[500, 840]) == RED


def test_region_on_scale_2_monitor(fake: FakeMss) -> None:
    obs = _capture(fake).capture(2, region=Box(-1600, 100, 300, 200))
    assert fake.grabs[-1] == {"left": -1600, "top": 100, "width": 300, "height": 200}
    assert obs.size == (600, 400)
    assert obs.monitor == MonitorGeometry(-1600, 100, 300, 200, 2.0, 2)
    pixel = _marker_pixel(obs.image)
    assert pixel == Point(200, 300)
    assert obs.to_screen(pixel) == Point(-1500, 250)
    assert obs.box_to_screen(Box(200, 300, 2, 2)) == Box(-1500, 250, 1, 1)


def test_region_at_scale_1_5_uses_the_monitor_scale(fake: FakeMss) -> None:
    capture = _capture(fake)
    capture.capture(1)  # learns that monitor 1 is exactly 1.5
    obs = capture.capture(1, region=Box(150, 101, 101, 67))
    assert obs.monitor.scale == 1.5  # 101 points -> 152 pixels would measure 1.505
    assert obs.to_screen(_marker_pixel(obs.image)) == Point(201, 133)


def test_region_is_clipped_to_the_monitor(fake: FakeMss) -> None:
    obs = _capture(fake).capture(1, region=Box(1200, 700, 300, 300))
    assert obs.monitor == MonitorGeometry(1200, 700, 80, 100, 1.5, 1)
    assert obs.size == (120, 150)
    assert obs.to_screen(_marker_pixel(obs.image)) == Point(1279, 799)


def test_region_outside_the_monitor_raises(fake: FakeMss) -> None:
    with pytest.raises(CaptureError, match="outside monitor 1"):
        _capture(fake).capture(1, region=Box(-500, 0, 100, 100))


def test_unknown_monitor_raises(fake: FakeMss) -> None:
    with pytest.raises(CaptureError, match=r"monitor 3 does not exist.*1\.\.2"):
        _capture(fake).capture(3)


def test_monitors_report_geometry_and_probed_scale(fake: FakeMss) -> None:
    assert _capture(fake).monitors() == [
        MonitorGeometry(-1920, 0, 3200, 1080, 2.0, 0),
        MonitorGeometry(0, 0, 1280, 800, 1.5, 1),
        MonitorGeometry(-1920, 0, 1920, 1080, 2.0, 2),
    ]


def test_logical_size_provider_converts_mss_units() -> None:
    # mss in physical pixels (2560x1600), the input API in logical units (1280x800).
    physical = _mon(0, 0, 2560, 1600)
    fake = FakeMss([physical, physical], [1.0, 1.0], [(1000, 600)])

    def logical(index: int, mon) -> tuple[int, int]:
        return mon["width"] // 2, mon["height"] // 2

    capture = _capture(fake, logical_size_provider=logical)
    obs = capture.capture(1)
    assert obs.monitor == MonitorGeometry(0, 0, 1280, 800, 2.0, 1)
    assert obs.to_screen(_marker_pixel(obs.image)) == Point(500, 300)
    region = capture.capture(1, region=Box(400, 250, 200, 100))
    assert fake.grabs[-1] == {"left": 800, "top": 500, "width": 400, "height": 200}
    assert region.monitor == MonitorGeometry(400, 250, 200, 100, 2.0, 1)
    assert region.to_screen(_marker_pixel(region.image)) == Point(500, 300)


def test_colours_come_out_rgb(fake: FakeMss) -> None:
    obs = _capture(fake).capture(1, region=Box(200, 132, 3, 3))
    assert obs.image.mode == "RGB"
    assert obs.image.getpixel((2, 2)) == RED  # pixel 2 -> point 201.33, 133.33
    assert obs.image.getpixel((0, 0)) == (40, 40, 40)


def test_bgra_only_screenshots_are_read_too() -> None:
    class BgraShot:
        size = (2, 1)
        bgra = bytes([255, 0, 0, 255, 0, 255, 0, 255])  # blue, green

    class Mss(FakeMss):
        def grab(self, region: dict) -> BgraShot:
            return BgraShot()

    mon = _mon(0, 0, 2, 1)
    obs = _capture(Mss([mon, mon], [1.0, 1.0], [])).capture(1)
    assert [obs.image.getpixel((x, 0)) for x in range(2)] == [(0, 0, 255), (0, 255, 0)]


def test_a_failed_grab_reconnects_once() -> None:
    made: list[FakeMss] = []

    def factory() -> FakeMss:
        made.append(FakeMss([PRIMARY, PRIMARY], [1.0, 1.0], [], fail_grabs=1 if not made else 0))
        return made[-1]

    capture = ScreenCapture(mss_factory=factory, window_info=False)
    assert capture.capture(1).size == (1280, 800)
    assert len(made) == 2 and made[0].closed and not made[1].closed


def test_a_grab_failing_twice_raises_capture_error() -> None:
    capture = _capture(FakeMss([PRIMARY, PRIMARY], [1.0, 1.0], [], fail_grabs=5))
    with pytest.raises(CaptureError, match="XGetImage failed"):
        capture.capture(1)


def test_one_mss_per_thread_and_close_closes_all() -> None:
    made: list[FakeMss] = []
    lock = threading.Lock()

    def factory() -> FakeMss:
        with lock:
            made.append(FakeMss([PRIMARY, PRIMARY], [1.0, 1.0], []))
            return made[-1]

    capture = ScreenCapture(mss_factory=factory, window_info=False)
    capture.capture(1)
    capture.capture(1)
    worker = threading.Thread(target=lambda: capture.capture(1))
    worker.start()
    worker.join()
    assert len(made) == 2
    capture.close()
    assert all(m.closed for m in made)


def test_mss_that_cannot_open_raises_display_error() -> None:
    def broken() -> FakeMss:
        raise RuntimeError("XOpenDisplay() failed")

    with pytest.raises(DisplayError, match="XOpenDisplay"):
        ScreenCapture(mss_factory=broken).capture()


def test_no_display_is_an_actionable_error(monkeypatch) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    with pytest.raises(DisplayError, match="set DISPLAY .* --headless"):
        ScreenCapture().capture()


def test_save_screenshot(fake: FakeMss, tmp_path) -> None:
    path = _capture(fake).save_screenshot(tmp_path / "shots" / "screen.png", monitor=1)
    with Image.open(path) as img:
        assert img.size == (1920, 1200)
    with pytest.raises(CaptureError, match="cannot write screenshot"):
        _capture(fake).save_screenshot(tmp_path / "screen.unknown-format")


@pytest.mark.parametrize("scale", [1.0, 1.25, 1.5, 2.0])
def test_every_point_survives_a_round_trip(scale: float) -> None:
    mon = _mon(-640, -200, 640, 400)
    fake = FakeMss([mon, mon], [scale, scale], [])
    obs = _capture(fake).capture(1)
    for x in range(-640, 0, 37):
        for y in range(-200, 200, 29):
            assert obs.to_screen(obs.to_image(Point(x, y))) == Point(x, y)
    assert math.isclose(obs.monitor.scale, scale)


# -- display helpers (no X server needed) ----------------------------------------------

def test_virtual_display_without_xvfb_says_how_to_install(monkeypatch) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setattr("shutil.which", lambda name: None)
    with pytest.raises(DisplayError, match="apt-get install xvfb"):
        VirtualDisplay().start()


def test_ensure_display_without_display_and_not_headless_raises(monkeypatch) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    with pytest.raises(DisplayError, match="--headless"), ensure_display(headless=False):
        pass


def test_ensure_display_off_linux_uses_the_desktop(monkeypatch) -> None:
    monkeypatch.setattr("sys.platform", "darwin")
    monkeypatch.setenv("DISPLAY", ":4242")  # never opened off Linux
    with ensure_display(headless=None) as name:
        assert name == ":4242"
    with pytest.raises(DisplayError, match="need Linux"), ensure_display(headless=True):
        pass


def test_virtual_display_rejects_bad_settings() -> None:
    with pytest.raises(DisplayError, match="colour depth"):
        VirtualDisplay(depth=12)
    with pytest.raises(DisplayError, match="size"):
        VirtualDisplay(size=(0, 800))

