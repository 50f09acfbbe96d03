"""Screens drawn for `bench scale`, at any size, with the words they show (generated, not stored).

Three kinds, each drawn with Pillow and DejaVu/Liberation fonts at the size asked:
an *app* screen (menu bar, toolbar, a list, a form with fields and buttons, a status bar: mostly
flat background), a *dense* text page (columns of paragraphs from edge to edge, small type) and
a *spreadsheet* (a grid of short cells). The same kind, size and seed always give the same
pixels; each word drawn is listed with its box, so a reader's words can be counted as correct.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..geometry import Box

KINDS = ("app", "dense", "spreadsheet")
_FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/truetype/liberation"))
_SANS = ("DejaVuSans.ttf", "LiberationSans-Regular.ttf")
_WORDS = ("the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "was", "with", "be",
          "by", "on", "not", "he", "this", "are", "or", "his", "from", "at", "which", "but",
          "have", "an", "they", "you", "were", "her", "one", "all", "we", "their", "there",
          "been", "has", "if", "more", "when", "will", "would", "who", "so", "no", "she", "other",
          "its", "may", "these", "about", "into", "than", "two", "time", "only", "could", "new",
          "them", "some", "any", "first", "then", "very", "over", "such", "our", "also", "most",
          "did", "after", "many", "before", "must", "well", "through", "back", "where", "much",
          "should", "those", "while", "each", "people", "between", "both", "under", "never",
          "system", "report", "budget", "window", "screen", "record", "update", "project",
          "account", "contact", "invoice", "schedule", "meeting", "summary", "quarter", "revenue",
          "network", "storage", "printer", "setting", "display", "keyboard", "monitor", "folder",
          "archive", "profile", "address", "message", "notice", "station", "harbor", "garden",
          "river", "valley", "market", "bridge", "castle", "forest", "island", "museum",
          "theater", "library")
_MENUS = ("File", "Edit", "View", "Insert", "Format", "Tools", "Window", "Help")
_TOOLS = ("New", "Open", "Save", "Print", "Undo", "Redo", "Copy", "Paste", "Search", "Export")
_LABELS = ("Name", "Email", "Phone", "Company", "Address", "City", "Country", "Website")
_VALUES = ("Ann Smith", "ann@example.org", "555 0199", "Acme Corp", "Main Street", "Berlin",
           "Germany", "example.org")


@dataclass(frozen=True)
class Word:
    text: str
    box: Box


@dataclass(frozen=True)
class Frame:
    kind: str
    image: object          # PIL RGB image
    words: tuple[Word, ...]


def _font(size: int, index: int = 0):
    from PIL import ImageFont

    for folder in _FONT_DIRS:
        path = folder / _SANS[index % len(_SANS)]
        if path.exists():
            return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size)


class _Canvas:
    def __init__(self, size: tuple[int, int], background: tuple[int, int, int]) -> None:
        from PIL import Image, ImageDraw

        self.image = Image.new("RGB", size, background)
        self.draw = ImageDraw.Draw(self.image)
        self.words: list[Word] = []

    def text(self, x: int, y: int, text: str, font, fill=(20, 20, 20)) -> int:
        """Draw ``text`` word by word from (x, y); the x after it."""
        space = self.draw.textlength(" ", font=font)
        for word in text.split():
            self.draw.text((x, y), word, font=font, fill=fill)
            left, top, right, bottom = self.draw.textbbox((x, y), word, font=font)
            self.words.append(Word(word, Box.from_corners(left, top, right, bottom)))
            x = round(right + space)
        return x

    def width(self, text: str, font) -> float:
        return self.draw.textlength(text, font=font)


def _ui_size(width: int) -> int:
    """A UI font size for a screen this wide (100 % at 1280, ~125 % at 1920, 150 % at 3840)."""
    return 13 if width <= 1400 else 15 if width <= 2000 else 20


def app_screen(width: int, height: int, seed: int = 0) -> Frame:
    rng = random.Random(seed)
    size = _ui_size(width)
    font, small = _font(size), _font(size - 2)
    c = _Canvas((width, height), (236, 236, 236))
    d = c.draw
    bar = round(size * 2)
    d.rectangle((0, 0, width, bar), fill=(248, 248, 248))
    x = 12
    for menu in _MENUS:
        x = c.text(x, bar // 4, menu, font) + size
    y = bar + 8
    x = 12
    for tool in _TOOLS:
        w = round(c.width(tool, font)) + 2 * size
        d.rounded_rectangle((x, y, x + w, y + 2 * size), 4, fill=(222, 222, 226), outline=(140, 140, 140))
        c.text(x + size, y + size // 2, tool, font)
        x += w + 8
    top = y + 3 * size
    side = width // 5
    d.rectangle((0, top, side, height - bar), fill=(250, 250, 250), outline=(200, 200, 200))
    row = round(size * 1.8)
    for i in range(max(1, (height - bar - top - 16) // row)):
        c.text(16, top + 8 + i * row, f"{rng.choice(_WORDS).capitalize()} {rng.choice(_WORDS)} {i + 1}", font)
    fx, fy = side + 40, top + 20
    label_w = max(round(c.width(label, font)) for label in _LABELS) + 24
    field_w = min(480, width // 3)
    for label, value in zip(_LABELS, _VALUES, strict=True):
        c.text(fx, fy + 4, label, font)
        d.rectangle((fx + label_w, fy, fx + label_w + field_w, fy + 2 * size), fill=(255, 255, 255),
                    outline=(140, 140, 140))
        c.text(fx + label_w + 8, fy + size // 2, value, font)
        fy += 3 * size
    bx = fx + label_w
    for name in ("Save", "Cancel", "Apply"):
        w = round(c.width(name, font)) + 3 * size
        d.rounded_rectangle((bx, fy, bx + w, fy + 2 * size), 4, fill=(222, 222, 226), outline=(140, 140, 140))
        c.text(bx + round(1.5 * size), fy + size // 2, name, font)
        bx += w + 12
    d.rectangle((0, height - bar, width, height), fill=(248, 248, 248))
    c.text(12, height - bar + bar // 4, f"Ready {rng.randint(10, 99)} items selected", small)
    return Frame("app", c.image, tuple(c.words))


def dense_page(width: int, height: int, seed: int = 0) -> Frame:
    """Short phrases in small type (10 px glyphs) from edge to edge, row after row: no blank
    area to skip, and many short texts to read (a dashboard, a log, a code listing)."""
    rng = random.Random(seed)
    size = 12
    font = _font(size)
    c = _Canvas((width, height), (255, 255, 255))
    y = size
    while y + 2 * size < height:
        x = size + rng.randint(0, 3 * size)
        while True:
            phrase = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 3)))
            if rng.random() < 0.2:
                phrase = phrase.capitalize()
            if x + c.width(phrase, font) > width - size:
                break
            x = c.text(x, y, phrase, font, (20, 20, 20) if rng.random() < 0.8 else (40, 70, 160))
            x += rng.randint(3 * size, 8 * size)
        y += round(3.5 * size)
    return Frame("dense", c.image, tuple(c.words))


def spreadsheet(width: int, height: int, seed: int = 0) -> Frame:
    """A grid of short cells: numbers, names and dates, with grid lines and headers."""
    rng = random.Random(seed)
    size = _ui_size(width) - 1
    font = _font(size)
    c = _Canvas((width, height), (255, 255, 255))
    d = c.draw
    cell_w, cell_h = 7 * size, round(size * 1.7)
    head = 3 * size
    d.rectangle((0, 0, width, cell_h), fill=(235, 235, 235))
    d.rectangle((0, 0, head, height), fill=(235, 235, 235))
    for n, x in enumerate(range(head, width, cell_w)):
        d.line((x, 0, x, height), fill=(200, 200, 200))
        if n < 26 and x + cell_w <= width:
            c.text(x + cell_w // 2 - size // 3, (cell_h - size) // 2, chr(65 + n), font, (60, 60, 60))
    for n, y in enumerate(range(cell_h, height, cell_h)):
        d.line((0, y, width, y), fill=(200, 200, 200))
        if y + cell_h < height:
            c.text(4, y + (cell_h - size) // 2, str(n + 1), font, (60, 60, 60))
    for y in range(cell_h, height - cell_h, cell_h):
        for x in range(head, width - cell_w, cell_w):
            roll = rng.random()
            if roll < 0.15:
                continue
            text = (f"{rng.randint(0, 99999)}" if roll < 0.6 else rng.choice(_WORDS).capitalize()
                    if roll < 0.85 else f"{rng.randint(1, 28)}.{rng.randint(1, 12)}.")
            c.text(x + 4, y + (cell_h - size) // 2, text, font)
    return Frame("spreadsheet", c.image, tuple(c.words))


def frame(kind: str, width: int, height: int, seed: int = 0) -> Frame:
    makers = {"app": app_screen, "dense": dense_page, "spreadsheet": spreadsheet}
    return makers[kind](width, height, seed)


def _clean(text: str) -> str:
    return text.strip(".,;:!?\"'()[]|")


def correct_words(words: Iterable[Word], lines: Iterable[tuple[str, Box]]) -> int:
    """How many drawn words a reader found: a word of a read line counts when it is a drawn word
    whose centre lies in the line's box (each drawn word counted once)."""
    by_text: dict[str, list[Word]] = {}
    for w in words:
        by_text.setdefault(_clean(w.text), []).append(w)
    used: set[int] = set()
    found = 0
    for text, box in lines:
        grown = box.expand(4)
        for token in Counter(_clean(t) for t in text.split()).elements():
            for w in by_text.get(token, ()):
                if id(w) not in used and grown.contains(w.box.center):
                    used.add(id(w))
                    found += 1
                    break
    return found
