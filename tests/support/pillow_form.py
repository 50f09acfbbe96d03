"""A settings-like form drawn with Pillow (light and dark), with its ground truth.

``render_form`` returns the image and a ``Truth`` per widget (tabs, fields, a combo box, check
boxes, radios, a link, buttons, a paragraph); ``matches`` says whether a found box is a true
one. Shared by the widget, OCR, text-region, screen-parser and landmark tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from gui_agent.geometry import Box
from gui_agent.parsing.elements import ElementKind

FONT_DIR = Path("/usr/share/fonts/truetype")
THEMES = {
    "light": dict(bg=(240, 240, 240), fg=(25, 25, 25), field=(255, 255, 255), border=(140, 140, 140),
                  face=(222, 222, 226), mark=(30, 30, 30), link=(20, 70, 200), tab_on=(255, 255, 255)),
    "dark": dict(bg=(32, 33, 36), fg=(232, 232, 232), field=(22, 22, 24), border=(120, 120, 128),
                 face=(66, 68, 74), mark=(235, 235, 235), link=(110, 160, 255), tab_on=(50, 52, 58)),
}


@dataclass(frozen=True)
class Truth:
    kind: ElementKind
    box: Box
    text: str = ""
    checked: bool | None = None
    label: str = ""


def font(size: int = 15, name: str = "dejavu/DejaVuSans.ttf") -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_DIR / name), size)


def draw_app_window(draw: ImageDraw.ImageDraw, theme: str, frame: tuple[int, int, int, int],
                    menus: tuple[str, ...] = ("File", "Edit", "View"), bar_line: int | None = None) -> None:
    """An application window's frame (left, top, right, bottom) with its menu bar's titles
    along its top, 50 px apart, and a line under the bar at ``bar_line`` when given."""
    c = THEMES[theme]
    left, top, right, bottom = frame
    draw.rectangle([left, top, right, bottom], fill=c["bg"], outline=c["border"])
    for k, word in enumerate(menus):
        draw.text((left + 10 + 50 * k, top + 8), word, fill=c["fg"], font=font(14))
    if bar_line is not None:
        draw.line([left + 1, bar_line, right - 1, bar_line], fill=c["border"])


def render_form(theme: str = "light", size: tuple[int, int] = (1280, 800), name_value: str = "",
                remember: bool = True, font_name: str = "dejavu/DejaVuSans.ttf") -> tuple[Image.Image, list[Truth]]:
    """A settings-like form drawn with Pillow; returns the image and its ground truth."""
    c = THEMES[theme]
    img = Image.new("RGB", size, c["bg"])
    d = ImageDraw.Draw(img)
    f = font(15, font_name)
    truth: list[Truth] = []

    def text(x: int, y: int, s: str, fill=c["fg"]) -> Box:
        d.text((x, y), s, fill=fill, font=f)
        left, top, right, bottom = d.textbbox((x, y), s, font=f)
        return Box.from_corners(left, top, right, bottom)

    def field(x: int, y: int, w: int, label: str, value: str = "") -> None:
        text(x - 110, y + 7, label)
        d.rectangle([x, y, x + w - 1, y + 29], fill=c["field"], outline=c["border"])
        if value:
            text(x + 6, y + 7, value)
        truth.append(Truth(ElementKind.TEXT_FIELD, Box(x, y, w, 30), value, label=label))

    def button(x: int, y: int, caption: str) -> None:
        tw = int(d.textlength(caption, font=f))
        d.rounded_rectangle([x, y, x + tw + 39, y + 31], 5, fill=c["face"], outline=c["border"])
        text(x + 20, y + 8, caption)
        truth.append(Truth(ElementKind.BUTTON, Box(x, y, tw + 40, 32), caption))

    def checkbox(x: int, y: int, label: str, on: bool) -> None:
        d.rectangle([x, y, x + 15, y + 15], fill=c["field"], outline=c["border"])
        if on:
            d.line([(x + 3, y + 8), (x + 6, y + 12), (x + 12, y + 3)], fill=c["mark"], width=2)
        text(x + 24, y, label)
        truth.append(Truth(ElementKind.CHECKBOX, Box(x, y, 16, 16), checked=on, label=label))

    def radio(x: int, y: int, label: str, on: bool) -> None:
        d.ellipse([x, y, x + 15, y + 15], fill=c["field"], outline=c["border"])
        if on:
            d.ellipse([x + 4, y + 4, x + 11, y + 11], fill=c["mark"])
        text(x + 24, y, label)
        truth.append(Truth(ElementKind.RADIO, Box(x, y, 16, 16), checked=on, label=label))

    # tab bar
    x = 40
    for i, tab in enumerate(["General", "Network", "Advanced"]):
        tw = int(d.textlength(tab, font=f)) + 36
        d.rectangle([x, 30, x + tw - 1, 61], fill=c["tab_on"] if i == 0 else c["face"], outline=c["border"])
        text(x + 18, 38, tab)
        truth.append(Truth(ElementKind.TAB, Box(x, 30, tw, 32), tab, checked=i == 0))
        x += tw
    d.text((1230, 34), "×", fill=c["fg"], font=font(20))
    field(160, 100, 260, "Name", name_value)
    field(160, 150, 260, "Email", "ann@example.com")
    # combo box with a chevron
    text(50, 207, "Colour")
    d.rectangle([160, 200, 419, 229], fill=c["field"], outline=c["border"])
    text(166, 207, "Blue")
    d.line([(398, 211), (404, 217), (410, 211)], fill=c["fg"], width=2)
    truth.append(Truth(ElementKind.COMBO, Box(160, 200, 260, 30), "Blue", label="Colour"))
    checkbox(160, 260, "Remember me", remember)
    checkbox(160, 290, "Send newsletter", not remember)
    radio(160, 330, "Small", False)
    radio(160, 360, "Large", True)
    link_box = text(160, 410, "Forgot password?", fill=c["link"])
    d.line([(link_box.left, link_box.bottom + 2), (link_box.right, link_box.bottom + 2)], fill=c["link"])
    truth.append(Truth(ElementKind.LINK, link_box, "Forgot password?"))
    button(160, 460, "Cancel")
    button(300, 460, "Save settings")
    para = text(600, 110, "Settings are stored on this computer only.")
    truth.append(Truth(ElementKind.TEXT, para, "Settings are stored on this computer only."))
    return img, truth


def matches(found_box: Box, truth_box: Box) -> bool:
    return found_box.iou(truth_box) > 0.5 or (truth_box.contains(found_box.center) and found_box.contains(truth_box.center))


SANS = "liberation/LiberationSans-Regular.ttf"
