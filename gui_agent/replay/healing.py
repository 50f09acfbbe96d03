"""Self-healing and the pictures a replay leaves behind.

A step whose target was found below the template rungs (the theme changed, the element was
restyled) gets its image crop refreshed from the live screen at the place it was found, so the
next replay finds it with the cheap template again. A step that could not be resolved leaves a
screenshot with the candidates drawn, labelled, beside the place the target was expected.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from ..geometry import Box
from ..grounding.candidate import Candidate
from ..memory.anchors import crop_around
from ..memory.models import SkillStep

HEALED_NOTE = "healed: its image was refreshed from the live screen"
_PALETTE = ((230, 40, 40), (255, 140, 0), (200, 0, 200), (0, 120, 255), (0, 160, 80))


def heal(step: SkillStep, image: Image.Image, box: Box, dest: Path) -> SkillStep:
    """The step with a new crop (written to ``dest``, an absolute path) and its box updated."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    crop_around(image, box).save(dest)
    return replace(step, crop=str(dest), box=box.corners)


def load_crop(path: str | None, root: Path | None) -> Image.Image | None:
    """A step's crop image: an absolute path, or one relative to the memory store's folder."""
    if not path:
        return None
    file = Path(path)
    if not file.is_absolute() and root is not None:
        file = root / file
    if not file.is_file():
        return None
    with Image.open(file) as img:
        return img.convert("RGB")


def draw_candidates(image: Image.Image, candidates: Sequence[Any], expected: Box | None = None,
                    expected_label: str = "expected") -> Image.Image:
    """A copy of ``image`` with each candidate boxed and labelled, and the expected place dashed."""
    out = image.convert("RGB").copy()
    draw = ImageDraw.Draw(out)
    if expected is not None:
        _dashed(draw, expected, (0, 90, 255))
        _label(draw, expected.left, expected.bottom + 2, f"{expected_label} (where it was learned)", (0, 90, 255))
    places: list[tuple[Box, list[str]]] = []     # one box per place, every rung's label on it
    for cand in (c for c in candidates if isinstance(c, Candidate)):
        name = (cand.element.text or cand.element.label) if cand.element is not None else ""
        label = f"{cand.source} {cand.score:.2f}" + (f" {name[:24]!r}" if name else "")
        same = next((p for p in places if p[0].iou(cand.box) > 0.3 or p[0].contains(cand.box.center)), None)
        if same is None:
            places.append((cand.box, [label]))
        elif label not in same[1]:
            same[1].append(label)
    for n, (box, labels) in enumerate(places):
        color = _PALETTE[n % len(_PALETTE)]
        draw.rectangle([box.left, box.top, box.right - 1, box.bottom - 1], outline=color, width=2)
        _label(draw, box.left, max(0, box.top - 14), f"{n + 1}: " + " / ".join(labels), color)
    return out


def _label(draw: ImageDraw.ImageDraw, x: int, y: int, text: str, color: tuple[int, int, int]) -> None:
    left, top, right, bottom = draw.textbbox((x, y), text)
    draw.rectangle([left - 1, top - 1, right + 1, bottom + 1], fill=(255, 255, 255))
    draw.text((x, y), text, fill=color)


def _dashed(draw: ImageDraw.ImageDraw, box: Box, color: tuple[int, int, int], dash: int = 6) -> None:
    l, t, r, b = box.left, box.top, box.right - 1, box.bottom - 1  # noqa: E741
    for x in range(l, r, dash * 2):
        draw.line([x, t, min(x + dash, r), t], fill=color, width=2)
        draw.line([x, b, min(x + dash, r), b], fill=color, width=2)
    for y in range(t, b, dash * 2):
        draw.line([l, y, l, min(y + dash, b)], fill=color, width=2)
        draw.line([r, y, r, min(y + dash, b)], fill=color, width=2)
