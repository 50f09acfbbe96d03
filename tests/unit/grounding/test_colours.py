"""A colour named in a description: 'the red button' is the red one of several buttons, 'the
green Save button' the green one of two "Save" buttons, 'the blue link' the text written in
blue; a description whose colour no candidate shows finds nothing; 'Red' capitalised, alone,
or before a name with no role word ('green tea'), is a name."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from gui_agent.errors import AmbiguousTarget, TargetNotFound
from gui_agent.grounding.colours import colour_name
from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.description import COLOUR_WORDS, parse_description
from gui_agent.screen.observation import Observation
from tests.support.pillow_form import THEMES, font

FILLS = {"red": (211, 47, 47), "green": (46, 160, 67), "blue": (33, 102, 221), "grey": (224, 224, 224)}
FONTS = ["dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf"]


def buttons(theme: str, face: str, labelled: list[tuple[str, str]]) -> tuple[Image.Image, list[tuple[int, int]]]:
    """A window of buttons in a row, each (label, fill); their centres."""
    c = THEMES[theme]
    img = Image.new("RGB", (640, 200), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(16, face)
    x, centres = 40, []
    for label, fill in labelled:
        width = round(d.textlength(label, font=f)) + 40
        text = (30, 30, 30) if fill == "grey" else (255, 255, 255)
        d.rounded_rectangle([x, 80, x + width, 114], 5, fill=FILLS[fill], outline=c["border"])
        d.text((x + 20, 88), label, fill=text, font=f)
        centres.append((x + width // 2, 97))
        x += width + 30
    return img, centres


def resolve(description: str, img: Image.Image):
    ladder, _ = default_ladder()
    return ladder.resolve(description, Observation.from_image(img))


def near(point, centre) -> bool:
    return abs(point.x - centre[0]) <= 40 and abs(point.y - centre[1]) <= 12


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("face", FONTS)
def test_the_red_button_is_the_red_one_of_several(theme: str, face: str) -> None:
    img, centres = buttons(theme, face, [("Go", "green"), ("Stop", "red"), ("Next", "blue")])
    for word, centre in zip(("green", "red", "blue"), centres, strict=True):
        assert near(resolve(f"the {word} button", img).point, centre), word


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_colour_tells_two_buttons_of_one_name_apart(theme: str) -> None:
    img, centres = buttons(theme, FONTS[0], [("Save", "grey"), ("Save", "green")])
    with pytest.raises(AmbiguousTarget):
        resolve('the "Save" button', img)
    assert near(resolve('the green "Save" button', img).point, centres[1])
    assert near(resolve("the grey Save button", img).point, centres[0])


def test_no_candidate_of_that_colour_finds_nothing() -> None:
    img, _ = buttons("light", FONTS[0], [("Go", "green"), ("Next", "blue")])
    with pytest.raises(TargetNotFound):
        resolve("the red button", img)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_blue_link_is_the_text_written_in_blue(theme: str) -> None:
    c = THEMES[theme]
    img = Image.new("RGB", (640, 200), c["bg"])
    d = ImageDraw.Draw(img)
    f = font(16)
    d.text((40, 60), "Terms of use", fill=c["fg"], font=f)
    d.text((40, 120), "Privacy notice", fill=(40, 110, 235), font=f)
    point = resolve("the blue link", img).point
    assert 110 <= point.y <= 145, point


def test_a_capitalised_or_lone_colour_word_is_a_name() -> None:
    assert parse_description("the red button").colour == "red"
    assert parse_description("the red button").text == ""
    assert parse_description('the green "Save" button').text == "Save"
    assert parse_description("the Red button").colour == "" and parse_description("the Red button").text == "Red"
    assert parse_description("Red").colour == "" and parse_description("Red").text == "Red"
    assert parse_description("green tea").colour == "" and parse_description("green tea").text == "green tea"
    assert parse_description("the 2nd blue link").ordinal == 2
    assert COLOUR_WORDS["gray"] == COLOUR_WORDS["grey"] and "red" in COLOUR_WORDS["red"]


def test_colour_names_of_common_shades() -> None:
    assert [colour_name(rgb) for rgb in FILLS.values()] == ["red", "green", "blue", "grey"]
    assert colour_name((255, 255, 255)) == "white" and colour_name((20, 20, 20)) == "black"
    assert colour_name((255, 165, 0)) == "orange" and colour_name((250, 220, 40)) == "yellow"
    assert colour_name((128, 0, 128)) == "purple" and colour_name((255, 182, 193)) == "pink"
    assert colour_name((139, 69, 19)) == "brown"


# A palette of shades, row by row: the plain colours, then paler, then darker ones (the layout
# web editors and office suites share).
PALETTE = [[(0, 0, 0), (230, 0, 0), (255, 153, 0), (255, 255, 0), (0, 138, 0), (0, 102, 204), (153, 51, 255)],
           [(250, 204, 204), (255, 235, 204), (255, 255, 204), (204, 232, 204), (204, 224, 245), (235, 214, 255), (255, 255, 255)],
           [(187, 187, 187), (240, 102, 102), (255, 194, 102), (255, 255, 102), (102, 185, 102), (102, 163, 224), (194, 133, 255)],
           [(136, 136, 136), (161, 0, 0), (178, 107, 0), (178, 178, 0), (0, 97, 0), (0, 71, 178), (107, 36, 178)],
           [(68, 68, 68), (92, 0, 0), (102, 61, 0), (102, 102, 0), (0, 55, 0), (0, 41, 102), (61, 20, 102)]]


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("side", [16, 32])
def test_of_a_palettes_shades_the_colour_named_is_the_plainest(theme, side):
    c = THEMES[theme]
    gap = side // 4
    img = Image.new("RGB", (40 + 7 * (side + gap), 40 + 5 * (side + gap)), c["field"])   # a popup
    d = ImageDraw.Draw(img)
    centres = {}
    for r, row in enumerate(PALETTE):
        for k, fill in enumerate(row):
            x, y = 20 + k * (side + gap), 20 + r * (side + gap)
            d.rectangle([x, y, x + side - 1, y + side - 1], fill=fill)
            centres[fill] = (x + side // 2, y + side // 2)
    ladder, _ = default_ladder()
    obs = Observation.from_image(img)
    for word, fill in (("red", (230, 0, 0)), ("orange", (255, 153, 0)), ("yellow", (255, 255, 0)),
                       ("green", (0, 138, 0)), ("blue", (0, 102, 204)), ("purple", (153, 51, 255))):
        point = ladder.resolve(f"the {word} swatch", obs).point
        assert abs(point.x - centres[fill][0]) <= side // 2 and abs(point.y - centres[fill][1]) <= side // 2, (word, point)
