"""`gui-agent models`: the model families gui-agent knows and the models found on this machine."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path

from .. import say


def add_models_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("models", help="list model families and the models found locally",
                       description="List the model registry's families (coordinate convention, "
                       "image budget) and the models on this machine: the Hugging Face cache and "
                       "any --search folders, each with its guessed family. Nothing is downloaded.")
    p.add_argument("--search", type=Path, action="append", default=[], metavar="DIR",
                   help="also look in this folder (a model folder or a folder of them); repeatable")
    p.add_argument("--hub", type=Path, help="Hugging Face hub cache folder (default: $HF_HUB_CACHE, "
                   "$HF_HOME/hub or ~/.cache/huggingface/hub)")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")


def _budget(pixels: int) -> str:
    return f"{pixels // (28 * 28)}x28x28"


def models_command(args: argparse.Namespace) -> int:
    from .. import find_local_models, hf_hub_dir, load_registry, registry_path

    families = load_registry()
    hub = args.hub or hf_hub_dir()
    found = find_local_models(args.search, hub, families)
    if args.json:
        say(json.dumps({
            "registry": str(registry_path()),
            "families": [{"name": f.name, "coordinates": f.coordinates, "parser": f.parser,
                        "prompt": f.prompt, "min_pixels": f.min_pixels,
                        "max_pixels": f.max_pixels, "repo": f.repo} for f in families.values()],
            "hub": str(hub),
            "local": [{**asdict(m), "path": str(m.path)} for m in found],
        }, indent=2))
        return 0
    say(f"Model families ({registry_path()}):")
    say(f"  {'family':<13} {'coordinates':<17} {'image budget (min..max pixels)':<34} example")
    for f in families.values():
        budget = f"{_budget(f.min_pixels)}..{_budget(f.max_pixels)}"
        say(f"  {f.name:<13} {f.coordinates:<17} {budget:<34} {f.repo or '(any capable VLM)'}")
    say()
    where = ", ".join([str(hub), *map(str, args.search)])
    if not found:
        say(f"No local models found (looked in {where}).")
        say("Download one, e.g.: huggingface-cli download ByteDance-Seed/UI-TARS-1.5-7B")
        return 0
    say(f"Local models (looked in {where}):")
    say(f"  {'model':<44} {'family':<13} {'type':<12} {'where'}")
    for m in found:
        family = m.family or "? (--family)"
        note = "" if m.has_weights else "  [no weights: incomplete download]"
        say(f"  {m.name:<44} {family:<13} {m.model_type or '?':<12} {m.source}: {m.path}{note}")
    return 0
