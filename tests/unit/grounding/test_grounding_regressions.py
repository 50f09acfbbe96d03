"""Regressions found on MiniWoB++ pages, each on a synthetic screen or a plain string."""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from gui_agent.grounding.default import default_ladder
from gui_agent.grounding.matching import match_text
from gui_agent.screen.observation import Observation

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def test_underlined_link_text_misread_by_ocr_still_matches():
    # An underline cuts the descenders: OCR read "vitae" as "yitae" and "quisque" as "guisque".
    for wanted, read in (("vitae.", "yitae."), ("quisque", "guisque"), ("volutpat,", "yolutpat,")):
        m = match_text(wanted, read)
        assert m is not None and m.score >= 0.85, (wanted, read, m)


def test_quoted_text_prefers_the_same_letter_case():
    img = Image.new("RGB", (400, 300), "white")
    d = ImageDraw.Draw(img)
    font = ImageFont.truetype(FONT, 22)
    for top, caption in ((40, "Yes"), (160, "yes")):
        d.rounded_rectangle([20, top, 120, top + 44], radius=4, fill=(230, 230, 230),
                            outline=(90, 90, 90), width=2)
        d.text((48, top + 9), caption, fill="black", font=font)
    ladder, _ = default_ladder()
    cand = ladder.resolve('the "yes" button', Observation.from_image(img))
    assert 160 <= cand.point.y <= 204, cand
