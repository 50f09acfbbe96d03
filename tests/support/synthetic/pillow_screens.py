"""Synthetic UI screens drawn with Pillow: forms, dialogs, toolbars with lists, settings pages
with tabs, link pages. Seeded: the same seed draws the same screen with the same cases."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from gui_agent.geometry import Box
from gui_agent.parsing.elements import ElementKind as K

from . import ABSENT, AMBIGUOUS, HIT, GroundingCase, SyntheticScreen, TruthElement, union

FONT_DIR = Path("/usr/share/fonts/truetype")
FONTS = ["dejavu/DejaVuSans.ttf", "dejavu/DejaVuSerif.ttf", "dejavu/DejaVuSansMono.ttf",
         "liberation/LiberationSans-Regular.ttf", "liberation/LiberationSerif-Regular.ttf",
         "liberation/LiberationMono-Regular.ttf"]
SIZES = [(1280, 800), (1920, 1080), (1024, 768)]
ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}
NUMERIC = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 5: "5th"}
FIELD_LABELS = ["Name", "Email", "Phone", "Address", "City", "Company", "Username", "Country",
                "Website", "Department"]
FIELD_VALUES = ["Ann Smith", "ann@example.org", "555 0199", "Berlin", "Acme Corp"]
CHECKS = ["Remember me", "Subscribe to newsletter", "Accept the terms", "Enable notifications",
          "Show hidden files", "Check for updates", "Start at login"]
RADIOS = [["Small", "Medium", "Large"], ["Daily", "Weekly", "Monthly"], ["Red", "Green", "Blue"]]
BUTTON_ROWS = [["Save", "Cancel"], ["Submit", "Reset"], ["Apply", "Discard"], ["Send", "Back"]]
TOOLS = ["New", "Open", "Print", "Undo", "Redo", "Copy", "Paste", "Share", "Refresh", "Export"]
FOLDERS = ["Documents", "Downloads", "Music", "Pictures", "Videos", "Desktop", "Projects"]
FILES = ["report.txt", "budget_2024.xlsx", "notes.md", "photo_001.jpg", "invoice.pdf",
         "slides.pptx", "backup.zip", "todo.txt"]
TABS = ["General", "Appearance", "Advanced", "Privacy", "Network", "Accounts"]
COMBOS = [("Theme", "Dark"), ("Language", "English"), ("Font size", "Medium"),
          ("Region", "Europe"), ("Startup page", "Home")]
LINKS = ["Privacy policy", "Terms of service", "Contact us", "Help center", "Release notes",
         "Download", "Documentation", "Community forum"]
ABSENT_NAMES = ["Delete", "Zip code", "Print preview", "Logout", "Subscribe now"]
DIALOG_TITLES = ["Confirm changes", "Export settings", "Unsaved work", "Print options"]


@dataclass(frozen=True)
class Theme:
    bg: tuple[int, int, int]
    panel: tuple[int, int, int]
    text: tuple[int, int, int]
    muted: tuple[int, int, int]
    border: tuple[int, int, int]
    button: tuple[int, int, int]
    field: tuple[int, int, int]
    link: tuple[int, int, int]
    accent: tuple[int, int, int]


LIGHT = Theme((236, 236, 236), (250, 250, 250), (25, 25, 25), (110, 110, 110), (140, 140, 140),
              (222, 222, 226), (255, 255, 255), (20, 70, 200), (60, 110, 210))
DARK = Theme((38, 40, 44), (52, 54, 60), (230, 230, 230), (160, 160, 160), (110, 112, 120),
             (72, 75, 84), (28, 29, 33), (120, 170, 255), (90, 140, 230))


class Canvas:
    """A Pillow image plus the truth of everything drawn on it."""

    def __init__(self, rng: random.Random, size: tuple[int, int] | None = None) -> None:
        self.rng = rng
        self.size = size or rng.choice(SIZES)
        self.theme = rng.choice([LIGHT, DARK])
        self.image = Image.new("RGB", self.size, self.theme.bg)
        self.draw = ImageDraw.Draw(self.image)
        self.font_path = str(FONT_DIR / rng.choice(FONTS))
        self.font_size = rng.randint(11, 20)
        self.font = ImageFont.truetype(self.font_path, self.font_size)
        self.elements: list[TruthElement] = []
        self.cases: list[GroundingCase] = []

    def case(self, description: str, box: Box | None, expected: str = HIT) -> None:
        self.cases.append(GroundingCase(description, box, expected))

    def text_box(self, x: int, y: int, text: str, font: ImageFont.FreeTypeFont | None = None) -> Box:
        left, top, right, bottom = self.draw.textbbox((x, y), text, font=font or self.font)
        return Box(left - 1, top - 1, right - left + 2, bottom - top + 2)

    def line_height(self) -> int:
        return self.font_size + 4

    def text(self, x: int, y: int, text: str, kind: K = K.TEXT, color=None, font=None,
             record: bool = True) -> Box:
        self.draw.text((x, y), text, fill=color or self.theme.text, font=font or self.font)
        box = self.text_box(x, y, text, font)
        if record:
            self.elements.append(TruthElement(kind, box, text))
        return box

    def word_box(self, x: int, y: int, line: str, word: str) -> Box:
        """Truth box of ``word`` inside ``line`` drawn at (x, y)."""
        start = line.index(word)
        left = x + self.draw.textlength(line[:start], font=self.font)
        right = x + self.draw.textlength(line[: start + len(word)], font=self.font)
        full = self.text_box(x, y, line)
        return Box(round(left), full.top, max(1, round(right - left)), full.height)

    def button(self, x: int, y: int, caption: str, pad: int | None = None) -> Box:
        pad = pad if pad is not None else self.rng.randint(12, 20)
        w = round(self.draw.textlength(caption, font=self.font)) + 2 * pad
        h = self.font_size + self.rng.randint(12, 16)
        box = Box(x, y, w, h)
        self.draw.rounded_rectangle(box.corners, radius=4, fill=self.theme.button, outline=self.theme.border)
        tb = self.draw.textbbox((0, 0), caption, font=self.font)
        self.draw.text((x + (w - (tb[2] - tb[0])) // 2 - tb[0], y + (h - (tb[3] - tb[1])) // 2 - tb[1]),
                       caption, fill=self.theme.text, font=self.font)
        self.elements.append(TruthElement(K.BUTTON, box, caption))
        return box

    def field(self, x: int, y: int, width: int, label: str = "", value: str = "", kind: K = K.TEXT_FIELD) -> Box:
        h = self.font_size + 14
        box = Box(x, y, width, h)
        self.draw.rectangle(box.corners, fill=self.theme.field, outline=self.theme.border)
        if value:
            ty = y + (h - self.font_size) // 2 - 1
            self.draw.text((x + 6, ty), value, fill=self.theme.text, font=self.font)
        if kind == K.COMBO:
            ax, ay = box.right - 16, y + h // 2 - 2
            self.draw.polygon([(ax - 5, ay), (ax + 5, ay), (ax, ay + 6)], fill=self.theme.text)
        self.elements.append(TruthElement(kind, box, value, label))
        return box

    def check(self, x: int, y: int, label: str, radio: bool = False, checked: bool = False) -> Box:
        """A check box or radio button with its label; returns the clickable row."""
        s = max(13, self.font_size)
        ind = Box(x, y, s, s)
        if radio:
            self.draw.ellipse(ind.corners, fill=self.theme.field, outline=self.theme.border, width=2)
            if checked:
                self.draw.ellipse(ind.expand(-4).corners, fill=self.theme.accent)
        else:
            self.draw.rectangle(ind.corners, fill=self.theme.field, outline=self.theme.border, width=2)
            if checked:
                self.draw.line([(x + 3, y + s // 2), (x + s // 2 - 1, y + s - 4), (x + s - 3, y + 3)],
                               fill=self.theme.accent, width=2)
        ty = y + (s - self.font_size) // 2 - 1
        tb = self.text(x + s + 7, ty, label, record=False)
        kind = K.RADIO if radio else K.CHECKBOX
        self.elements.append(TruthElement(kind, ind, "", label, checked))
        self.elements.append(TruthElement(K.TEXT, tb, label))
        return union(ind, tb)

    def panel(self, box: Box, fill=None) -> None:
        self.draw.rectangle(box.corners, fill=fill or self.theme.panel, outline=self.theme.border)

    def screen(self, name: str) -> SyntheticScreen:
        return SyntheticScreen(name, self.image, self.elements, self.cases)


def _ordinal(rng: random.Random, n: int) -> str:
    return rng.choice([ORDINALS, NUMERIC])[n]


def form_screen(seed: int) -> SyntheticScreen:
    rng = random.Random(seed)
    c = Canvas(rng)
    W, H = c.size
    gap = c.line_height() + rng.randint(16, 26)
    x0, y0 = rng.randint(30, W // 3), rng.randint(20, 80)
    c.text(x0, y0, rng.choice(["Create account", "Contact details", "New customer", "Profile"]))
    labels = rng.sample(FIELD_LABELS, rng.randint(3, 5))
    side = rng.random() < 0.6
    label_w = max(round(c.draw.textlength(lab + ":", font=c.font)) for lab in labels) + 16
    field_w = rng.randint(200, 320)
    y = y0 + gap + 10
    fields: list[Box] = []
    values = list(FIELD_VALUES)
    rng.shuffle(values)
    for i, lab in enumerate(labels):
        value = values[i] if rng.random() < 0.3 else ""
        if side:
            c.text(x0, y + 7, lab + ":")
            fields.append(c.field(x0 + label_w, y, field_w, lab, value))
            y += gap
        else:
            c.text(x0, y, lab)
            fields.append(c.field(x0, y + c.line_height() + 4, field_w, lab, value))
            y += gap + c.line_height() + 8
    for i in rng.sample(range(len(labels)), 2):
        form = rng.choice(["the {} field", "the field for {}", "{} text field", 'the "{}" field',
                           "the {} box", "{} input"])
        lab = labels[i] if rng.random() < 0.7 else labels[i].lower()
        c.case(form.format(lab), fields[i])
    k = rng.randint(1, len(fields))
    c.case(f"the {_ordinal(rng, k)} text field", fields[k - 1])
    c.case("the last text field", fields[-1])
    i = rng.randrange(len(labels))
    c.case(f"the field {'to the right of' if side else 'below'} {labels[i]}", fields[i])
    y += 6
    checks = rng.sample(CHECKS, rng.randint(2, 3))
    rows = [c.check(x0, y + j * (c.line_height() + 12), t, checked=rng.random() < 0.5)
            for j, t in enumerate(checks)]
    y += len(checks) * (c.line_height() + 12) + 10
    j = rng.randrange(len(checks))
    c.case(rng.choice(["the {} checkbox", "{} check box", 'the "{}" checkbox']).format(checks[j]), rows[j])
    j = rng.randrange(len(checks))
    c.case(f"the checkbox next to {checks[j]}", rows[j])
    c.case("the second checkbox", rows[1])
    radios = rng.choice(RADIOS)
    rx = x0
    radio_rows = []
    for j, t in enumerate(radios):
        radio_rows.append(c.check(rx, y, t, radio=True, checked=j == 0))
        rx = radio_rows[-1].right + 28
    y += c.line_height() + 30
    j = rng.randrange(3)
    c.case(rng.choice(["the {} radio button", 'the "{}" option', "{} radio"]).format(radios[j]), radio_rows[j])
    names = rng.choice(BUTTON_ROWS)
    bx = x0
    buttons = []
    for name in names:
        buttons.append(c.button(bx, y, name))
        bx = buttons[-1].right + rng.randint(10, 24)
    c.case(names[0], buttons[0])
    c.case(f"the {names[1].lower()} button", buttons[1])
    up = rng.randrange(2)
    c.case(names[up].upper(), buttons[up])
    c.case("the last button", buttons[-1])
    c.case(f"the {rng.choice(ABSENT_NAMES)} button", None, ABSENT)
    return c.screen(f"form-{seed}")


def dialog_screen(seed: int) -> SyntheticScreen:
    rng = random.Random(seed)
    c = Canvas(rng)
    W, H = c.size
    # background window: a heading, some text, OK/Cancel at the bottom right
    c.text(30, 24, rng.choice(["Document editor", "Mail client", "Image viewer"]))
    for j, line in enumerate(["Last opened yesterday", "Autosave is on"]):
        c.text(30, 70 + j * (c.line_height() + 10), line)
    bg_ok = c.button(W - 200, H - 70, "OK", pad=18)
    c.button(bg_ok.right + 12, H - 70, "Cancel", pad=14)
    # the dialog, centred-ish
    fname = rng.choice(FILES)
    line = f"Do you want to save changes to {fname} before closing?"
    dw = max(rng.randint(380, 520), round(c.draw.textlength(line, font=c.font)) + 40)
    dh = rng.randint(200, 260)
    dx, dy = (W - dw) // 2 + rng.randint(-60, 60), (H - dh) // 2 + rng.randint(-60, 40)
    dialog = Box(dx, dy, dw, dh)
    c.panel(dialog)
    bar = Box(dx, dy, dw, c.font_size + 18)
    c.draw.rectangle(bar.corners, fill=c.theme.button, outline=c.theme.border)
    title = rng.choice(DIALOG_TITLES)
    c.text(dx + 12, dy + 8, title)
    close = Box(bar.right - bar.height + 4, dy + 4, bar.height - 8, bar.height - 8)
    m = 5
    c.draw.line([(close.left + m, close.top + m), (close.right - m, close.bottom - m)], fill=c.theme.text, width=2)
    c.draw.line([(close.left + m, close.bottom - m), (close.right - m, close.top + m)], fill=c.theme.text, width=2)
    c.elements.append(TruthElement(K.CLOSE, close, ""))
    ly = bar.bottom + 24
    c.text(dx + 16, ly, line)
    word = rng.choice(["want", "before", "closing"])
    by = dialog.bottom - c.font_size - 30
    ok = c.button(dx + 16, by, "Don't save", pad=12)
    dok = c.button(dialog.right - 190, by, "OK", pad=18)
    dcancel = c.button(dok.right + 10, by, "Cancel", pad=12)
    c.case("OK", None, AMBIGUOUS)
    c.case("the Cancel button", None, AMBIGUOUS)
    c.case(f"the OK button in the {title} dialog", dok)
    c.case(f'"Cancel" in the {title} dialog', dcancel)
    c.case(rng.choice(["the \"Don't save\" button", "don't save"]), ok)
    c.case(word, c.word_box(dx + 16, ly, line, word))
    c.case("the close icon", close)
    c.case(f"the {rng.choice(ABSENT_NAMES)} button", None, ABSENT)
    return c.screen(f"dialog-{seed}")


def toolbar_screen(seed: int) -> SyntheticScreen:
    rng = random.Random(seed)
    c = Canvas(rng)
    W, H = c.size
    tools = rng.sample(TOOLS, rng.randint(5, 7))
    bar_h = c.font_size + 30
    c.panel(Box(0, 0, W, bar_h), fill=c.theme.panel)
    x = 10
    buttons = []
    for t in tools:
        buttons.append(c.button(x, 8, t, pad=10))
        x = buttons[-1].right + 8
        if rng.random() < 0.3:  # an icon without text between buttons
            ic = Box(x, 12, bar_h - 24, bar_h - 24)
            c.draw.ellipse(ic.corners, outline=c.theme.accent, width=2)
            c.elements.append(TruthElement(K.ICON, ic))
            x = ic.right + 8
    folders = rng.sample(FOLDERS, 5)
    side_w = 200
    c.panel(Box(0, bar_h, side_w, H - bar_h - 30))
    step = c.line_height() + rng.randint(10, 16)
    fboxes = [c.text(16, bar_h + 16 + j * step, f) for j, f in enumerate(folders)]
    files = rng.sample(FILES, 5)
    dup = rng.randrange(len(files) + 1)
    files.insert(dup, "Untitled")
    files.insert(rng.randrange(len(files) + 1), "Untitled")
    mx = side_w + 30
    file_boxes = [c.text(mx, bar_h + 16 + j * step, f) for j, f in enumerate(files)]
    status = f"{len(files)} items in {folders[0]} folder"
    c.text(10, H - 24, status)
    for j in rng.sample(range(len(tools)), 2):
        c.case(rng.choice(["{}", "the {} button", "{} button"]).format(
            tools[j] if rng.random() < 0.6 else tools[j].lower()), buttons[j])
    k = rng.randint(2, 4)
    c.case(f"the {_ordinal(rng, k)} button", buttons[k - 1])
    c.case("the last button", buttons[-1])
    j = rng.randrange(1, 4)
    c.case(folders[j], fboxes[j])
    c.case(f"the item below {folders[j]}", fboxes[j + 1])
    named = [i for i, f in enumerate(files) if f != "Untitled"]
    i = rng.choice(named)
    c.case(files[i], file_boxes[i])
    c.case("Untitled", None, AMBIGUOUS)
    c.case(f"the {rng.choice(ABSENT_NAMES)} button", None, ABSENT)
    return c.screen(f"toolbar-{seed}")


def settings_screen(seed: int) -> SyntheticScreen:
    rng = random.Random(seed)
    c = Canvas(rng)
    W, H = c.size
    x0, y0 = rng.randint(20, 120), rng.randint(20, 60)
    tabs = rng.sample(TABS, 4)
    x = x0
    tab_boxes = []
    th = c.font_size + 16
    for j, t in enumerate(tabs):
        w = round(c.draw.textlength(t, font=c.font)) + 28
        box = Box(x, y0, w, th)
        c.draw.rectangle(box.corners, fill=c.theme.panel if j == 0 else c.theme.button, outline=c.theme.border)
        c.draw.text((x + 14, y0 + 8), t, fill=c.theme.text, font=c.font)
        c.elements.append(TruthElement(K.TAB, box, t))
        tab_boxes.append(box)
        x = box.right
    y = y0 + th + 30
    combos = rng.sample(COMBOS, 3)
    label_w = max(round(c.draw.textlength(lab, font=c.font)) for lab, _ in combos) + 40
    cboxes = []
    for lab, value in combos:
        c.text(x0, y + 7, lab)
        cboxes.append(c.field(x0 + label_w, y, 180, lab, value, kind=K.COMBO))
        y += c.line_height() + 26
    checks = rng.sample(CHECKS, 2)
    rows = []
    for t in checks:
        rows.append(c.check(x0, y, t, checked=rng.random() < 0.5))
        y += c.line_height() + 14
    note = "Changes take effect after restarting the application"
    c.text(x0, y + 8, note, color=c.theme.muted)
    note_y = y + 8
    y += 50
    apply_b = c.button(x0, y, "Apply")
    c.button(apply_b.right + 12, y, rng.choice(["Close", "Done"]))
    j = rng.randrange(1, 4)
    c.case(rng.choice(["the {} tab", "{}", "{} tab"]).format(tabs[j] if rng.random() < 0.6 else tabs[j].upper()),
           tab_boxes[j])
    j = rng.randrange(3)
    c.case(rng.choice(["the {} dropdown", "the {} combo box", "{} drop-down"]).format(combos[j][0]), cboxes[j])
    j = rng.randrange(3)
    c.case(f"the combo box right of {combos[j][0]}", cboxes[j])
    j = rng.randrange(3)
    c.case(combos[j][1], cboxes[j])
    c.case(rng.choice(["the {} checkbox", "{} check box"]).format(checks[1]), rows[1])
    c.case("the first checkbox", rows[0])
    word = rng.choice(["restarting", "application", "effect"])
    c.case(word, c.word_box(x0, note_y, note, word))
    c.case(rng.choice(["Apply", "the apply button"]), apply_b)
    c.case(f"the button right of {'Apply'}", c.elements[-1].box)
    c.case(f"the {rng.choice(ABSENT_NAMES)} tab", None, ABSENT)
    return c.screen(f"settings-{seed}")


def links_screen(seed: int) -> SyntheticScreen:
    rng = random.Random(seed)
    c = Canvas(rng)
    W, H = c.size
    x0, y0 = rng.randint(40, 200), rng.randint(30, 80)
    big = ImageFont.truetype(c.font_path, c.font_size + 8)
    c.text(x0, y0, rng.choice(["Support", "Welcome back", "Resources"]), font=big)
    y = y0 + c.font_size + 30
    c.text(x0, y, "Find answers to common questions below.")
    y += c.line_height() + 20
    links = rng.sample(LINKS, 5)
    lboxes = []
    for t in links:
        b = c.text(x0, y, t, kind=K.LINK, color=c.theme.link)
        c.draw.line([(b.left + 1, b.bottom), (b.right - 1, b.bottom)], fill=c.theme.link)
        lboxes.append(b)
        y += c.line_height() + rng.randint(12, 20)
    j = rng.randrange(5)
    c.case(rng.choice(["the {} link", "{}", "{} link"]).format(links[j] if rng.random() < 0.5 else links[j].lower()),
           lboxes[j])
    c.case("the first link", lboxes[0])
    c.case("the last link", lboxes[-1])
    k = rng.randint(2, 4)
    c.case(f"the {_ordinal(rng, k)} link", lboxes[k - 1])
    j = rng.randrange(4)
    c.case(f"the link below {links[j]}", lboxes[j + 1])
    c.case(f"the {rng.choice(ABSENT_NAMES)} link", None, ABSENT)
    return c.screen(f"links-{seed}")


GENERATORS = (form_screen, dialog_screen, toolbar_screen, settings_screen, links_screen)


def pillow_screens(seeds: range | list[int]) -> list[SyntheticScreen]:
    """One screen of each kind per seed."""
    return [gen(seed * 10 + i) for seed in seeds for i, gen in enumerate(GENERATORS)]
