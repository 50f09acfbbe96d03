"""The model registry (``registry.toml`` beside this module, shipped in the package): each family's prompt, parser, coordinates, budget.

Families are data, not code: adding a fine-tune of a known family is one TOML table. Every
field is checked when the file is read, and a bad one is named with its family and file.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import tomllib
from dataclasses import dataclass, field, replace
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
                "match", "model_types", "repo", "generation", "modes", "agent_prompt",
                "grounding_layout", "vision", "max_images", "language"}
# What a family's model can be used as (``gui-agent models`` shows it; backends/modes.py decides):
#   native-agent  an end-to-end GUI model in its trained loop (UI-TARS)
#   tool-agent    a general VLM through its computer_use function call (Qwen2.5-VL)
#   action-text   a model that writes gui-agent's own action text (targets named, then grounded)
#   planner       a chat model that splits a task into subtasks (the Manager)
#   grounder      a model that points at a described element (the grounding ladder's last rung)
MODES = ("native-agent", "tool-agent", "action-text", "planner", "grounder")
# How a grounding request is laid out, as each model card shows it:
#   image-first        one user turn: the screenshot, then the prompt (UGround, OS-Atlas, ...)
#   text-image-query   one user turn: the prompt, the screenshot, the description (ShowUI)
#   prompt-then-image  a user turn with the prompt, then a user turn with the screenshot (UI-TARS)
#   tool-call          the computer_use tool in the system turn, then the screenshot and the
#                      description (Qwen2.5-VL's computer-use cookbook)
GROUNDING_LAYOUTS = ("image-first", "text-image-query", "prompt-then-image", "tool-call")
# A prompt is a file under gui_agent/prompts/ or a template a maker's package ships, written
# ``package:<module>:<NAME>`` (imported on first use, e.g. package:ui_tars.prompt:GROUNDING_DOUBAO).
PACKAGE_PROMPT = re.compile(r"package:([A-Za-z_][\w.]*):([A-Za-z_]\w*)")
_GENERATION_KEYS = {"max_new_tokens", "temperature", "top_p", "stop", "extra"}


@dataclass(frozen=True)
class ModelFamily:
    name: str
    prompt: str                  # the grounding prompt: a file under prompts/ or package:MODULE:NAME
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
    modes: tuple[str, ...] = ("action-text", "planner", "grounder")  # see MODES
    agent_prompt: str = ""             # the acting prompt of a native or tool-calling agent
    grounding_layout: str = "image-first"  # see GROUNDING_LAYOUTS
    vision: bool = True                # False: a text-only chat model (sees the screen's text only)
    max_images: int = 5                # screenshots kept in an agent's conversation
    language: str = "English"          # the language a prompt asks the Thought to be written in

    def tuned(self, *, min_pixels: int | None = None, max_pixels: int | None = None,
              max_new_tokens: int | None = None, temperature: float | None = None,
              top_p: float | None = None) -> ModelFamily:
        """The family with the given overrides (the settings' --max-pixels, --temperature, ...)."""
        budget = self.budget_within(min_pixels, max_pixels)
        g = self.generation
        generation = replace(g, max_new_tokens=max_new_tokens or g.max_new_tokens,
                             temperature=g.temperature if temperature is None else temperature,
                             top_p=g.top_p if top_p is None else top_p)
        return replace(self, min_pixels=budget.min_pixels, max_pixels=budget.max_pixels,
                       generation=generation)

    def can(self, mode: str) -> bool:
        """Whether the family's model can be used as ``mode`` (one of MODES)."""
        return mode in self.modes

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
        """The grounding prompt (``prompt``), or the prompt text given instead."""
        if self.prompt_text:
            return self.prompt_text
        return load_prompt_source(self.prompt, self.name)

    def load_agent_prompt(self) -> str:
        """The acting prompt of a native or tool-calling agent (``agent_prompt``)."""
        if not self.agent_prompt:
            raise ConfigError(f"model family {self.name!r} has no agent_prompt: it cannot act on "
                              "its own (see `gui-agent models` for what it can be used as)")
        return load_prompt_source(self.agent_prompt, self.name)


def load_prompt_source(source: str, family: str = "") -> str:
    """A prompt from a file under gui_agent/prompts/ or from a maker's package
    (``package:ui_tars.prompt:COMPUTER_USE_DOUBAO``, imported here, on first use)."""
    where = f"model family {family!r}: " if family else ""
    package = PACKAGE_PROMPT.fullmatch(source)
    if package:
        module_name, name = package.groups()
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            dist = module_name.split(".")[0].replace("_", "-")
            raise ConfigError(
                f"{where}the prompt comes from the package {dist!r}, which is not installed "
                f"({exc}): pip install '{dist}' (or gui-agent's vlm extra)") from exc
        text = getattr(module, name, None)
        if not isinstance(text, str):
            raise ConfigError(f"{where}{module_name} has no prompt template {name!r}; "
                              f"is {module_name.split('.')[0]} a supported version?")
        return text
    path = PROMPTS_DIR / source
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{where}prompt file {path} cannot be read ({exc})") from exc


_FIELD = re.compile(r"\{(\w+)\}")


def unfilled_fields(text: str) -> list[str]:
    """The ``{name}`` fields left in a rendered prompt (a rendered prompt should have none)."""
    return _FIELD.findall(text)


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
    prompt = _prompt_source(_require(table, "prompt", str, where), "prompt", where)
    agent_prompt = _prompt_source(table.get("agent_prompt", ""), "agent_prompt", where,
                                  required=False)
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
    modes = _strings(table, "modes", where) if "modes" in table else ModelFamily.modes
    unknown_modes = [m for m in modes if m not in MODES]
    if unknown_modes or not modes:
        raise ConfigError(f"{where}: modes must be a non-empty list of {', '.join(MODES)}, "
                          f"not {list(modes)!r}")
    if ("native-agent" in modes or "tool-agent" in modes) and not agent_prompt:
        raise ConfigError(f"{where}: a native-agent or tool-agent family needs an agent_prompt")
    layout = table.get("grounding_layout", "image-first")
    if layout not in GROUNDING_LAYOUTS:
        raise ConfigError(f"{where}: grounding_layout must be one of "
                          f"{', '.join(GROUNDING_LAYOUTS)}, not {layout!r}")
    vision = table.get("vision", True)
    if not isinstance(vision, bool):
        raise ConfigError(f"{where}: field 'vision' must be true or false, not {vision!r}")
    max_images = table.get("max_images", 5)
    if not isinstance(max_images, int) or isinstance(max_images, bool) or max_images < 1:
        raise ConfigError(f"{where}: max_images must be a positive integer, not {max_images!r}")
    language = table.get("language", "English")
    if not isinstance(language, str) or not language.strip():
        raise ConfigError(f"{where}: language must be a language name, not {language!r}")
    return ModelFamily(
        name=name, prompt=prompt, parser=parser, coordinates=coordinates,
        min_pixels=min_pixels, max_pixels=max_pixels, modes=modes, agent_prompt=agent_prompt,
        grounding_layout=layout, vision=vision, max_images=max_images, language=language,
        generation=_generation(table.get("generation", {}), where),
        description=str(table.get("description", "")),
        match=tuple(m.lower() for m in _strings(table, "match", where)),
        model_types=_strings(table, "model_types", where),
        repo=str(table.get("repo", "")),
    )


def _prompt_source(value: object, key: str, where: str, required: bool = True) -> str:
    """A prompt file name under gui_agent/prompts/ or ``package:MODULE:NAME``."""
    if not isinstance(value, str):
        raise ConfigError(f"{where}: field {key!r} must be str, not {value!r}")
    if not value and not required:
        return ""
    if PACKAGE_PROMPT.fullmatch(value):
        return value
    if not value or Path(value).name != value or value.startswith("package:"):
        raise ConfigError(f"{where}: {key} must be a file name under gui_agent/prompts/ or "
                          f"package:MODULE:NAME, not {value!r}")
    return value


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
