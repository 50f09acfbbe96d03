"""Settings shared by the CLI, the app and batch: defaults < config file < environment < flags.

The config file is TOML at ``<user config dir>/gui-agent/config.toml`` (``gui-agent config path``
prints it); environment variables are ``GUI_AGENT_<FIELD>`` in upper case.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .errors import ConfigError

SAFETY_MODES = ("ask", "refuse", "allow")
MODEL_BACKENDS = ("transformers", "openai")
DEVICES = ("auto", "cpu", "cuda", "mps")
DTYPES = ("auto", "float32", "float16", "bfloat16")
_PIXEL_FIELDS = ("min_pixels", "max_pixels")
_APP_NAME = re.compile(r"[A-Za-z0-9_+][A-Za-z0-9._+-]*")


def user_config_dir() -> Path:
    import platformdirs

    return Path(os.environ.get("GUI_AGENT_CONFIG_DIR") or platformdirs.user_config_dir("gui-agent"))


def user_data_dir() -> Path:
    import platformdirs

    return Path(os.environ.get("GUI_AGENT_DATA_DIR") or platformdirs.user_data_dir("gui-agent"))


@dataclass(frozen=True)
class Settings:
    max_steps: int = 30
    max_seconds: float = 300.0
    safety: str = "ask"                 # what to do with risky actions: ask | refuse | allow
    allow: tuple[str, ...] = ()         # risky words pre-approved ("delete", "send", ...)
    allow_apps: tuple[str, ...] = ()    # programs open_app may start besides the desktop's apps
    monitor: int = 1
    settle_timeout: float = 3.0         # seconds to wait for two equal frames after an action
    settle_interval: float = 0.05
    settle_change_grace: float = 1.5   # when an action changed nothing yet, wait this long for a change
    stop_hotkey: str = "<ctrl>+<alt>+<esc>"
    runs_dir: Path = field(default_factory=lambda: user_data_dir() / "runs")
    save_screenshots: bool = True
    use_memory: bool = True             # remember runs, recall skills (off: --no-memory)
    memory_path: Path | None = None     # the memory database; None: $GUI_AGENT_MEMORY or the data dir
    auto_skills: bool = True            # run a skill when a task confidently matches one
    mine_skills: bool = True            # turn action sequences that recur into shortcut skills
    memory_keep_days: float = 30.0      # episodes (and their screenshots) older than this are pruned; 0: keep
    # A vision-language model; without ``model`` the offline planner plans.
    model: str | None = None            # a local folder or a Hugging Face repo id (or a server's model name)
    family: str | None = None           # a model registry family (gui-agent models); None: guessed from the model
    backend: str | None = None          # transformers | openai; None: openai when base_url is set
    base_url: str | None = None         # an OpenAI-compatible server (vLLM, llama.cpp, Ollama, ...)
    api_key_env: str | None = None      # the environment variable holding that server's API key
    grounding_model: str | None = None  # a separate pointing model, the grounding ladder's last rung
    grounding_family: str | None = None
    grounding_zoom: bool = False        # refine the grounding model's point on a zoomed-in crop
    allow_download: bool = False        # fetch model weights from the Hugging Face hub if missing
    device: str | None = None           # auto | cpu | cuda[:N] | mps
    dtype: str | None = None            # auto | float32 | float16 | bfloat16
    min_pixels: int | None = None       # image budget override (default: the family's)
    max_pixels: int | None = None
    # A planner model (the Manager of the hierarchical mode): any chat model, text-only or VL.
    planner_model: str | None = None    # a folder, a Hugging Face repo id or a server's model name
    planner_family: str | None = None   # a registry family (default: guessed; "chat" for text-only)
    planner_backend: str | None = None  # transformers | openai; None: openai when planner_base_url is set
    planner_base_url: str | None = None # the planner's OpenAI-compatible server (never base_url's)
    # Sampling overrides (default: the family's, as its makers serve it).
    max_new_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    # The platform's accessibility tree (AT-SPI on Linux) read beside the pixels (off: --no-a11y).
    accessibility: bool = True
    a11y_budget: float = 1.0            # at most this many seconds to read the tree per step

    def __post_init__(self) -> None:
        if self.safety not in SAFETY_MODES:
            raise ConfigError(f"safety must be one of {', '.join(SAFETY_MODES)}, not {self.safety!r}")
        if self.max_steps < 1:
            raise ConfigError("max_steps must be at least 1")
        if self.max_seconds <= 0:
            raise ConfigError("max_seconds must be positive")
        if self.monitor < 0:
            raise ConfigError("monitor must be 0 (all monitors) or a monitor number from 1")
        if self.a11y_budget <= 0:
            raise ConfigError("a11y_budget must be a positive number of seconds")
        object.__setattr__(self, "allow_apps", _check_app_names(self.allow_apps))
        self._check_model_settings()

    def _check_model_settings(self) -> None:
        if self.backend is not None and self.backend not in MODEL_BACKENDS:
            raise ConfigError(f"backend must be one of {', '.join(MODEL_BACKENDS)}, not {self.backend!r}")
        if self.planner_backend is not None and self.planner_backend not in MODEL_BACKENDS:
            raise ConfigError(f"planner_backend must be one of {', '.join(MODEL_BACKENDS)}, "
                              f"not {self.planner_backend!r}")
        if self.max_new_tokens is not None and self.max_new_tokens < 1:
            raise ConfigError(f"max_new_tokens must be at least 1, not {self.max_new_tokens}")
        if self.temperature is not None and self.temperature < 0:
            raise ConfigError(f"temperature must be 0 (greedy) or more, not {self.temperature}")
        if self.top_p is not None and not 0 < self.top_p <= 1:
            raise ConfigError(f"top_p must be in (0, 1], not {self.top_p}")
        if self.device is not None and self.device.split(":")[0] not in DEVICES:
            raise ConfigError(f"device must be one of {', '.join(DEVICES)} (cuda:N for one GPU), "
                              f"not {self.device!r}")
        if self.dtype is not None and self.dtype not in DTYPES:
            raise ConfigError(f"dtype must be one of {', '.join(DTYPES)}, not {self.dtype!r}")
        for name in _PIXEL_FIELDS:
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ConfigError(f"{name} must be a positive pixel count, not {value}")
        if self.min_pixels and self.max_pixels and self.min_pixels > self.max_pixels:
            raise ConfigError(f"min_pixels ({self.min_pixels}) must not exceed max_pixels ({self.max_pixels})")

    def with_overrides(self, **values: Any) -> Settings:
        """A copy with the given non-None values applied (command-line flags)."""
        return replace(self, **{k: v for k, v in values.items() if v is not None})


def _check_app_names(names: Any) -> tuple[str, ...]:
    """allow_apps: program names (looked up on PATH), never paths."""
    items = [names] if isinstance(names, str) else names
    if not isinstance(items, list | tuple):
        raise ConfigError(f"allow_apps must be a list of program names, not {names!r}")
    out: list[str] = []
    for item in items:
        name = item.strip() if isinstance(item, str) else item
        if not isinstance(name, str) or not _APP_NAME.fullmatch(name):
            raise ConfigError(
                f"allow_apps: {item!r} is not a program name; write names found on PATH such as "
                '"gedit" or "my-tool" (letters, digits, ".", "_", "+", "-"; no paths or spaces)')
        if name not in out:
            out.append(name)
    return tuple(out)


def _convert(name: str, kind: Any, raw: Any, origin: str) -> Any:
    kind_name = kind if isinstance(kind, str) else getattr(kind, "__name__", str(kind))
    kind_name = kind_name.removesuffix(" | None")
    if name in _PIXEL_FIELDS and isinstance(raw, str):
        from .backends.images import parse_budget

        return parse_budget(raw)
    try:
        if kind_name == "int":
            return int(raw)
        if kind_name == "float":
            return float(raw)
        if kind_name == "bool":
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
        if kind_name == "Path":
            return Path(str(raw)).expanduser()
        if kind_name.startswith("tuple"):
            items = raw if isinstance(raw, list) else str(raw).split(",")
            return tuple(str(i).strip() for i in items if str(i).strip())
        return str(raw)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{origin}: {name} has an invalid value {raw!r}") from exc


def load_settings(path: Path | None = None, env: dict[str, str] | None = None) -> Settings:
    """Defaults, then the config file (if it exists), then GUI_AGENT_* environment variables."""
    env = os.environ if env is None else env
    path = path or user_config_dir() / "config.toml"
    values: dict[str, Any] = {}
    known = {f.name: f for f in fields(Settings)}
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: not a valid TOML file ({exc})") from exc
        section = data.get("agent", data)
        for key, raw in section.items():
            if not isinstance(raw, dict):
                if key not in known:
                    raise ConfigError(f"{path}: unknown setting {key!r}; known: {', '.join(known)}")
                values[key] = _convert(key, known[key].type, raw, str(path))
    for name, f in known.items():
        raw = env.get(f"GUI_AGENT_{name.upper()}")
        if raw is not None:
            values[name] = _convert(name, f.type, raw, f"GUI_AGENT_{name.upper()}")
    return Settings(**values)
