"""The model registry (``registry.toml`` beside this module, shipped in the package): each family's prompt, parser, coordinates, budget.

Families are data, not code: adding a fine-tune of a known family is one TOML table. Every
field is checked when the file is read, and a bad one is named with its family and file.
"""

from __future__ import annotations

import functools
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .base import GenerationSettings
from .images import ImageBudget

COORDINATE_CONVENTIONS = ("absolute-resized", "relative-1000", "relative-1", "absolute")
PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"
DEFAULT_REGISTRY = Path(__file__).resolve().parent / "registry.toml"
REGISTRY_ENV = "GUI_AGENT_MODEL_REGISTRY"

_FAMILY_KEYS = {"description", "prompt", "parser", "coordinates", "min_pixels", "max_pixels",
                "match", "model_types", "repo", "generation"}
_GENERATION_KEYS = {"max_new_tokens", "temperature", "top_p", "stop", "extra"}


@dataclass(frozen=True)
class ModelFamily:
    name: str
    prompt: str                  # file name under gui_agent/prompts/
    parser: str                  # output adapter name (gui_agent/backends/adapters/)
    coordinates: str             # one of COORDINATE_CONVENTIONS
    min_pixels: int
    max_pixels: int
    generation: GenerationSettings = field(default_factory=GenerationSettings)
    description: str = ""
    match: tuple[str, ...] = ()        # name fragments that identify the family in a repo id
    model_types: tuple[str, ...] = ()  # config.json model_type values (a weaker hint)
    repo: str = ""                     # a Hugging Face repo id of a typical checkpoint
    prompt_text: str = ""              # the prompt itself, when given instead of a file (tests)

    @property
    def budget(self) -> ImageBudget:
        return ImageBudget(self.min_pixels, self.max_pixels)

    def budget_within(self, min_pixels: int | None = None, max_pixels: int | None = None) -> ImageBudget:
        """The family's image budget with explicit overrides (``--min-pixels``/``--max-pixels``)."""
        hi = max_pixels or self.max_pixels
        return ImageBudget(min(min_pixels or self.min_pixels, hi), hi)

    @property
    def convention(self) -> str:
        """How the family's replies give coordinates (one of COORDINATE_CONVENTIONS)."""
        return self.coordinates

    @property
    def prompt_path(self) -> Path:
        return PROMPTS_DIR / self.prompt

    def load_prompt(self) -> str:
        if self.prompt_text:
            return self.prompt_text
        try:
            return self.prompt_path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(
                f"model family {self.name!r}: prompt file {self.prompt_path} cannot be read ({exc})"
            ) from exc


_FIELD = re.compile(r"\{(\w+)\}")


def fill(template: str, **values: object) -> str:
    """``{name}`` fields of a prompt ``template`` replaced by ``values``; other braces kept as
    they are (a prompt may show JSON)."""
    def one(match: re.Match[str]) -> str:
        key = match.group(1)
        return str(values[key]) if key in values else match.group(0)

    return _FIELD.sub(one, template)


def registry_path() -> Path:
    return Path(os.environ.get(REGISTRY_ENV) or DEFAULT_REGISTRY)


def _require(table: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in table:
        raise ConfigError(f"{where}: missing field {key!r}")
    value = table[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise ConfigError(f"{where}: field {key!r} must be {names}, not {value!r}")
    return value


def _strings(table: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: field {key!r} must be a list of strings, not {value!r}")
    return tuple(value)


def _generation(table: Any, where: str) -> GenerationSettings:
    where = f"{where}.generation"
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: must be a table")
    unknown = set(table) - _GENERATION_KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    defaults = GenerationSettings()
    max_new = table.get("max_new_tokens", defaults.max_new_tokens)
    if not isinstance(max_new, int) or isinstance(max_new, bool) or max_new < 1:
        raise ConfigError(f"{where}: max_new_tokens must be a positive integer, not {max_new!r}")
    temperature = table.get("temperature", defaults.temperature)
    if not isinstance(temperature, int | float) or isinstance(temperature, bool) or temperature < 0:
        raise ConfigError(f"{where}: temperature must be a number >= 0, not {temperature!r}")
    top_p = table.get("top_p", defaults.top_p)
    if not isinstance(top_p, int | float) or isinstance(top_p, bool) or not 0 < top_p <= 1:
        raise ConfigError(f"{where}: top_p must be a number in (0, 1], not {top_p!r}")
    extra = table.get("extra", {})
    if not isinstance(extra, dict):
        raise ConfigError(f"{where}: extra must be a table")
    return GenerationSettings(max_new_tokens=max_new, temperature=float(temperature),
                              top_p=float(top_p), stop=_strings(table, "stop", where), extra=extra)


def parse_family(name: str, table: Any, source: str = "registry") -> ModelFamily:
    """One family from its TOML table; raises ConfigError naming the bad field."""
    where = f"{source}: family {name!r}"
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: must be a table")
    unknown = set(table) - _FAMILY_KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    prompt = _require(table, "prompt", str, where)
    if not prompt or Path(prompt).name != prompt:
        raise ConfigError(f"{where}: prompt must be a file name under gui_agent/prompts/, not {prompt!r}")
    parser = _require(table, "parser", str, where)
    if not parser.strip():
        raise ConfigError(f"{where}: parser must not be empty")
    coordinates = _require(table, "coordinates", str, where)
    if coordinates not in COORDINATE_CONVENTIONS:
        raise ConfigError(
            f"{where}: coordinates must be one of {', '.join(COORDINATE_CONVENTIONS)}, not {coordinates!r}"
        )
    min_pixels = _require(table, "min_pixels", int, where)
    max_pixels = _require(table, "max_pixels", int, where)
    if min_pixels < 1 or max_pixels < min_pixels:
        raise ConfigError(
            f"{where}: need 1 <= min_pixels <= max_pixels, not {min_pixels} and {max_pixels}"
        )
    return ModelFamily(
        name=name, prompt=prompt, parser=parser, coordinates=coordinates,
        min_pixels=min_pixels, max_pixels=max_pixels,
        generation=_generation(table.get("generation", {}), where),
        description=str(table.get("description", "")),
        match=tuple(m.lower() for m in _strings(table, "match", where)),
        model_types=_strings(table, "model_types", where),
        repo=str(table.get("repo", "")),
    )


def parse_registry(text: str, source: str = "registry") -> dict[str, ModelFamily]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML ({exc})") from exc
    families = data.get("families")
    if not isinstance(families, dict) or not families:
        raise ConfigError(f"{source}: needs at least one [families.NAME] table")
    return {name: parse_family(name, table, source) for name, table in families.items()}


@functools.cache
def _load_cached(path: Path, mtime_ns: int) -> dict[str, ModelFamily]:
    return parse_registry(path.read_text(encoding="utf-8"), str(path))


def load_registry(path: Path | None = None) -> dict[str, ModelFamily]:
    """Families by name, from ``path`` or ``$GUI_AGENT_MODEL_REGISTRY`` or the registry the package ships."""
    path = Path(path) if path else registry_path()
    try:
        mtime = path.stat().st_mtime_ns
    except OSError as exc:
        raise ConfigError(f"model registry {path} cannot be read ({exc})") from exc
    return dict(_load_cached(path, mtime))


def get_family(name: str, registry: dict[str, ModelFamily] | None = None) -> ModelFamily:
    families = registry if registry is not None else load_registry()
    try:
        return families[name]
    except KeyError:
        raise ConfigError(
            f"unknown model family {name!r}; known: {', '.join(families)} (see `gui-agent models`)"
        ) from None
