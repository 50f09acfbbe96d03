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
    g = p.add_argument_group("configuration", "say which mode these models give (default: the "
                             "config file and GUI_AGENT_* variables)")
    for flag in ("model", "family", "planner-model", "planner-family", "grounding-model",
                 "grounding-family"):
        g.add_argument(f"--{flag}", metavar="NAME")


MODE_KEYS = ("model", "family", "planner_model", "planner_family", "grounding_model",
             "grounding_family")


def configuration_mode(args: argparse.Namespace) -> tuple[dict[str, str | None], object]:
    """The configured models (flags over the settings) and the mode they give, or the
    ConfigError that says why they cannot be used so."""
    from .. import ConfigError, configured_mode, load_settings

    settings = load_settings()
    values = {k: getattr(args, k, None) or getattr(settings, k) for k in MODE_KEYS}
    try:
        return values, configured_mode(**values)
    except ConfigError as exc:
        return values, exc


def _budget(pixels: int) -> str:
    return f"{pixels // (28 * 28)}x28x28"


def _mode_lines(values: dict[str, str | None], mode: object) -> list[str]:
    from .. import ModeChoice

    given = ", ".join(f"{k}={v}" for k, v in values.items() if v) or "no model"
    if isinstance(mode, ModeChoice):
        return [f"This configuration ({given}) gives: {mode.name}", f"  why: {mode.describe()}"]
    return [f"This configuration ({given}) cannot run: {mode}"]


def models_command(args: argparse.Namespace) -> int:
    from .. import (
        ModeChoice,
        family_uses,
        find_local_models,
        hf_hub_dir,
        load_registry,
        registry_path,
    )

    families = load_registry()
    hub = args.hub or hf_hub_dir()
    found = find_local_models(args.search, hub, families)
    values, mode = configuration_mode(args)
    if args.json:
        say(json.dumps({
            "registry": str(registry_path()),
            "families": [{"name": f.name, "modes": list(f.modes), "coordinates": f.coordinates,
                          "parser": f.parser, "prompt": f.prompt, "agent_prompt": f.agent_prompt,
                          "min_pixels": f.min_pixels, "max_pixels": f.max_pixels,
                          "generation": asdict(f.generation), "repo": f.repo}
                         for f in families.values()],
            "configuration": {**values, "mode": mode.mode if isinstance(mode, ModeChoice) else None,
                              "why": mode.describe() if isinstance(mode, ModeChoice) else str(mode)},
            "hub": str(hub),
            "local": [{**asdict(m), "path": str(m.path)} for m in found],
        }, indent=2))
        return 0
    say(f"Model families ({registry_path()}):")
    say(f"  {'family':<12} {'coordinates':<17} {'image budget (pixels)':<28} can be used as")
    for f in families.values():
        budget = f"{_budget(f.min_pixels)}..{_budget(f.max_pixels)}"
        say(f"  {f.name:<12} {f.coordinates:<17} {budget:<28} {family_uses(f)}")
        say(f"  {'':<12} {f.repo or '(any capable model)'}")
    say()
    for line in _mode_lines(values, mode):
        say(line)
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
