"""A tiny randomly initialised Qwen2.5-VL saved like a real checkpoint, for backend tests.

Hidden size 64, 2 text layers, a 2-block vision tower, a byte-level BPE tokenizer trained here
with Qwen's special tokens and a chat template: it loads with ``local_files_only=True`` and
generates on a screenshot in well under a second. Import the fixtures into a test module with
``from tests.support.vlm_fixtures import tiny_vlm_dir  # noqa: F401``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.requirements import require_module

QWEN_SPECIAL_TOKENS = (
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
    "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
    "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>",
)
# The checkpoint's own template (adds a default system turn, like Qwen's).
TINY_CHAT_TEMPLATE = (
    "{%- if messages[0]['role'] != 'system' -%}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{%- endif -%}"
    "{%- for message in messages -%}<|im_start|>{{ message['role'] }}\n"
    "{%- for part in message['content'] -%}"
    "{%- if part['type'] == 'image' -%}<|vision_start|><|image_pad|><|vision_end|>"
    "{%- else -%}{{ part['text'] }}{%- endif -%}{%- endfor -%}<|im_end|>\n{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|im_start|>assistant\n{%- endif -%}"
)
CORPUS = (
    "Thought: the Save button is at the bottom right, I click it.",
    "Action: click(start_box='(512,300)')", "type(content='hello world')", "hotkey(key='ctrl s')",
    "You are a helpful assistant. Click the OK button in the dialog.",
    "scroll(direction='down') wait() finished() {\"bbox_2d\": [10, 20, 30, 40]}",
)


def build_tiny_tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import Qwen2Tokenizer

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=420, special_tokens=list(QWEN_SPECIAL_TOKENS),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    bpe.train_from_iterator(list(CORPUS) * 10, trainer)
    data = json.loads(bpe.to_str())
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in data["model"]["merges"]]
    tokenizer = Qwen2Tokenizer(vocab=data["model"]["vocab"], merges=merges,
                               eos_token="<|im_end|>", pad_token="<|endoftext|>")
    tokenizer.add_special_tokens({"additional_special_tokens": list(QWEN_SPECIAL_TOKENS[1:])})
    tokenizer.chat_template = TINY_CHAT_TEMPLATE
    return tokenizer


def build_tiny_vlm(folder: Path, max_pixels: int = 1280 * 28 * 28) -> Path:
    """Save a tiny Qwen2.5-VL checkpoint (config, weights, tokenizer, image processor) in ``folder``."""
    import torch
    from transformers import (
        Qwen2_5_VLConfig,
        Qwen2_5_VLForConditionalGeneration,
        Qwen2VLImageProcessorPil,
    )

    tokenizer = build_tiny_tokenizer()
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in QWEN_SPECIAL_TOKENS}
    config = Qwen2_5_VLConfig(
        text_config={
            "vocab_size": len(tokenizer), "hidden_size": 64, "intermediate_size": 128,
            "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
            "max_position_embeddings": 8192,
            "rope_parameters": {"rope_type": "default", "mrope_section": [2, 3, 3],
                                "rope_theta": 10000.0},
            "bos_token_id": ids["<|endoftext|>"], "eos_token_id": ids["<|im_end|>"],
            "pad_token_id": ids["<|endoftext|>"],
        },
        vision_config={"depth": 2, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2,
                       "out_hidden_size": 64, "fullatt_block_indexes": [1], "window_size": 112},
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"],
    )
    torch.manual_seed(0)
    model = Qwen2_5_VLForConditionalGeneration(config)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    Qwen2VLImageProcessorPil(min_pixels=56 * 56, max_pixels=max_pixels).save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_vlm_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder named like a Qwen2.5-VL checkpoint holding the tiny model."""
    require_module("torch")
    require_module("transformers")
    return build_tiny_vlm(tmp_path_factory.mktemp("models") / "tiny-Qwen2.5-VL")
