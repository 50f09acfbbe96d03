"""'the Nth search result' counts the result links, never the list's pager ("1 2 3 >")."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.errors import TargetNotFound
from gui_agent.geometry import Box
from gui_agent.grounding.default import default_ladder
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import font

FONTS = ("dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf")


def _results(font_name: str, scale: float) -> tuple[Image.Image, list[Box]]:
    s = scale
    img = Image.new("RGB", (int(340 * s), int(300 * s)), "white")
    d = ImageDraw.Draw(img)
    f = font(int(15 * s), font_name)
    titles = []
    y = int(10 * s)
    for title, url, snippet in (("Renda", "https://at.co.uk", "Convallis non varius."),
                                ("Ignacio", "https://www.viverra.net", "Tincidunt felis."),
                                ("Rex", "https://www.pharetra.hk", "Adipiscing cursus.")):
        left, top, right, bottom = d.textbbox((int(8 * s), y), title, font=f)
        d.text((int(8 * s), y), title, fill=(20, 40, 220), font=f)
        d.line([left, bottom + 1, right, bottom + 1], fill=(20, 40, 220), width=max(1, int(s)))
        titles.append(Box.from_corners(left, top, right, bottom))
        d.text((int(8 * s), y + int(20 * s)), url, fill=(0, 130, 0), font=f)
        d.text((int(8 * s), y + int(40 * s)), snippet, fill="black", font=f)
        y += int(68 * s)
    x = int(90 * s)
    d.text((x, y), "1", fill="black", font=f)
    for page in ("2", "3", ">"):
        x += int(22 * s)
        left, top, right, bottom = d.textbbox((x, y), page, font=f)
        d.text((x, y), page, fill=(20, 40, 220), font=f)
        d.line([left, bottom + 1, right, bottom + 1], fill=(20, 40, 220), width=max(1, int(s)))
    return img, titles


@pytest.mark.parametrize("font_name", FONTS)
@pytest.mark.parametrize("scale", [1.0, 2.0])
def test_results_are_counted_without_the_pager(font_name, scale):
    img, titles = _results(font_name, scale)
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    for n, box in enumerate(titles, 1):
        suffix = {1: "st", 2: "nd", 3: "rd"}[n]
        found = ladder.resolve(f"the {n}{suffix} search result", obs)
        assert box.expand(4).contains(found.point), (n, found)
    with pytest.raises(TargetNotFound):
        ladder.resolve("the 4th search result", obs)
