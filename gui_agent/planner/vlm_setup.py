"""From settings to a model-backed planner and grounding ladder (the CLI, app and batch share it).

``model_parts(settings)`` loads the planning model (``settings.model``) and, when one is set,
a separate grounding model (``settings.grounding_model``); the grounding ladder gets a VLM rung
last (the grounding model, or else the planning model). A family's registry entry gives the
prompt, the reply adapter, the coordinate convention, the image budget and the sampling.
"""

from __future__ import annotations

import logging
from typing import Any

from ..backends.base import Backend, GenerationSettings
from ..backends.images import DEFAULT_MAX_PIXELS, DEFAULT_MIN_PIXELS, ImageBudget
from ..config import Settings
from ..deadline import Deadline
from .base import Planner

log = logging.getLogger(__name__)

# Families whose prompts are general enough to take the screen's OCR text as extra context.
SCREEN_TEXT_PARSERS = ("gui-agent", "qwen2.5-vl")


def family_budget(family: object, min_pixels: int | None = None,
                  max_pixels: int | None = None) -> ImageBudget:
    """The family's image budget, with explicit overrides."""
    hi = max_pixels or getattr(family, "max_pixels", None) or DEFAULT_MAX_PIXELS
    lo = min_pixels or getattr(family, "min_pixels", None) or DEFAULT_MIN_PIXELS
    return ImageBudget(min(lo, hi), hi)


def family_convention(family: object) -> str:
    """The coordinate convention of the family's replies."""
    conv = getattr(family, "coordinates", None)
    if conv:
        return str(conv)
    from ..backends.adapters import default_convention

    return default_convention(str(getattr(family, "name", "")))


def family_generation(family: object) -> GenerationSettings | None:
    gen = getattr(family, "generation", None)
    if gen is None or isinstance(gen, GenerationSettings):
        return gen
    if isinstance(gen, dict):
        known = {k: v for k, v in gen.items() if k in ("max_new_tokens", "temperature", "top_p")}
        return GenerationSettings(**known)
    return None


def load_backend(model: str, family: str | None, settings: Settings) -> tuple[Backend, Any]:
    """(backend, ModelFamily) for ``model`` through the backend factory (tests replace this)."""
    from ..backends.factory import create_backend

    backend = settings.backend or ("openai" if settings.base_url else "transformers")
    extra = {"api_key_env": settings.api_key_env} if settings.api_key_env else {}
    return create_backend(model, family, backend=backend, base_url=settings.base_url,
                          allow_download=settings.allow_download, device=settings.device,
                          dtype=settings.dtype, **extra)


def model_parts(settings: Settings, parser: object | None = None,
                deadline: Deadline | None = None) -> tuple[Planner | None, Any, Any]:
    """(planner or None, ladder, parser) for the model settings.

    The planner is None when only a grounding model is set (the offline planner plans then).
    ``deadline`` is the run's one time limit: the planner and the grounder share it.
    """
    from ..grounding.default import default_ladder
    from ..grounding.vlm_grounder import VlmGrounder, ZoomSettings, with_vlm_rung
    from .prompting import PromptSettings, parser_screen_text
    from .vlm import vlm_planner

    ladder, parser = default_ladder(parser)
    planner: Planner | None = None
    grounding: tuple[Backend, Any] | None = None
    if settings.model:
        backend, family = load_backend(settings.model, settings.family, settings)
        budget = family_budget(family, settings.min_pixels, settings.max_pixels)
        reads_text = str(getattr(family, "parser", "")) in SCREEN_TEXT_PARSERS
        planner = vlm_planner(backend, family, settings=PromptSettings(budget=budget),
                              screen_text=parser_screen_text(parser) if reads_text else None,
                              deadline=deadline)
        grounding = (backend, family)
        log.info("planning with %s (family %s)", settings.model, getattr(family, "name", "?"))
    if settings.grounding_model:
        grounding = load_backend(settings.grounding_model, settings.grounding_family, settings)
        log.info("grounding with %s", settings.grounding_model)
    if grounding is not None:
        g_backend, g_family = grounding
        budget = family_budget(g_family, settings.min_pixels, settings.max_pixels)
        zoom = ZoomSettings() if settings.grounding_zoom else None
        grounder = VlmGrounder(g_backend, g_family, budget=budget, zoom=zoom, deadline=deadline)
        ladder = with_vlm_rung(ladder, grounder)
    return planner, ladder, parser
