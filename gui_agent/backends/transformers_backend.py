"""Local vision-language models with Hugging Face transformers (Qwen2-VL / Qwen2.5-VL family).

A model is read from a folder or the local Hugging Face cache (``local_files_only`` unless a
download was allowed), loaded once per (folder, device, dtype) and reused by every backend that
names it. Images are resized to the family's budget first, so the model sees exactly the image
the coordinate adapters map back from.

Inputs come from ``AutoProcessor`` when it can be built. Qwen's processor also needs
torchvision (for its video processor); without it the inputs are assembled here the same way:
the chat template's one ``<|image_pad|>`` per image is expanded to
``grid_thw.prod() // merge_size**2`` tokens and ``mm_token_type_ids`` marks them (transformers
5.x needs it for the 3-D rotary positions).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image

from ..errors import BackendError
from .base import GenerationSettings, Message
from .images import ImageBudget
from .local_models import download_hint
from .registry import ModelFamily

if TYPE_CHECKING:
    from ..deadline import Deadline

log = logging.getLogger(__name__)

QWEN_MODEL_TYPES = ("qwen2_vl", "qwen2_5_vl")
IMAGE_PAD = "<|image_pad|>"
DTYPES = ("float32", "float16", "bfloat16")
# ChatML with Qwen's vision markers, for a Qwen-family folder whose files carry no chat template.
QWEN_CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "<|im_start|>{{ message['role'] }}\n"
    "{%- for part in message['content'] -%}"
    "{%- if part['type'] == 'image' -%}<|vision_start|><|image_pad|><|vision_end|>"
    "{%- else -%}{{ part['text'] }}{%- endif -%}"
    "{%- endfor -%}<|im_end|>\n"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|im_start|>assistant\n{%- endif -%}"
)


@dataclass(frozen=True)
class GenerationResult:
    text: str
    prompt_tokens: int        # every input token, image tokens included
    image_tokens: int
    new_tokens: int
    seconds: float


@dataclass
class LoadedModel:
    model: Any
    tokenizer: Any
    image_processor: Any
    processor: Any | None     # None: inputs are assembled by hand (no torchvision)
    path: str
    device: str
    dtype: str
    model_type: str
    load_seconds: float


_LOADED: dict[tuple[str, str, str], LoadedModel] = {}
_LOAD_LOCK = threading.Lock()


def select_device(preferred: str | None = None) -> str:
    """``preferred`` when given (``auto`` or None: choose), else CUDA, else Apple MPS, else CPU."""
    import torch

    if preferred and preferred != "auto":
        kind = preferred.split(":")[0]
        if kind == "cuda" and not torch.cuda.is_available():
            raise BackendError(f"device {preferred!r} asked for but CUDA is not available here")
        if kind == "mps" and not torch.backends.mps.is_available():
            raise BackendError(f"device {preferred!r} asked for but Apple MPS is not available here")
        if kind not in ("cuda", "mps", "cpu"):
            raise BackendError(f"device must be cpu, cuda, cuda:N or mps, not {preferred!r}")
        return preferred
    if torch.cuda.is_available():
        return "cuda"
    if torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def select_dtype(device: str, preferred: str | None = None) -> str:
    """``preferred`` when given; CUDA bfloat16 (float16 on GPUs without it), MPS float16, CPU float32."""
    if preferred and preferred != "auto":
        if preferred not in DTYPES:
            raise BackendError(f"dtype must be one of {', '.join(DTYPES)}, not {preferred!r}")
        return preferred
    if device.startswith("cuda"):
        import torch

        return "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
    return "float16" if device.startswith("mps") else "float32"


def image_token_count(grid_thw: Any, merge_size: int) -> int:
    """Tokens one image costs: its patch grid (t, h, w) merged ``merge_size`` x ``merge_size``."""
    t, h, w = (int(v) for v in grid_thw)
    return t * h * w // (merge_size * merge_size)


def expand_image_tokens(text: str, counts: list[int], image_token: str = IMAGE_PAD) -> str:
    """Each image token in ``text`` repeated as often as that image has tokens (in order)."""
    pieces = text.split(image_token)
    if len(pieces) - 1 != len(counts):
        raise BackendError(
            f"the chat template wrote {len(pieces) - 1} image placeholder(s) for {len(counts)} "
            "image(s); the model's chat template does not support images this way"
        )
    out = [pieces[0]]
    for count, piece in zip(counts, pieces[1:], strict=True):
        out.append(image_token * count)
        out.append(piece)
    return "".join(out)


def to_chat(messages: list[Message]) -> list[dict[str, Any]]:
    """Messages in the transformers chat-template shape (content as typed parts)."""
    chat = []
    for message in messages:
        parts = [{"type": "image"} if isinstance(p, Image.Image) else {"type": "text", "text": p}
                 for p in message.content]
        chat.append({"role": message.role, "content": parts})
    return chat


def _read_template_file(path: str) -> str | None:
    import json

    folder = Path(path)
    if (folder / "chat_template.jinja").is_file():
        return (folder / "chat_template.jinja").read_text(encoding="utf-8")
    if (folder / "chat_template.json").is_file():
        data = json.loads((folder / "chat_template.json").read_text(encoding="utf-8"))
        return data.get("chat_template") if isinstance(data, dict) else None
    return None


def _load(path: str, device: str, dtype: str, allow_download: bool) -> LoadedModel:
    import torch
    from transformers import (
        AutoConfig,
        AutoImageProcessor,
        AutoModelForImageTextToText,
        AutoProcessor,
        AutoTokenizer,
    )

    started = time.perf_counter()
    local = not allow_download
    try:
        config = AutoConfig.from_pretrained(path, local_files_only=local)
    except OSError as exc:
        raise BackendError(f"cannot read the model config of {path}: {exc}. {download_hint(path)}") from exc
    except (ValueError, KeyError) as exc:
        raise BackendError(
            f"{path}: unknown model architecture ({exc}); a newer transformers may know it"
        ) from exc
    model_type = getattr(config, "model_type", "")
    try:
        model = AutoModelForImageTextToText.from_pretrained(
            path, local_files_only=local, dtype=getattr(torch, dtype))
    except ValueError as exc:
        if "Unrecognized configuration class" in str(exc) or "not supported" in str(exc):
            raise BackendError(
                f"{path} ({model_type or 'unknown type'}) is not a supported architecture: the "
                "transformers backend runs image-text-to-text models such as Qwen2-VL and Qwen2.5-VL"
            ) from exc
        raise BackendError(f"cannot load the model in {path}: {exc}") from exc
    except OSError as exc:
        raise BackendError(f"cannot load the weights of {path}: {exc}. {download_hint(path)}") from exc
    _to_device(model, device)
    model.eval()
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=local)
    if not getattr(tokenizer, "chat_template", None):
        tokenizer.chat_template = _read_template_file(path) or (
            QWEN_CHAT_TEMPLATE if model_type in QWEN_MODEL_TYPES else None)
    processor = None
    try:
        processor = AutoProcessor.from_pretrained(path, local_files_only=local)
    except Exception as exc:  # noqa: BLE001 - any failure: fall back to hand-built inputs
        if model_type not in QWEN_MODEL_TYPES:
            raise BackendError(f"cannot build the input processor of {path}: {exc}") from exc
        reason = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        log.info("AutoProcessor unavailable for %s (%s); assembling inputs by hand", path, reason)
    image_processor = AutoImageProcessor.from_pretrained(path, local_files_only=local)
    seconds = time.perf_counter() - started
    log.info("loaded %s on %s (%s) in %.1f s", path, device, dtype, seconds)
    return LoadedModel(model, tokenizer, image_processor, processor, path, device, dtype,
                       model_type, seconds)


def _to_device(model: Any, device: str) -> None:
    try:
        model.to(device)
    except Exception as exc:  # noqa: BLE001
        if _is_oom(exc):
            raise BackendError(_oom_message(device)) from exc
        raise


def _is_oom(exc: BaseException) -> bool:
    return isinstance(exc, MemoryError) or "out of memory" in str(exc).lower() or (
        type(exc).__name__ == "OutOfMemoryError")


def _oom_message(device: str) -> str:
    return (f"out of memory on {device}: use a smaller image budget (max_pixels), a smaller "
            "model, --dtype bfloat16/float16, or another --device")


def load_model(path: str, device: str | None = None, dtype: str | None = None,
               allow_download: bool = False) -> LoadedModel:
    """The model in ``path``, loaded on first use and shared afterwards."""
    device = select_device(device)
    dtype = select_dtype(device, dtype)
    key = (path, device, dtype)
    with _LOAD_LOCK:
        if key not in _LOADED:
            _LOADED[key] = _load(path, device, dtype, allow_download)
        return _LOADED[key]


def clear_model_cache() -> None:
    with _LOAD_LOCK:
        _LOADED.clear()


class TransformersBackend:
    """``generate(messages) -> text`` with a local model; the model loads on the first call."""

    name = "transformers"

    def __init__(self, model: str, family: ModelFamily | None = None,
                 budget: ImageBudget | None = None, device: str | None = None,
                 dtype: str | None = None, allow_download: bool = False, *,
                 deadline: Deadline | None = None) -> None:
        self.model_path = model
        self.family = family
        self.budget = budget or (family.budget if family else ImageBudget())
        self.device = select_device(device)
        self.dtype = select_dtype(self.device, dtype)
        self.allow_download = allow_download
        self.deadline = deadline

    @property
    def loaded(self) -> LoadedModel:
        return load_model(self.model_path, self.device, self.dtype, self.allow_download)

    def prepare_inputs(self, messages: list[Message]) -> tuple[dict[str, Any], int]:
        """Model inputs for the conversation and the number of image tokens in them."""
        lm = self.loaded
        images = [self.budget.apply(img) for m in messages for img in m.images]
        if not getattr(lm.tokenizer, "chat_template", None):
            raise BackendError(f"{lm.path} has no chat template; cannot build a prompt for it")
        prompt = lm.tokenizer.apply_chat_template(to_chat(messages), tokenize=False,
                                                  add_generation_prompt=True)
        image_token_id = getattr(lm.model.config, "image_token_id", None)
        if lm.processor is not None:
            inputs = dict(lm.processor(text=[prompt], images=images or None, return_tensors="pt"))
        else:
            inputs = self._assemble(lm, prompt, images)
        ids = inputs["input_ids"]
        image_tokens = int((ids == image_token_id).sum()) if image_token_id is not None else 0
        return inputs, image_tokens

    def _assemble(self, lm: LoadedModel, prompt: str, images: list[Image.Image]) -> dict[str, Any]:
        counts: list[int] = []
        inputs: dict[str, Any] = {}
        if images:
            # The images are already budgeted; bounds that include every one of them make the
            # processor's own smart_resize an identity (it is not idempotent when min ~ max).
            areas = [w * h for w, h in (img.size for img in images)]
            size = {"shortest_edge": min(self.budget.min_pixels, *areas),
                    "longest_edge": max(self.budget.max_pixels, *areas)}
            vision = lm.image_processor(images=images, return_tensors="pt", size=size)
            merge = int(getattr(lm.image_processor, "merge_size", 2))
            counts = [image_token_count(g, merge) for g in vision["image_grid_thw"]]
            inputs.update(pixel_values=vision["pixel_values"], image_grid_thw=vision["image_grid_thw"])
        text = expand_image_tokens(prompt, counts)
        enc = lm.tokenizer(text, return_tensors="pt", add_special_tokens=False)
        inputs.update(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"])
        image_token_id = lm.model.config.image_token_id
        inputs["mm_token_type_ids"] = (enc["input_ids"] == image_token_id).long()
        return inputs

    def generate_with_stats(self, messages: list[Message],
                            settings: GenerationSettings | None = None, *,
                            deadline: Deadline | None = None) -> GenerationResult:
        """The reply and its token counts. With a deadline (the argument, else the backend's)
        generation stops at it (transformers' ``max_time``) and DeadlineExceeded is raised."""
        import torch

        deadline = deadline if deadline is not None else self.deadline
        what = f"generating with {Path(self.model_path).name}"
        if deadline is not None:
            deadline.check(f"before {what}")
        settings = settings or (self.family.generation if self.family else GenerationSettings())
        lm = self.loaded
        inputs, image_tokens = self.prepare_inputs(messages)
        model_dtype = getattr(torch, lm.dtype)
        inputs = {k: (v.to(lm.device, model_dtype) if k == "pixel_values" else v.to(lm.device))
                  for k, v in inputs.items() if hasattr(v, "to")}
        kwargs: dict[str, Any] = {"max_new_tokens": settings.max_new_tokens,
                                  "do_sample": settings.temperature > 0}
        if settings.temperature > 0:
            kwargs.update(temperature=settings.temperature, top_p=settings.top_p)
        if settings.stop:
            kwargs.update(stop_strings=list(settings.stop), tokenizer=lm.tokenizer)
        pad = lm.tokenizer.pad_token_id
        if pad is None:
            pad = lm.tokenizer.eos_token_id
        kwargs["pad_token_id"] = pad
        kwargs.update(settings.extra)
        left = deadline.remaining() if deadline is not None else None
        if left is not None:
            if left <= 0:
                raise deadline.exceeded(f"before {what}")  # type: ignore[union-attr]
            limit = kwargs.get("max_time")
            kwargs["max_time"] = left if not isinstance(limit, int | float) else min(limit, left)
        prompt_tokens = int(inputs["input_ids"].shape[1])
        started = time.perf_counter()
        try:
            with torch.inference_mode():
                out = lm.model.generate(**inputs, **kwargs)
        except Exception as exc:  # noqa: BLE001
            if _is_oom(exc):
                raise BackendError(_oom_message(lm.device)) from exc
            raise
        seconds = time.perf_counter() - started
        if deadline is not None:
            deadline.check(what)  # stopped by max_time: the reply is cut short
        new = out[0, prompt_tokens:]
        text = lm.tokenizer.decode(new, skip_special_tokens=True)
        for stop in settings.stop:
            text = text.split(stop, 1)[0]
        return GenerationResult(text.strip(), prompt_tokens, image_tokens, int(new.shape[0]), seconds)

    def generate(self, messages: list[Message], settings: GenerationSettings | None = None, *,
                 deadline: Deadline | None = None) -> str:
        return self.generate_with_stats(messages, settings, deadline=deadline).text
