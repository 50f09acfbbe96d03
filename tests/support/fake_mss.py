"""An mss stand-in whose one monitor shows one colour (what XWayland gives for Wayland windows)."""

from __future__ import annotations

BLACK, GREY = (0, 0, 0), (128, 128, 128)


class Shot:
    def __init__(self, width: int, height: int, rgb: tuple[int, int, int],
                 dot: tuple[int, int] | None) -> None:
        self.size = (width, height)
        pixel = bytes((rgb[2], rgb[1], rgb[0], 255))  # BGRA
        data = bytearray(pixel * (width * height))
        if dot is not None:
            at = 4 * (dot[1] * width + dot[0])
            data[at:at + 4] = bytes((255, 255, 255, 255))
        self.raw = data


class OneColourMss:
    """mss-like: one 320x200 monitor that shows one colour (and, optionally, one white dot)."""

    def __init__(self, rgb: tuple[int, int, int] = BLACK, dot: tuple[int, int] | None = None):
        mon = {"left": 0, "top": 0, "width": 320, "height": 200}
        self.monitors = [dict(mon), dict(mon)]
        self.rgb, self.dot = rgb, dot

    def grab(self, region: dict) -> Shot:
        dot = self.dot if region["width"] > 64 else None
        return Shot(region["width"], region["height"], self.rgb, dot)

    def close(self) -> None:
        pass
