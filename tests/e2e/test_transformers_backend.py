"""The transformers backend on a tiny real Qwen2.5-VL checkpoint saved to disk."""

from __future__ import annotations

import json
import shutil

import pytest
from PIL import Image

from gui_agent.backends import transformers_backend as tb
from gui_agent.backends.base import GenerationSettings, Message
from gui_agent.backends.factory import create_backend
from gui_agent.backends.images import ImageBudget
from gui_agent.backends.registry import get_family
from gui_agent.errors import BackendError, ConfigError
from tests.support.requirements import require_module
from tests.support.vlm_fixtures import tiny_vlm_dir  # noqa: F401 - a fixture

torch = require_module("torch")
pytestmark = pytest.mark.e2e("torch")

SCREEN = Image.new("RGB", (1280, 800), (240, 240, 240))
SHORT = GenerationSettings(max_new_tokens=4)


def _ask(image: Image.Image = SCREEN, text: str = "Click the OK button") -> list[Message]:
    return [Message.text("system", "You operate a computer."), Message("user", (image, text))]


def test_generates_text_with_the_budgeted_image_tokens(tiny_vlm_dir):  # noqa: F811
    backend, family = create_backend(str(tiny_vlm_dir))
    assert family.name == "qwen2.5-vl" and isinstance(backend, tb.TransformersBackend)
    budget = ImageBudget(min_pixels=3136, max_pixels=256 * 28 * 28)
    backend = tb.TransformersBackend(str(tiny_vlm_dir), family, budget=budget)
    result = backend.generate_with_stats(_ask(), SHORT)
    assert isinstance(result.text, str) and result.new_tokens == 4
    assert result.image_tokens == budget.tokens(1280, 800) == 20 * 12
    assert result.prompt_tokens > result.image_tokens
    assert isinstance(backend.generate(_ask(), SHORT), str)


def test_image_tokens_follow_grid_thw(tiny_vlm_dir):  # noqa: F811
    backend = tb.TransformersBackend(str(tiny_vlm_dir), get_family("qwen2.5-vl"))
    inputs, image_tokens = backend.prepare_inputs(_ask(Image.new("RGB", (1920, 1080))))
    grid = inputs["image_grid_thw"][0]
    assert tb.image_token_count(grid, 2) == int(grid.prod()) // 4 == image_tokens
    assert image_tokens == get_family("qwen2.5-vl").budget.tokens(1920, 1080)
    assert int(inputs["mm_token_type_ids"].sum()) == image_tokens
    assert inputs["pixel_values"].shape[0] == int(grid.prod())


def test_the_model_sees_exactly_the_budgeted_image(tiny_vlm_dir):  # noqa: F811
    # min == max: a second smart_resize would grow 280x168 to 308x196; the processor must not
    budget = ImageBudget(min_pixels=64 * 28 * 28, max_pixels=64 * 28 * 28)
    backend = tb.TransformersBackend(str(tiny_vlm_dir), get_family("qwen2.5-vl"), budget=budget)
    inputs, image_tokens = backend.prepare_inputs(_ask())
    assert budget.resized_size(1280, 800) == (280, 168)
    assert [int(v) for v in inputs["image_grid_thw"][0]] == [1, 168 // 14, 280 // 14]
    assert image_tokens == 60


def test_expand_image_tokens_per_image_in_order():
    text = "a<|image_pad|>b<|image_pad|>c"
    assert tb.expand_image_tokens(text, [2, 3]) == "a" + "<|image_pad|>" * 2 + "b" + "<|image_pad|>" * 3 + "c"
    with pytest.raises(BackendError, match="2 image placeholder"):
        tb.expand_image_tokens(text, [2])


def test_the_model_loads_once_and_is_reused(tiny_vlm_dir, monkeypatch):  # noqa: F811
    tb.clear_model_cache()
    calls = []
    real_load = tb._load
    monkeypatch.setattr(tb, "_load", lambda *a: calls.append(a) or real_load(*a))
    family = get_family("qwen2.5-vl")
    first = tb.TransformersBackend(str(tiny_vlm_dir), family)
    second = tb.TransformersBackend(str(tiny_vlm_dir), family, budget=ImageBudget(max_pixels=64 * 28 * 28))
    first.generate(_ask(), SHORT)
    first.generate(_ask(), SHORT)
    second.generate(_ask(), SHORT)
    assert len(calls) == 1 and first.loaded is second.loaded


def test_device_and_dtype_selection(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: True)
    assert tb.select_device() == "cuda" and tb.select_dtype("cuda") == "bfloat16"
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: False)
    assert tb.select_dtype("cuda:1") == "float16"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert tb.select_device() == "mps" and tb.select_dtype("mps") == "float16"
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert tb.select_device() == "cpu" and tb.select_dtype("cpu") == "float32"
    assert tb.select_dtype("cpu", "bfloat16") == "bfloat16"
    assert tb.select_device("auto") == "cpu" and tb.select_dtype("cpu", "auto") == "float32"
    with pytest.raises(BackendError, match="CUDA is not available"):
        tb.select_device("cuda")
    with pytest.raises(BackendError, match="device must be"):
        tb.select_device("tpu")
    with pytest.raises(BackendError, match="dtype must be"):
        tb.select_dtype("cpu", "int4")


def test_a_folder_without_chat_template_gets_qwen_chatml(tiny_vlm_dir, tmp_path):  # noqa: F811
    folder = tmp_path / "no-template-qwen2.5-vl"
    shutil.copytree(tiny_vlm_dir, folder)
    config_path = folder / "tokenizer_config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config.pop("chat_template", None)
    config_path.write_text(json.dumps(config), encoding="utf-8")
    (folder / "chat_template.jinja").unlink(missing_ok=True)
    backend = tb.TransformersBackend(str(folder), get_family("qwen2.5-vl"))
    assert backend.loaded.tokenizer.chat_template == tb.QWEN_CHAT_TEMPLATE
    assert isinstance(backend.generate(_ask(), SHORT), str)


def test_error_paths(tiny_vlm_dir, tmp_path, monkeypatch):  # noqa: F811
    with pytest.raises(ConfigError, match="needs --model"):
        create_backend(None)
    with pytest.raises(BackendError, match="does not exist"):
        create_backend(str(tmp_path / "missing" / "model"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(BackendError, match="--allow-download or download it first: huggingface-cli download Qwen/Qwen2.5-VL-3B-Instruct"):
        create_backend("Qwen/Qwen2.5-VL-3B-Instruct")
    bert = tmp_path / "bert"
    bert.mkdir()
    (bert / "config.json").write_text(json.dumps({
        "model_type": "bert", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
        "intermediate_size": 8, "vocab_size": 10}), encoding="utf-8")
    (bert / "model.safetensors").write_bytes(b"")
    with pytest.raises(BackendError, match="not a supported architecture"):
        tb.TransformersBackend(str(bert)).generate(_ask(), SHORT)

    backend = tb.TransformersBackend(str(tiny_vlm_dir), get_family("qwen2.5-vl"))

    def out_of_memory(**kwargs):
        raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")

    monkeypatch.setattr(backend.loaded.model, "generate", out_of_memory)
    with pytest.raises(BackendError, match="out of memory on cpu: use a smaller image budget"):
        backend.generate(_ask(), SHORT)
