"""The texts a skill checks around a target it found by image: which ones, and how they are read."""

from __future__ import annotations

from PIL import Image, ImageDraw

from gui_agent.geometry import Box
from gui_agent.memory.anchors import fixed_texts, landmarks_for
from gui_agent.parsing.elements import Element, ElementKind
from gui_agent.replay.conditions import reads_as
from tests.support.pillow_form import font

K = ElementKind


def test_a_small_read_holds_the_landmark_whatever_ocr_does_to_spaces_and_lookalikes():
    assert reads_as("Log in", "Login")              # a tight crop drops the space
    assert reads_as("Blue", "[Blue")                 # a border read as a bracket
    assert reads_as("Remember me", "Rememberme l")
    assert reads_as("Total 10", "TotaI 1O")          # l/I and 0/O folded together
    assert not reads_as("Username", "Password")
    assert not reads_as("Log in", "Log")
    assert not reads_as("", "anything") and not reads_as("Name", "")


def test_landmarks_are_fixed_texts_not_values_or_repeated_captions():
    target = Box(100, 100, 300, 24)
    elements = [
        Element(K.TEXT, Box(20, 104, 60, 16), "Name"),            # its label: kept
        Element(K.COMBO, Box(100, 130, 300, 24), "Blue"),         # a drop-down's value: not
        Element(K.TEXT_FIELD, Box(100, 70, 300, 24), "ann"),      # a field's value: not
        Element(K.BUTTON, Box(100, 170, 60, 24), "Edit"),         # shown twice: not
        Element(K.BUTTON, Box(200, 170, 60, 24), "Edit"),
        Element(K.TEXT, Box(300, 40, 10, 16), "--"),              # no letters: not
        Element(K.BUTTON, Box(300, 200, 80, 24), "Log in"),
    ]
    assert [e.text for e in fixed_texts(elements)] == ["Name", "Log in"]
    marks = landmarks_for(fixed_texts(elements), target)   # nearest first
    assert [m[0] for m in marks] == ["Log in", "Name"]
    assert marks[1][1:] == (target.center.x - 50, target.center.y - 112)


def test_read_text_reads_a_caption_through_the_borders_crossing_its_region():
    # A landmark's region is cut around where its text was, so it may cross the top and bottom
    # borders of the button the text sits on: "Log in" was read "Logi" and the skill's check
    # of the texts around an empty field failed every time.
    from gui_agent.parsing.screen_parser import ScreenParser

    parser = ScreenParser()
    misread = []
    for size in (13, 14, 15):
        img = Image.new("RGB", (320, 120), (250, 250, 250))
        d = ImageDraw.Draw(img)
        d.rounded_rectangle([40, 40, 150, 64], radius=3, fill=(238, 238, 238), outline=(160, 160, 160))
        left, top, right, bottom = d.textbbox((0, 0), "Log in", font=font(size))
        d.text((95 - (right - left) // 2, 52 - (bottom + top) // 2), "Log in", fill=(20, 20, 20),
               font=font(size))
        for dx in range(-12, 13, 3):            # the region a little off, as replays place it
            for height in (30, 34):
                region = Box(56 + dx, 52 - height // 2, 78, height)
                got = parser.read_text(img, region) or ""
                if not reads_as("Log in", got):
                    misread.append((size, dx, height, got))
    assert misread == []
