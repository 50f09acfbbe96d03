"""Models already on this machine: a folder, or the local Hugging Face cache. Nothing is downloaded.

The cache layout is ``<hub>/models--OWNER--NAME/snapshots/<revision>/config.json``; the hub
folder is ``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, else ``~/.cache/huggingface/hub``.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import BackendError
from .registry import ModelFamily, load_registry

log = logging.getLogger(__name__)
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf")


@dataclass(frozen=True)
class LocalModel:
    name: str                 # repo id (OWNER/NAME) for the cache, folder name otherwise
    path: Path                # the folder holding config.json
    source: str               # "hf-cache" | "folder"
    model_type: str | None    # config.json model_type
    family: str | None        # guessed registry family, None when unknown
    has_weights: bool


def hf_hub_dir() -> Path:
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]) / "hub"
    return Path.home() / ".cache" / "huggingface" / "hub"


def read_config(folder: Path) -> dict:
    try:
        data = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def has_weights(folder: Path) -> bool:
    """True when the folder holds at least one weight file (a cache may hold config.json only)."""
    try:
        return any(p.name.endswith(WEIGHT_SUFFIXES) and p.exists() for p in folder.iterdir())
    except OSError:
        return False


def _normalise(name: str) -> str:
    return name.lower().replace("_", "-").replace(" ", "-")


def guess_family(name: str, config: dict | None = None,
                 families: dict[str, ModelFamily] | None = None) -> str | None:
    """The registry family a model belongs to, from its repo id or folder name, else its config.

    Name fragments come first (UI-TARS-1.5 has model_type qwen2_5_vl like plain Qwen2.5-VL);
    the longest matching fragment wins, so ``ui-tars-1.5`` beats ``ui-tars``.
    """
    families = families if families is not None else load_registry()
    text = _normalise(name)
    best: tuple[int, str] | None = None
    for family in families.values():
        for fragment in family.match:
            if _normalise(fragment) in text and (best is None or len(fragment) > best[0]):
                best = (len(fragment), family.name)
    if best:
        return best[1]
    config = config or {}
    for key in ("_name_or_path", "name_or_path"):
        if isinstance(config.get(key), str) and config[key] and config[key] != name:
            found = guess_family(config[key], None, families)
            if found:
                return found
    model_type = config.get("model_type")
    for family in families.values():
        if model_type and model_type in family.model_types:
            return family.name
    return None


def describe_folder(folder: Path, name: str | None = None, source: str = "folder",
                    families: dict[str, ModelFamily] | None = None) -> LocalModel:
    config = read_config(folder)
    name = name or folder.name
    return LocalModel(
        name=name, path=folder, source=source,
        model_type=config.get("model_type") if isinstance(config.get("model_type"), str) else None,
        family=guess_family(name, config, families), has_weights=has_weights(folder),
    )


def _repo_id(cache_folder: Path) -> str:
    return cache_folder.name.removeprefix("models--").replace("--", "/")


def _newest_snapshot(cache_folder: Path) -> Path | None:
    """The snapshot ``refs/main`` points at, else the most recently changed one with a config."""
    ref = cache_folder / "refs" / "main"
    if ref.is_file():
        snap = cache_folder / "snapshots" / ref.read_text(encoding="utf-8").strip()
        if (snap / "config.json").is_file():
            return snap
    snaps = [p.parent for p in (cache_folder / "snapshots").glob("*/config.json")]
    return max(snaps, key=lambda p: p.stat().st_mtime) if snaps else None


def find_cached_models(hub: Path | None = None,
                       families: dict[str, ModelFamily] | None = None) -> list[LocalModel]:
    hub = hub or hf_hub_dir()
    found = []
    for cache_folder in sorted(hub.glob("models--*")):
        snap = _newest_snapshot(cache_folder)
        if snap is not None:
            found.append(describe_folder(snap, _repo_id(cache_folder), "hf-cache", families))
    return found


def find_folder_models(root: Path, families: dict[str, ModelFamily] | None = None) -> list[LocalModel]:
    """``root`` itself when it holds a config.json, else its direct subfolders that do."""
    if (root / "config.json").is_file():
        return [describe_folder(root, families=families)]
    return [describe_folder(p.parent, families=families) for p in sorted(root.glob("*/config.json"))]


def find_local_models(search: list[Path] | tuple[Path, ...] = (), hub: Path | None = None,
                      families: dict[str, ModelFamily] | None = None) -> list[LocalModel]:
    """Models in the HF cache and in the given folders (with their guessed families)."""
    families = families if families is not None else load_registry()
    models = find_cached_models(hub, families)
    for root in search:
        models.extend(find_folder_models(Path(root), families))
    return models


def download_hint(repo_id: str) -> str:
    return (f"run with --allow-download or download it first: "
            f"huggingface-cli download {repo_id}")


def resolve_model(model: str, allow_download: bool = False, hub: Path | None = None) -> str:
    """A local folder for ``model`` (a path or a cached repo id), or the repo id to download.

    Raises BackendError when the model is not here and downloading was not allowed.
    """
    path = Path(model).expanduser()
    looks_like_path = model.startswith((".", "/", "~", "\\")) or model.count("/") > 1
    if path.exists() or looks_like_path:
        if not path.is_dir():
            raise BackendError(f"model folder {path} does not exist")
        if not (path / "config.json").is_file():
            raise BackendError(f"{path} is not a model folder: it has no config.json")
        if not has_weights(path):
            raise BackendError(f"model folder {path} has no weight files (*.safetensors or *.bin)")
        return str(path)
    hub = hub or hf_hub_dir()
    cache_folder = hub / ("models--" + model.replace("/", "--"))
    snap = _newest_snapshot(cache_folder) if cache_folder.is_dir() else None
    if snap is not None and has_weights(snap):
        return str(snap)
    if allow_download:
        log.info("%s is not in the local cache %s; it will be downloaded", model, hub)
        return model
    where = "has no weights in" if snap is not None else "is not in"
    raise BackendError(
        f"model {model!r} {where} the local Hugging Face cache ({hub}) and no folder of that name "
        f"exists: {download_hint(model)}"
    )
