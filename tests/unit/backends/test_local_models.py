"""Finding models on this machine (folders, the Hugging Face cache) and guessing their family."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gui_agent.backends.local_models import (
    find_local_models,
    guess_family,
    hf_hub_dir,
    resolve_model,
)
from gui_agent.cli import main
from gui_agent.errors import BackendError


def _cache_model(hub: Path, repo: str, model_type: str, weights: bool = True) -> Path:
    folder = hub / ("models--" + repo.replace("/", "--"))
    snap = folder / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(json.dumps({"model_type": model_type}), encoding="utf-8")
    if weights:
        (snap / "model.safetensors").write_bytes(b"weights")
    (folder / "refs").mkdir()
    (folder / "refs" / "main").write_text("abc123", encoding="utf-8")
    return snap


@pytest.mark.parametrize(("name", "config", "family"), [
    ("ByteDance-Seed/UI-TARS-1.5-7B", {"model_type": "qwen2_5_vl"}, "ui-tars-1.5"),
    ("bytedance-research/UI-TARS-7B-DPO", {"model_type": "qwen2_vl"}, "ui-tars-1.0"),
    ("showlab/ShowUI-2B", {}, "showui"),
    ("osunlp/UGround-V1-7B", {}, "uground"),
    ("OS-Copilot/OS-Atlas-Pro-7B", {}, "os-atlas"),
    ("Qwen/Qwen2.5-VL-3B-Instruct", {}, "qwen2.5-vl"),
    ("Qwen/Qwen2-VL-2B-Instruct", {}, "qwen2-vl"),
    ("my-finetune", {"model_type": "qwen2_5_vl"}, "qwen2.5-vl"),
    ("checkpoint-500", {"_name_or_path": "showlab/ShowUI-2B", "model_type": "qwen2_vl"}, "showui"),
    ("bert-base", {"model_type": "bert"}, None),
])
def test_guess_family(name, config, family):
    assert guess_family(name, config) == family


def test_finds_models_in_the_cache_and_in_folders(tmp_path):
    hub = tmp_path / "hub"
    _cache_model(hub, "ByteDance-Seed/UI-TARS-1.5-7B", "qwen2_5_vl")
    _cache_model(hub, "showlab/ShowUI-2B", "qwen2_vl", weights=False)
    own = tmp_path / "models" / "UGround-V1-2B"
    own.mkdir(parents=True)
    (own / "config.json").write_text('{"model_type": "qwen2_vl"}', encoding="utf-8")
    found = {m.name: m for m in find_local_models([tmp_path / "models"], hub)}
    assert found["ByteDance-Seed/UI-TARS-1.5-7B"].family == "ui-tars-1.5"
    assert found["ByteDance-Seed/UI-TARS-1.5-7B"].source == "hf-cache"
    assert found["showlab/ShowUI-2B"].has_weights is False
    assert found["UGround-V1-2B"].family == "uground"
    assert found["UGround-V1-2B"].source == "folder"


def test_hub_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    assert hf_hub_dir() == tmp_path / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "elsewhere"))
    assert hf_hub_dir() == tmp_path / "elsewhere"


def test_resolve_model_finds_or_explains(tmp_path):
    hub = tmp_path / "hub"
    snap = _cache_model(hub, "Qwen/Qwen2.5-VL-3B-Instruct", "qwen2_5_vl")
    _cache_model(hub, "showlab/ShowUI-2B", "qwen2_vl", weights=False)
    assert resolve_model("Qwen/Qwen2.5-VL-3B-Instruct", hub=hub) == str(snap)
    assert resolve_model(str(snap)) == str(snap)
    with pytest.raises(BackendError, match=r"is not in the local .*huggingface-cli download osunlp/UGround-V1-7B"):
        resolve_model("osunlp/UGround-V1-7B", hub=hub)
    with pytest.raises(BackendError, match="has no weights in the local"):
        resolve_model("showlab/ShowUI-2B", hub=hub)
    assert resolve_model("osunlp/UGround-V1-7B", allow_download=True, hub=hub) == "osunlp/UGround-V1-7B"
    with pytest.raises(BackendError, match="does not exist"):
        resolve_model(str(tmp_path / "nowhere" / "model"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(BackendError, match="no config.json"):
        resolve_model(str(tmp_path / "empty"))
    (tmp_path / "empty" / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(BackendError, match="no weight files"):
        resolve_model(str(tmp_path / "empty"))


def test_models_command_lists_families_and_local_models(tmp_path, capsys):
    hub = tmp_path / "hub"
    _cache_model(hub, "ByteDance-Seed/UI-TARS-1.5-7B", "qwen2_5_vl")
    assert main(["models", "--hub", str(hub)]) == 0
    out = capsys.readouterr().out
    assert "showui" in out and "relative-1" in out and "256x28x28..1344x28x28" in out
    line = next(row for row in out.splitlines() if "UI-TARS-1.5-7B" in row and "hf-cache" in row)
    assert "ui-tars-1.5" in line
    assert main(["models", "--hub", str(tmp_path / "none"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["local"] == [] and {f["name"] for f in data["families"]} >= {"uground", "os-atlas"}
