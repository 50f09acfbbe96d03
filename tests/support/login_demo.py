"""A synthetic demonstration: a login form drawn with Pillow, recorded as the recorder would.

``write_demo`` writes the demonstration folder (frames, events, meta.json) of typing a user
name and a password (``SECRET``, a secret parameter) and logging in; ``screen`` draws one frame.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from gui_agent.recording.demo_folder import DemoMeta, DemoParameter, DemoWriter
from gui_agent.recording.events import DemoEvent

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
SECRET = "hunter2"
SIZE = (640, 360)
USER_FIELD, PASS_FIELD, BUTTON = (140, 85, 400, 115), (140, 135, 400, 165), (140, 190, 250, 222)


def screen(username: str = "", dots: int = 0, focus: str | None = None, status: str | None = None,
           saved: bool = False, label: str = "Password") -> Image.Image:
    font = ImageFont.truetype(FONT, 15)
    image = Image.new("RGB", SIZE, (240, 240, 240))
    d = ImageDraw.Draw(image)
    d.text((40, 40), "Sign in to Acme", fill=(20, 20, 20), font=font)
    for (name, box, value) in (("Username", USER_FIELD, username), (label, PASS_FIELD, "\u25cf" * dots)):
        d.text((40, box[1] + 8), name, fill=(20, 20, 20), font=font)
        outline = (30, 90, 200) if focus == name else (120, 120, 120)
        d.rectangle(box, fill="white", outline=outline, width=2 if focus == name else 1)
        if value:
            d.text((box[0] + 6, box[1] + 7), value, fill=(20, 20, 20), font=font)
    d.rounded_rectangle(BUTTON, radius=4, fill=(225, 225, 225), outline=(100, 100, 100))
    d.text((170, 197), "Log in", fill=(20, 20, 20), font=font)
    if status:
        d.text((40, 260), status, fill=(0, 110, 0), font=font)
    if saved:
        d.text((420, 320), "Saved draft", fill=(20, 20, 20), font=font)
    return image


def centre(box: tuple[int, int, int, int]) -> tuple[int, int]:
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


def write_demo(folder: Path, parameters: tuple[DemoParameter, ...] | None = None) -> Path:
    frames = [screen(), screen(focus="Username"), screen("ann", focus="Username"),
              screen("ann", focus="Password"), screen("ann", 7, focus="Password"),
              screen("ann", 7, status="Welcome back!"), screen("ann", 7, status="Welcome back!", saved=True)]
    writer = DemoWriter(folder)
    names = [writer.save_frame(f, f"{i + 1:04d}-before.png") for i, f in enumerate(frames)]
    events = [
        DemoEvent("click", 0.5, 0.6, point=centre(USER_FIELD), button="left", before=names[0], after=names[1]),
        DemoEvent("type", 1.0, 1.4, text="ann", before=names[1], after=names[2]),
        DemoEvent("click", 2.0, 2.1, point=centre(PASS_FIELD), button="left", before=names[2], after=names[3]),
        DemoEvent("type", 2.5, 3.0, secret="password", before=names[3], after=names[4]),
        DemoEvent("click", 3.5, 3.6, point=centre(BUTTON), button="left", before=names[4], after=names[5]),
        DemoEvent("click", 4.0, 4.1, point=(560, 300), button="left", before=names[5], after=names[5]),
        DemoEvent("hotkey", 4.5, 4.5, keys=("ctrl", "s"), before=names[5], after=names[6]),
    ]
    for i, event in enumerate(events, 1):
        writer.append(DemoEvent(**{**event.__dict__, "index": i}))
    default = (DemoParameter("username", 2, "Username"), DemoParameter("password", 4, "Password", True))
    writer.write_meta(DemoMeta("acme login", "2025-01-01T00:00:00+00:00", 1.0,
                               {"monitor": 1, "left": 0, "top": 0, "width": SIZE[0], "height": SIZE[1],
                                "scale": 1.0}, window={"title": "Acme", "box": [0, 0, *SIZE]},
                               stop_reason="stop hotkey", events=len(events),
                               parameters=default if parameters is None else parameters))
    writer.close()
    return folder
