"""A two-column table drawn with Pillow (cell borders shared, as a web page draws them), a text
field under it; with the cells' ground truth. Shared by the table-cell and
reading tests."""

from __future__ import annotations

from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from tests.support.pillow_form import THEMES, font

ROWS = (("Last name", "Maxwell"), ("Color", "olive"), ("Country", "Macao"), ("Year of Birth", "2010"),
        ("First name", "Modesta"))


def render_table(theme: str = "light", font_name: str = "dejavu/DejaVuSans.ttf", scale: float = 1.0,
                 rows: tuple[tuple[str, str], ...] = ROWS) -> tuple[Image.Image, dict[str, Box], Box]:
    """The image, each value cell's box by its name, and the text field's box."""
    c = THEMES[theme]
    s = scale
    img = Image.new("RGB", (int(330 * s), int(120 * s + 32 * s * len(rows))), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(int(15 * s), font_name)
    top, h = int(10 * s), int(30 * s)
    cols = (int(10 * s), int(180 * s), int(310 * s))
    cells: dict[str, Box] = {}
    for i, (name, value) in enumerate(rows):
        y = top + i * (h - 1)           # neighbouring cells share their border line
        fill = c["field"] if i % 2 == 0 else c["face"]
        for x0, x1, text in ((cols[0], cols[1], name), (cols[1] - 1, cols[2], value)):
            d.rectangle([x0, y, x1, y + h], fill=fill, outline=c["border"])
            d.text((x0 + int(5 * s), y + int(6 * s)), text, fill=c["fg"], font=f)
        cells[name] = Box(cols[1], y, cols[2] - cols[1], h)
    y = top + len(rows) * (h - 1) + int(12 * s)
    field = Box(cols[0], y, int(250 * s), int(32 * s))
    d.rectangle([field.left, field.top, field.right, field.bottom], fill=c["field"], outline=c["border"], width=2)
    return img, cells, field
