"""An application updates its accessibility tree a moment after it draws: a window's read made
right after its pixels changed may be of the old tree (a browser page's field where it was
before) and is not kept; once the pixels have stayed the same for a while, the read is kept."""

from __future__ import annotations

from PIL import Image

from gui_agent.accessibility import atspi
from gui_agent.accessibility.atspi import AtspiSource, _Win
from gui_agent.geometry import Box
from gui_agent.parsing.elements import Element, ElementKind
from gui_agent.screen.observation import MonitorGeometry


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_read_right_after_the_pixels_changed_is_walked_again_later(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(atspi.time, "monotonic", clock)
    trees = iter([Box(4, 104, 260, 43), Box(30, 143, 256, 43), Box(30, 143, 256, 43)])
    walks = []

    def walk(self, win, monitor, size, deadline):
        walks.append(clock.now)
        return (Element(ElementKind.TEXT_FIELD, next(trees), "", 1.0, "a11y"),), True

    monkeypatch.setattr(AtspiSource, "_walk", walk)
    source = AtspiSource()
    win = _Win(None, "1:/org/a11y/atspi/accessible/1", "page", "frame", Box(0, 0, 328, 560), True, 1)
    monitor = MonitorGeometry(0, 0, 328, 560)
    image = Image.new("RGB", (328, 560), "white")       # the new page, already drawn

    def field() -> Box:
        return source._window_elements(win, win.box, monitor, image, deadline=1e12)[0].box

    assert field() == Box(4, 104, 260, 43)     # the tree still says where the field was
    clock.now += 4.0                           # the step had no effect; the same pixels
    assert field() == Box(30, 143, 256, 43)    # walked again: where the field is now
    clock.now += 1.0
    assert field() == Box(30, 143, 256, 43) and len(walks) == 2   # now kept: not walked again


def test_an_element_where_the_screen_shows_nothing_is_not_read():
    """The tree of a page that has just changed still puts the text box where the old page had
    it, on blank page: no element is read there; a frame as light as a web form's is drawn."""
    import numpy as np
    from PIL import ImageDraw

    from gui_agent.accessibility.atspi import drawn

    img = Image.new("RGB", (328, 420), "white")
    d = ImageDraw.Draw(img)
    d.rectangle([28, 356, 284, 398], outline=(224, 224, 224))        # a light field frame
    d.text((10, 10), "Focus into the textbox.", fill="black")
    gray = np.asarray(img.convert("L"))
    assert not drawn(gray, Box(4, 104, 256, 43))                      # the old page's place
    assert drawn(gray, Box(28, 356, 257, 43))                         # the field's frame
    assert drawn(gray, Box(8, 8, 150, 16))                            # a text
    assert not drawn(gray, Box(400, 500, 20, 20))                     # off the screen
