"""Image budget (Qwen2-VL smart_resize) and image encoding."""

from __future__ import annotations

import pytest
from PIL import Image

from gui_agent.backends.images import (
    FACTOR,
    ImageBudget,
    decode_data_url,
    encode_image,
    image_data_url,
    parse_budget,
    smart_resize,
)
from gui_agent.errors import ConfigError
from tests.support.requirements import require_module


@pytest.mark.parametrize("size", [(800, 1280), (1080, 1920), (2160, 3840), (30, 600), (7, 9),
                                  (1, 150), (1440, 900), (333, 777)])
@pytest.mark.parametrize("budget", [(3136, 200704), (200704, 1003520), (3136, 12845056)])
def test_smart_resize_agrees_with_the_reference_processor(size, budget):
    reference = require_module("transformers.models.qwen2_vl.image_processing_pil_qwen2_vl")
    h, w = size
    ours = smart_resize(h, w, FACTOR, *budget)
    assert ours == reference.smart_resize(h, w, FACTOR, *budget)
    assert ours[0] % FACTOR == 0 and ours[1] % FACTOR == 0


def test_budget_bounds_and_token_counts():
    budget = ImageBudget(min_pixels=256 * 28 * 28, max_pixels=1280 * 28 * 28)
    # 1288x812 (nearest multiples of 28) is over budget: scaled down, then floored to 28
    assert budget.resized_size(1280, 800) == (1260, 784)
    assert budget.tokens(1280, 800) == 45 * 28
    w, h = budget.resized_size(1920, 1080)
    assert w * h <= budget.max_pixels and (w, h) == (1316, 728)
    assert budget.tokens(1920, 1080) == 47 * 26
    assert ImageBudget().resized_size(1288, 784) == (1288, 784)  # already fits: unchanged
    small = ImageBudget(max_pixels=256 * 28 * 28)
    assert small.tokens(1280, 800) <= 256
    tiny = ImageBudget(min_pixels=256 * 28 * 28, max_pixels=1024 * 28 * 28)
    assert tiny.tokens(100, 60) >= 256      # small images are scaled up to min_pixels


def test_apply_resizes_to_the_budget_and_keeps_images_in_budget():
    budget = ImageBudget(max_pixels=256 * 28 * 28)
    image = Image.new("RGBA", (1280, 800), (10, 20, 30, 255))
    out = budget.apply(image)
    assert out.mode == "RGB" and out.size == budget.resized_size(1280, 800)
    assert budget.apply(out) is out


def test_halved_budget_has_half_the_pixels():
    budget = ImageBudget(min_pixels=1024 * 28 * 28, max_pixels=1280 * 28 * 28)
    half = budget.halved()
    assert half.max_pixels == 640 * 28 * 28 and half.min_pixels <= half.max_pixels
    w, h = half.resized_size(1920, 1080)
    assert w * h <= half.max_pixels


def test_bad_budgets_and_shapes_are_refused():
    with pytest.raises(ConfigError, match="aspect ratio"):
        smart_resize(10, 2500)
    with pytest.raises(ConfigError, match="must not exceed"):
        ImageBudget(min_pixels=10_000, max_pixels=5_000)
    with pytest.raises(ConfigError, match="positive"):
        smart_resize(0, 100)


def test_parse_budget():
    assert parse_budget("1024x28x28") == 802816
    assert parse_budget("802816") == 802816
    assert parse_budget("256*28*28") == 200704
    for bad in ("abc", "0x28", "-5"):
        with pytest.raises(ConfigError, match="budget"):
            parse_budget(bad)


def test_png_and_jpeg_encoding_round_trip():
    image = Image.new("RGB", (56, 28), (200, 10, 10))
    assert encode_image(image).startswith(b"\x89PNG")
    assert encode_image(image, "jpg").startswith(b"\xff\xd8")
    url = image_data_url(image)
    assert url.startswith("data:image/png;base64,")
    back = decode_data_url(url)
    assert back.size == (56, 28) and back.getpixel((3, 3)) == (200, 10, 10)
    assert image_data_url(image, "JPEG").startswith("data:image/jpeg;base64,")
    with pytest.raises(ConfigError):
        encode_image(image, "GIF")
    with pytest.raises(ConfigError):
        decode_data_url("https://example.com/a.png")
