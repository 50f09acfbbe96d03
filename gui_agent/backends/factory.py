"""One call from command-line choices to a ready backend and its model family."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError
from .base import Backend
from .local_models import guess_family, read_config, resolve_model
from .registry import ModelFamily, get_family, load_registry

if TYPE_CHECKING:
    from ..deadline import Deadline

log = logging.getLogger(__name__)

BACKENDS = ("transformers", "openai")
FALLBACK_FAMILY = "gui-agent"
BASE_URL_ENV = "GUI_AGENT_BASE_URL"


def choose_family(family: str | None, model: str | None, folder: str | None = None) -> ModelFamily:
    """``family`` when named, else guessed from the model's name or config, else ``gui-agent``."""
    registry = load_registry()
    if family:
        return get_family(family, registry)
    config = read_config(Path(folder)) if folder and Path(folder).is_dir() else {}
    guessed = None
    if model:
        guessed = guess_family(model, config, registry)
        if guessed is None and folder and Path(folder).name != Path(model).name:
            guessed = guess_family(Path(folder).name, config, registry)
    if guessed is None:
        log.warning("could not tell the model family of %r; using %r (pass --family to choose)",
                    model, FALLBACK_FAMILY)
        guessed = FALLBACK_FAMILY
    return get_family(guessed, registry)


def create_backend(
    model: str | None,
    family: str | None = None,
    backend: str = "transformers",
    base_url: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    allow_download: bool = False,
    device: str | None = None,
    dtype: str | None = None,
    deadline: Deadline | None = None,
    tuning: dict[str, float | int | None] | None = None,
) -> tuple[Backend, ModelFamily]:
    """A backend for ``model`` and the registry family that says how to prompt and parse it.

    transformers: ``model`` is a folder or a Hugging Face repo id already in the local cache
    (downloaded only with ``allow_download``); the weights load on the first ``generate``.
    openai: ``model`` is the name the server serves; when omitted and the server serves
    exactly one model, that one. ``deadline`` bounds every call the backend makes when
    ``generate`` is given none (the run's one :class:`~gui_agent.deadline.Deadline`).
    ``tuning``: :meth:`ModelFamily.tuned` overrides (image budget, sampling), applied to the
    family the backend and its planner share, so both resize images alike.
    """
    tuning = {k: v for k, v in (tuning or {}).items() if v is not None}
    if backend not in BACKENDS:
        raise ConfigError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    if backend == "transformers":
        if not model:
            raise ConfigError(
                "the transformers backend needs --model: a model folder or a Hugging Face repo id "
                "in the local cache (`gui-agent models` lists what is here)")
        from .transformers_backend import TransformersBackend

        folder = resolve_model(model, allow_download)
        chosen = choose_family(family, model, folder).tuned(**tuning)
        return TransformersBackend(folder, chosen, device=device, dtype=dtype,
                                   allow_download=allow_download, deadline=deadline), chosen

    from .openai_backend import DEFAULT_BASE_URL, OpenAIBackend

    url = base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL
    if not model:
        served = OpenAIBackend("", url, api_key_env=api_key_env, deadline=deadline).list_models()
        if len(served) != 1:
            listed = ", ".join(served) if served else "none listed"
            raise ConfigError(f"name the model with --model; the server at {url} serves: {listed}")
        model = served[0]
    chosen = choose_family(family, model).tuned(**tuning)
    return OpenAIBackend(model, url, chosen, api_key_env=api_key_env, deadline=deadline), chosen
