"""Image budget and encoding shared by every backend and by the coordinate adapters.

Qwen2-VL-family models cut an image into 14x14 patches and merge 2x2 of them into one token,
so the image they see is resized to a multiple of 28 on each side with its pixel count kept
between ``min_pixels`` and ``max_pixels`` (``smart_resize``). Both backends apply the family's
budget *before* sending an image, so the image the model reasons about is exactly the image we
resized: coordinates a model gives "in the resized image" map back to the screen exactly.
"""

from __future__ import annotations

import base64
import io
import math
from dataclasses import dataclass

from PIL import Image

from ..errors import ConfigError

FACTOR = 28                       # patch size 14 x spatial merge 2
MAX_ASPECT_RATIO = 200
DEFAULT_MIN_PIXELS = 4 * FACTOR * FACTOR          # 3,136 (Qwen2-VL processor default)
DEFAULT_MAX_PIXELS = 16384 * FACTOR * FACTOR      # 12,845,056 (Qwen2-VL processor default)


def smart_resize(
    height: int,
    width: int,
    factor: int = FACTOR,
    min_pixels: int = DEFAULT_MIN_PIXELS,
    max_pixels: int = DEFAULT_MAX_PIXELS,
) -> tuple[int, int]:
    """The (height, width) a Qwen2-VL processor resizes an image to.

    Both sides become multiples of ``factor``, the area lies within [min_pixels, max_pixels] and
    the aspect ratio is kept as closely as that allows. Same arithmetic as the reference
    processor, so token counts agree with it.
    """
    if height <= 0 or width <= 0:
        raise ConfigError(f"image size must be positive, not {width}x{height}")
    if min_pixels > max_pixels:
        raise ConfigError(f"min_pixels ({min_pixels}) must not exceed max_pixels ({max_pixels})")
    if max(height, width) / min(height, width) > MAX_ASPECT_RATIO:
        raise ConfigError(
            f"image {width}x{height} is too elongated: its aspect ratio must be under "
            f"{MAX_ASPECT_RATIO}; crop it first"
        )
    h_bar = round(height / factor) * factor
    w_bar = round(width / factor) * factor
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


@dataclass(frozen=True)
class ImageBudget:
    """How many pixels a family's model may see; ``tokens`` is what an image then costs."""

    min_pixels: int = DEFAULT_MIN_PIXELS
    max_pixels: int = DEFAULT_MAX_PIXELS
    factor: int = FACTOR

    def __post_init__(self) -> None:
        if self.factor <= 0 or self.min_pixels <= 0 or self.max_pixels <= 0:
            raise ConfigError("image budget values must be positive")
        if self.min_pixels > self.max_pixels:
            raise ConfigError(
                f"min_pixels ({self.min_pixels}) must not exceed max_pixels ({self.max_pixels})"
            )

    def resized_size(self, width: int, height: int) -> tuple[int, int]:
        """(width, height) of the image the model sees for a ``width`` x ``height`` screenshot."""
        h, w = smart_resize(height, width, self.factor, self.min_pixels, self.max_pixels)
        return w, h

    def tokens(self, width: int, height: int) -> int:
        """Image tokens (after the 2x2 merge) for a ``width`` x ``height`` screenshot."""
        w, h = self.resized_size(width, height)
        return (w // self.factor) * (h // self.factor)

    def apply(self, image: Image.Image) -> Image.Image:
        """The image resized to the budget (RGB); the same object when already in budget."""
        image = image if image.mode == "RGB" else image.convert("RGB")
        size = self.resized_size(*image.size)
        if size == image.size:
            return image
        return image.resize(size, Image.Resampling.BICUBIC)

    def halved(self) -> ImageBudget:
        """A budget with half the pixels (a server refused the payload as too large)."""
        max_pixels = max(self.factor * self.factor, self.max_pixels // 2)
        return ImageBudget(min(self.min_pixels, max_pixels), max_pixels, self.factor)


def parse_budget(text: str) -> int:
    """A pixel count written ``1024x28x28`` (tokens x factor x factor) or ``802816``."""
    try:
        value = math.prod(int(part) for part in text.lower().replace("*", "x").split("x"))
    except ValueError as exc:
        raise ConfigError(
            f"an image budget is a pixel count such as 1024x28x28 or 802816, not {text!r}"
        ) from exc
    if value <= 0:
        raise ConfigError(f"an image budget must be positive, not {text!r}")
    return value


def encode_image(image: Image.Image, fmt: str = "PNG", quality: int = 90) -> bytes:
    """The image as PNG (lossless; default) or JPEG bytes."""
    fmt = fmt.upper()
    if fmt == "JPG":
        fmt = "JPEG"
    if fmt not in ("PNG", "JPEG"):
        raise ConfigError(f"image format must be PNG or JPEG, not {fmt!r}")
    buffer = io.BytesIO()
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    if fmt == "JPEG":
        rgb.save(buffer, format="JPEG", quality=quality)
    else:
        rgb.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def image_data_url(image: Image.Image, fmt: str = "PNG", quality: int = 90) -> str:
    """A ``data:image/...;base64,`` URL, as OpenAI-compatible servers take images."""
    mime = "image/png" if fmt.upper() == "PNG" else "image/jpeg"
    data = base64.b64encode(encode_image(image, fmt, quality)).decode("ascii")
    return f"data:{mime};base64,{data}"


def decode_data_url(url: str) -> Image.Image:
    """The image inside a base64 data URL (tests and servers' echo replies)."""
    header, _, data = url.partition(",")
    if not header.startswith("data:image/") or ";base64" not in header:
        raise ConfigError(f"not a base64 image data URL: {url[:40]!r}")
    image = Image.open(io.BytesIO(base64.b64decode(data)))
    image.load()
    return image
