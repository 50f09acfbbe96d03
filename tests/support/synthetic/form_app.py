"""A tiny simulated application for step-pipeline tests: a form drawn with Pillow that reacts
to a controller the way a real toolkit does — a click focuses the field under it, typed keys go
to the focused field, Enter submits — with faults a real desktop shows: keys that are lost,
a click that does not move the focus, an Enter that does nothing, a button that does nothing.
With ``notes=True`` it also has a Notes text area that a drag from its grip (its bottom-right
corner, as a web page's text area) resizes, unless the fault ``fixed_size`` holds it.
With ``dialog=True`` the form is a dialog (the window manager says so) over a main window: a
submit closes it, unless it is a find dialog (``finds=True``), which stays and marks what it
found in the main window below it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from gui_agent.geometry import Box, Point
from gui_agent.screen.observation import ActiveWindow, MonitorGeometry, Observation

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
SIZE = (640, 400)


@dataclass
class Faults:
    lose_keys: bool = False          # typed text goes nowhere
    sticky_focus: bool = False       # a click does not move the focus (keys go to the old field)
    ignore_enter: bool = False       # Enter does nothing
    dead_button: bool = False        # the button does nothing
    lag: int = 0                     # typed text shows only after this many more screenshots
    fixed_size: bool = False         # the Notes area's grip does nothing
    completer: int = 0               # typing opens a completion list for this many screenshots;
                                     # an Enter while it shows takes its first entry instead
    own_list: int = 0                # this many Enters go to the dialog's own list, which opens
                                     # a folder (inside the dialog) instead of submitting
    hover_swap: bool = False         # the button redraws under the pointer, and a press that
                                     # comes with the pointer (not after it rested there) is lost
    hover_fields: bool = False       # a field under the pointer shows a hover outline


@dataclass
class FormApp:
    """Two labelled fields (Name, City), a Submit button and a status line."""

    faults: Faults = field(default_factory=Faults)
    values: dict[str, str] = field(default_factory=lambda: {"Name": "", "City": ""})
    focus: str | None = "Name"
    status: str = "Ready"
    presses: list[str] = field(default_factory=list)
    pending: list[tuple[int, str, str]] = field(default_factory=list)   # (frames left, field, text)
    notes: Box | None = None          # the resizable Notes area, when the app has one
    completing: int = 0               # screenshots left while the completion list shows
    dialog: bool = False              # the form is a dialog over a main window
    finds: bool = False               # ... a find dialog: a submit marks a match, and it stays
    closed: bool = False              # the dialog took a submit and closed
    folder: int = 0                   # folders its own list opened
    pointer: Point | None = None      # where the pointer rests

    GRIP = 12                         # px of the area's bottom-right corner that resize it
    DIALOG = Box(20, 30, 600, 300)    # the dialog window, when the form is one

    fields = {"Name": Box(140, 60, 300, 34), "City": Box(140, 120, 300, 34)}
    button = Box(140, 190, 120, 36)

    def render(self) -> Image.Image:
        image = Image.new("RGB", SIZE, (240, 240, 240))
        draw = ImageDraw.Draw(image)
        font = ImageFont.truetype(str(FONT), 16)
        if self.dialog:
            draw.text((40, 350), self.status if self.finds else "Main window", fill=(20, 20, 20), font=font)
            if self.closed:
                draw.text((40, 370), self.status, fill=(20, 20, 20), font=font)
                return image
            draw.rectangle(self.DIALOG.corners, fill=(240, 240, 240), outline=(90, 90, 90))
            draw.text((300, 36), f"Look in: folder {self.folder}", fill=(20, 20, 20), font=font)
        for name, box in self.fields.items():
            draw.text((40, box.top + 8), name, fill=(20, 20, 20), font=font)
            outline = (40, 90, 200) if self.focus == name else (140, 140, 140)
            if self.faults.hover_fields and self.pointer is not None and box.contains(self.pointer):
                outline = (230, 120, 20)
            draw.rectangle(box.corners, fill=(255, 255, 255), outline=outline, width=2)
            draw.text((box.left + 8, box.top + 8), self.values[name], fill=(20, 20, 20), font=font)
            if self.focus == name:   # the caret after the text
                x = box.left + 9 + round(draw.textlength(self.values[name], font=font))
                draw.line([(x, box.top + 7), (x, box.bottom - 8)], fill=(0, 0, 0), width=1)
        hovered = self.faults.hover_swap and self.pointer is not None and self.button.contains(self.pointer)
        draw.rectangle(self.button.corners, fill=(190, 205, 240) if hovered else (222, 222, 226),
                       outline=(140, 140, 140))
        draw.text((self.button.left + 30, self.button.top + 9), "Submit", fill=(20, 20, 20), font=font)
        if not (self.dialog and self.finds):
            draw.text((40, 260), self.status, fill=(20, 20, 20), font=font)
        if self.completing > 0 and self.focus:
            field_box = self.fields[self.focus]
            popup = Box(field_box.left, field_box.bottom + 2, field_box.width, 30)
            draw.rectangle(popup.corners, fill=(255, 255, 255), outline=(60, 60, 60))
            draw.text((popup.left + 8, popup.top + 6), self.values[self.focus] + "ville",
                      fill=(20, 20, 20), font=font)
        if self.notes is not None:
            box = self.notes
            draw.text((40, box.top + 8), "Notes", fill=(20, 20, 20), font=font)
            draw.rectangle(box.corners, fill=(255, 255, 255), outline=(140, 140, 140), width=2)
            for k in (4, 8):   # the grip's two diagonal strokes
                draw.line([(box.right - 3, box.bottom - 3 - k), (box.right - 3 - k, box.bottom - 3)],
                          fill=(120, 120, 120), width=1)
        return image

    def observe(self) -> Observation:
        still = []
        for left, name, text in self.pending:   # a slow application paints typed text late
            if left <= 0:
                self.values[name] += text
            else:
                still.append((left - 1, name, text))
        self.pending = still
        image = self.render()
        self.completing = max(0, self.completing - 1)   # the completion list closes after a while
        window = None
        if self.dialog:
            window = (ActiveWindow("Main", 1, False, Box(0, 0, *SIZE)) if self.closed
                      else ActiveWindow("Save as", 2, True, self.DIALOG))
        return Observation(image, MonitorGeometry(0, 0, SIZE[0], SIZE[1], 1.0, 1), window=window)

    def submit(self) -> None:
        self.status = f"Saved {self.values['Name']} from {self.values['City']}".strip()
        self.closed = self.dialog and not self.finds

    def enter(self) -> None:
        if self.faults.own_list > self.folder:
            self.folder += 1     # the dialog's list took it
        elif not self.faults.ignore_enter:
            self.submit()


class FormController:
    """The Controller protocol over a :class:`FormApp` (screen coordinates = image pixels)."""

    def __init__(self, app: FormApp) -> None:
        self.app = app
        self.launched: list[str] = []

    def click(self, point: Point, button: str = "left", clicks: int = 1) -> None:
        app = self.app
        app.presses.append(f"click {point.x},{point.y}")
        rested, app.pointer = app.pointer == point, point
        if app.button.contains(point) and app.faults.hover_swap and not rested:
            return   # the button redrew itself under the arriving pointer and lost the press
        if app.button.contains(point):
            if not app.faults.dead_button:
                app.submit()
            return
        for name, box in app.fields.items():
            if box.contains(point) and not app.faults.sticky_focus:
                app.focus = name

    def type_text(self, text: str) -> None:
        self.app.presses.append(f"type {text}")
        if self.app.focus and not self.app.faults.lose_keys:
            if self.app.faults.lag:
                self.app.pending.append((self.app.faults.lag, self.app.focus, text))
            else:
                self.app.values[self.app.focus] += text
            self.app.completing = self.app.faults.completer

    def press(self, key: str, presses: int = 1) -> None:
        self.app.presses.append(f"press {key}")
        if key == "enter" and self.app.completing > 0 and self.app.focus:
            self.app.values[self.app.focus] += "ville"   # the completion list took the Enter
            self.app.completing = 0
        elif key == "enter":
            self.app.enter()
        if key == "backspace" and self.app.focus:
            self.app.values[self.app.focus] = self.app.values[self.app.focus][:-1]

    def hotkey(self, *keys: str) -> None:
        self.app.presses.append("hotkey " + "+".join(keys))
        if set(keys) == {"ctrl", "a"} and self.app.focus and not self.app.faults.lose_keys:
            self.app.values[self.app.focus] = ""   # select all, then the backspace clears

    def move(self, point: Point) -> None:
        self.app.presses.append(f"move {point.x},{point.y}")
        self.app.pointer = point

    def drag(self, src: Point, dst: Point, duration: float = 0.3, button: str = "left") -> None:
        app = self.app
        app.presses.append(f"drag {src.x},{src.y} {dst.x},{dst.y}")
        box = app.notes
        if box is None or app.faults.fixed_size:
            return
        grip = Box(box.right - app.GRIP, box.bottom - app.GRIP, app.GRIP, app.GRIP)
        if grip.contains(src):
            app.notes = Box(box.left, box.top, max(40, box.width + dst.x - src.x),
                            max(24, box.height + dst.y - src.y))

    def scroll(self, direction: str, amount: int = 3, point: Point | None = None) -> None:
        self.app.presses.append(f"scroll {direction}")

    def key_down(self, key: str) -> None:
        self.app.presses.append(f"down {key}")

    def key_up(self, key: str) -> None:
        self.app.presses.append(f"up {key}")

    def launch(self, app: str) -> None:
        self.launched.append(app)

    def position(self) -> Point:
        return Point(0, 0)


class FormDesktop:
    """The Desktop protocol: the app's screen and its controller."""

    def __init__(self, app: FormApp) -> None:
        self.app = app
        self.controller = FormController(app)

    def observe(self) -> Observation:
        return self.app.observe()
