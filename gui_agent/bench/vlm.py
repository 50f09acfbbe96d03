"""`gui-agent bench vlm`: what a local VLM costs per agent step at each image budget.

Each step is the family's own grounding request (``backends.protocol.grounding_messages``: its
card's wording and layout, its budget). For every budget (max pixels) and screenshot size it reports the image tokens the screenshot
becomes, prefill speed (prompt tokens per second until the first new token's scores), decode speed (each further
token, in a run forced to ``--new-tokens`` tokens) and the seconds of that whole step (input
preparation + prefill + decode). Medians over ``--repeats``; one warm-up
call first so that loading and first-call set-up are not counted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from PIL import Image, ImageDraw

from ..errors import ConfigError

DEFAULT_BUDGETS = "256x28x28,1024x28x28"
DEFAULT_SIZES = "1280x800,1920x1080"


@dataclass(frozen=True)
class VlmFigures:
    budget: int              # max pixels
    width: int
    height: int
    resized: str             # the image the model sees, WxH
    image_tokens: int
    prompt_tokens: int
    prefill_tokens_s: float
    decode_tokens_s: float
    step_s: float


def parse_sizes(text: str) -> list[tuple[int, int]]:
    try:
        sizes = [tuple(int(v) for v in part.lower().split("x")) for part in text.split(",")]
    except ValueError:
        sizes = []
    if not sizes or any(len(s) != 2 or min(s) <= 0 for s in sizes):
        raise ConfigError(f"--sizes takes WxH,WxH (e.g. 1280x800,1920x1080), not {text!r}")
    return sizes  # type: ignore[return-value]


def synthetic_screenshot(width: int, height: int) -> Image.Image:
    """A desktop-like test image: title bar, side bar, buttons and text lines."""
    image = Image.new("RGB", (width, height), (236, 239, 244))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width, 36), fill=(46, 52, 64))
    draw.rectangle((0, 36, width // 5, height), fill=(216, 222, 233))
    for i in range(12):
        y = 60 + i * 48
        draw.text((16, y), f"Item {i + 1}", fill=(20, 20, 20))
        draw.text((width // 5 + 24, y), f"Line {i + 1}: the quick brown fox", fill=(30, 30, 30))
        draw.rounded_rectangle((width - 180, y - 6, width - 40, y + 24), 6, fill=(94, 129, 172))
        draw.text((width - 160, y), "Button", fill=(255, 255, 255))
    return image


def measure_vlm(model: str, family: str | None = None, budgets: list[int] | None = None,
                sizes: list[tuple[int, int]] | None = None, new_tokens: int = 32,
                repeats: int = 3, device: str | None = None, dtype: str | None = None,
                allow_download: bool = False) -> list[VlmFigures]:
    from ..backends.factory import choose_family
    from ..backends.images import ImageBudget
    from ..backends.local_models import resolve_model
    from ..backends.protocol import grounding_messages
    from ..backends.transformers_backend import TransformersBackend

    if new_tokens < 2 or repeats < 1:
        raise ConfigError("--new-tokens must be at least 2 and --repeats at least 1")
    folder = resolve_model(model, allow_download)
    fam = choose_family(family, model, folder)
    budgets = budgets or [fam.max_pixels]
    sizes = sizes or parse_sizes(DEFAULT_SIZES)
    figures = []
    for max_pixels in budgets:
        budget = ImageBudget(min(fam.min_pixels, max_pixels), max_pixels)
        tuned = replace(fam, max_pixels=budget.max_pixels, min_pixels=budget.min_pixels)
        backend = TransformersBackend(folder, tuned, budget=budget, device=device, dtype=dtype,
                                      allow_download=allow_download)
        for width, height in sizes:
            resized = budget.resized_size(width, height)
            # the family's own grounding request (its card's wording and layout)
            shot = budget.apply(synthetic_screenshot(width, height))
            messages = grounding_messages(tuned, shot, "the Button in the third row")
            _timed_step(backend, messages, 2)  # warm-up
            runs = [_timed_step(backend, messages, new_tokens) for _ in range(repeats)]
            result = runs[-1][0]
            figures.append(VlmFigures(
                budget=max_pixels, width=width, height=height, resized=f"{resized[0]}x{resized[1]}",
                image_tokens=result.image_tokens, prompt_tokens=result.prompt_tokens,
                prefill_tokens_s=round(statistics.median(r[1] for r in runs), 1),
                decode_tokens_s=round(statistics.median(r[2] for r in runs), 1),
                step_s=round(statistics.median(r[3] for r in runs), 3)))
    return figures


def _timed_step(backend, messages, new_tokens: int):
    """(result, prefill tokens/s, decode tokens/s, step seconds) of one forced-length generation.

    A logits processor notes when each new token's scores are ready: the first note ends the
    prefill, the notes after it time the decode steps.
    """
    from transformers import LogitsProcessor, LogitsProcessorList

    from ..backends.base import GenerationSettings

    class TokenClock(LogitsProcessor):
        def __init__(self) -> None:
            self.times: list[float] = []

        def __call__(self, input_ids, scores):
            self.times.append(time.perf_counter())
            return scores

    clock = TokenClock()
    settings = GenerationSettings(max_new_tokens=new_tokens, extra={
        "min_new_tokens": new_tokens, "logits_processor": LogitsProcessorList([clock])})
    started = time.perf_counter()
    result = backend.generate_with_stats(messages, settings)
    step = time.perf_counter() - started
    decode_s = clock.times[-1] - clock.times[0]
    prefill_s = max(result.seconds - decode_s, 1e-9)
    decode = (len(clock.times) - 1) / decode_s if decode_s > 0 else 0.0
    return result, result.prompt_tokens / prefill_s, decode, step


def format_table(figures: list[VlmFigures]) -> str:
    head = (f"{'budget':>18} {'screen':>10} {'resized':>10} {'img tok':>8} {'prompt':>7} "
            f"{'prefill tok/s':>14} {'decode tok/s':>13} {'s/step':>8}")
    rows = [head]
    for f in figures:
        budget = f"{f.budget} ({f.budget // (28 * 28)}x28x28)"
        rows.append(f"{budget:>18} {f'{f.width}x{f.height}':>10} {f.resized:>10} "
                    f"{f.image_tokens:>8} {f.prompt_tokens:>7} {f.prefill_tokens_s:>14.1f} "
                    f"{f.decode_tokens_s:>13.1f} {f.step_s:>8.3f}")
    return "\n".join(rows)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", required=True, help="model folder or cached Hugging Face repo id")
    parser.add_argument("--family", help="registry family (default: guessed from the model)")
    parser.add_argument("--budgets", default=DEFAULT_BUDGETS,
                        help=f"comma-separated max pixels (default {DEFAULT_BUDGETS}; the "
                             "family's own: `gui-agent models`)")
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help="screenshot sizes WxH,WxH")
    parser.add_argument("--new-tokens", type=int, default=32, help="tokens decoded per step")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", help="cpu, cuda, cuda:N or mps (default: the best available)")
    parser.add_argument("--dtype", choices=["float32", "float16", "bfloat16"])
    parser.add_argument("--allow-download", action="store_true",
                        help="download the model when it is not in the local cache")
    parser.add_argument("--json", type=Path, help="also write the figures here")


def run_vlm_bench(args: argparse.Namespace) -> int:
    from ..backends.images import parse_budget

    budgets = [parse_budget(b) for b in args.budgets.split(",") if b.strip()]
    figures = measure_vlm(args.model, args.family, budgets, parse_sizes(args.sizes),
                          args.new_tokens, args.repeats, args.device, args.dtype,
                          args.allow_download)
    print(format_table(figures))
    if args.json:
        args.json.write_text(json.dumps([asdict(f) for f in figures], indent=2), encoding="utf-8")
        print(f"figures written to {args.json}")
    return 0
