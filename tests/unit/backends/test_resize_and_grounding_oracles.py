"""Independent oracles for the reading side: transformers' ``smart_resize`` on 26,400 image
sizes and budgets, and each grounding model card's own post-processing on 96 replies per family
(12 points at 8 screen sizes), read through the grounding rung exactly as a run reads them."""

from __future__ import annotations

import json

import pytest
from PIL import Image

from gui_agent.backends.images import FACTOR, smart_resize
from gui_agent.backends.registry import get_family
from gui_agent.grounding.vlm_grounder import VlmGrounder
from tests.support.requirements import require_module
from tests.support.scripted_backend import ScriptedBackend

BUDGETS = [(3136, 200704), (3136, 1003520), (78400, 2116800), (78400, 12845056),
           (200704, 1053696), (802816, 1806336), (3136, 12845056), (256 * 784, 1280 * 784)]
WIDTHS = range(30, 4030, 67)       # 60 widths
HEIGHTS = range(50, 2250, 40)      # 55 heights
SIZES = [(800, 600), (1024, 768), (1280, 800), (1366, 768), (1440, 900), (1920, 1080),
         (2560, 1440), (3840, 2160)]
FRACTIONS = [(0.02, 0.03), (0.5, 0.5), (0.98, 0.97), (0.25, 0.75), (0.75, 0.25), (0.1, 0.9),
             (0.9, 0.1), (0.33, 0.66), (0.66, 0.33), (0.5, 0.05), (0.05, 0.5), (0.61, 0.42)]


def test_smart_resize_matches_transformers_on_26400_cases():
    reference = require_module("transformers.models.qwen2_vl.image_processing_pil_qwen2_vl")
    cases = mismatches = 0
    for min_pixels, max_pixels in BUDGETS:
        for w in WIDTHS:
            for h in HEIGHTS:
                cases += 1
                theirs = reference.smart_resize(h, w, FACTOR, min_pixels, max_pixels)
                mismatches += smart_resize(h, w, FACTOR, min_pixels, max_pixels) != theirs
    assert (cases, mismatches) == (26400, 0)


def _reply(family: str, fx: float, fy: float, resized: tuple[int, int]) -> str:
    """What the family's model writes for the point at fractions (fx, fy) of the screen."""
    if family == "showui":
        return f"[{fx:.2f}, {fy:.2f}]"
    if family == "uground":
        return f"({round(fx * 1000)}, {round(fy * 1000)})"
    if family == "os-atlas":
        x, y = round(fx * 1000), round(fy * 1000)
        return (f"<|object_ref_start|>the element<|object_ref_end|><|box_start|>({x - 6},{y - 4}),"
                f"({x + 6},{y + 4})<|box_end|>")
    x, y = round(fx * resized[0]), round(fy * resized[1])
    return ('<tool_call>\n' + json.dumps({"name": "computer_use", "arguments": {
        "action": "left_click", "coordinate": [x, y]}}) + '\n</tool_call>')


def _card(family: str, reply: str, size: tuple[int, int], resized: tuple[int, int]):
    """The model card's own post-processing of ``reply`` into a screen pixel."""
    w, h = size
    if family == "showui":       # click_xy = [x, y] relative, drawn at x * width
        x, y = json.loads(reply)
        return x * w, y * h
    if family == "uground":      # (x, y) in [0, 1000): x / 1000 * width
        x, y = (float(v) for v in reply.strip("()").split(","))
        return x / 1000 * w, y / 1000 * h
    if family == "os-atlas":     # box corners / 1000 * size, the box's centre
        inner = reply.split("<|box_start|>")[1].split("<|box_end|>")[0]
        (x1, y1), (x2, y2) = (map(float, p.strip("()").split(",")) for p in inner.split("),("))
        return (x1 + x2) / 2000 * w, (y1 + y2) / 2000 * h
    args = json.loads(reply.split("<tool_call>")[1].split("</tool_call>")[0])["arguments"]
    x, y = args["coordinate"]    # the cookbook: coordinate / resized size * original size
    return x / resized[0] * w, y / resized[1] * h


@pytest.mark.parametrize("name", ["showui", "uground", "os-atlas", "qwen2.5-vl"])
def test_grounding_replies_land_where_the_card_says_on_96_replies(name):
    family = get_family(name)
    replies = mismatches = 0
    for size in SIZES:
        image = Image.new("RGB", size, "white")
        resized = family.budget.resized_size(*size)
        for fx, fy in FRACTIONS:
            reply = _reply(name, fx, fy, resized)
            backend = ScriptedBackend([reply])
            point = VlmGrounder(backend, family).point_on("the element", image)
            cx, cy = _card(name, reply, size, resized)
            replies += 1
            mismatches += not (abs(point.x - cx) <= 1 and abs(point.y - cy) <= 1)
            (request,) = backend.requests
            sent = request.images[0]
            assert sent.size == resized
    assert (replies, mismatches) == (96, 0)
