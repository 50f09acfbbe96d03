"""The demonstration folder on disk: write it while recording, load and validate it to compile.

See the package docstring for the format. Loading checks every field and names the file and
line of anything wrong (ConfigError).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from PIL import Image

from ..errors import ConfigError
from .events import BUTTONS, DIRECTIONS, EVENT_KINDS, SECRET_RE, DemoEvent, secret_placeholder

FORMAT = "gui-agent-demonstration"
VERSION = 1
FRAME_RE = re.compile(r"^[0-9]{4,}-(before|after)\.png$")
PARAM_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class DemoParameter:
    name: str
    event: int                 # index of the type event whose text it holds
    label: str | None = None   # the field's label when it was recorded
    secret: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "event": self.event, "label": self.label, "secret": self.secret}


@dataclass(frozen=True)
class DemoMeta:
    name: str
    created: str                                  # ISO 8601, UTC
    created_at: float                             # time.time() when recording began
    screen: dict[str, Any]                        # monitor, left, top, width, height, scale
    window: dict[str, Any] | None = None          # title, box [left, top, width, height]
    stop_reason: str = ""
    duration: float = 0.0
    stop_hotkey: str | None = None
    parameters: tuple[DemoParameter, ...] = ()
    platform: str = ""
    events: int = 0
    version: int = VERSION

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": self.version, "name": self.name,
                "created": self.created, "created_at": self.created_at,
                "duration": round(self.duration, 3), "screen": self.screen, "window": self.window,
                "stop_reason": self.stop_reason, "stop_hotkey": self.stop_hotkey,
                "events": self.events, "platform": self.platform,
                "parameters": [p.to_json() for p in self.parameters]}


@dataclass(frozen=True)
class Demonstration:
    folder: Path
    meta: DemoMeta
    events: tuple[DemoEvent, ...]

    def frame_path(self, name: str) -> Path:
        return self.folder / "frames" / name

    def frame(self, name: str) -> Image.Image:
        path = self.frame_path(name)
        try:
            with Image.open(path) as image:
                return image.convert("RGB")
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{path}: not a readable PNG image ({exc})") from exc

    def parameter(self, event_index: int) -> DemoParameter | None:
        return next((p for p in self.meta.parameters if p.event == event_index), None)


# -- writing -------------------------------------------------------------------------
class DemoWriter:
    """Creates the folder, appends events as they come, rewrites meta.json atomically."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        if self.folder.exists() and any(self.folder.iterdir()):
            raise ConfigError(f"{self.folder} already exists and is not empty: choose another "
                              "folder for the demonstration")
        (self.folder / "frames").mkdir(parents=True, exist_ok=True)
        self._events: IO[str] = (self.folder / "events.jsonl").open("a", encoding="utf-8")

    def save_frame(self, image: Image.Image, name: str) -> str:
        image.save(self.folder / "frames" / name, format="PNG", compress_level=1)
        return name

    def append(self, event: DemoEvent) -> None:
        self._events.write(json.dumps(event.to_json(), ensure_ascii=False) + "\n")
        self._events.flush()

    def write_meta(self, meta: DemoMeta) -> None:
        path = self.folder / "meta.json"
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(meta.to_json(), indent=2, ensure_ascii=False) + "\n",
                       encoding="utf-8")
        os.replace(tmp, path)

    def close(self) -> None:
        self._events.close()


# -- loading -------------------------------------------------------------------------
class _Fields:
    """Typed access to one JSON object; errors say where."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: expected a JSON object, got {type(data).__name__}")
        self.data, self.where = data, where

    def get(self, key: str, kinds: type | tuple[type, ...], *, required: bool = False,
            default: Any = None) -> Any:
        if key not in self.data or self.data[key] is None:
            if required:
                raise ConfigError(f"{self.where}: missing {key!r}")
            return default
        value = self.data[key]
        if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
            raise ConfigError(f"{self.where}: {key!r} must not be true/false")
        if not isinstance(value, kinds):
            raise ConfigError(f"{self.where}: {key!r} has the wrong type ({type(value).__name__})")
        return value

    def ints(self, key: str, count: int, *, required: bool = False) -> tuple[int, ...] | None:
        value = self.get(key, list, required=required)
        if value is None:
            return None
        if len(value) != count or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            raise ConfigError(f"{self.where}: {key!r} must be a list of {count} integers")
        return tuple(value)


def _load_meta(folder: Path) -> DemoMeta:
    path = folder / "meta.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{folder} is not a demonstration folder: it has no meta.json") from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: not valid JSON ({exc})") from exc
    f = _Fields(raw, str(path))
    if f.get("format", str) not in (None, FORMAT):
        raise ConfigError(f"{path}: format must be {FORMAT!r}")
    version = f.get("version", int, required=True)
    if version != VERSION:
        raise ConfigError(f"{path}: version {version} is not supported (this gui-agent reads {VERSION})")
    screen = f.get("screen", dict, required=True)
    s = _Fields(screen, f"{path}: screen")
    for key in ("width", "height"):
        if s.get(key, int, required=True) <= 0:
            raise ConfigError(f"{path}: screen {key} must be positive")
    s.get("left", int), s.get("top", int)
    if not s.get("scale", (int, float), default=1.0) > 0:
        raise ConfigError(f"{path}: screen scale must be positive")
    params: list[DemoParameter] = []
    for i, item in enumerate(f.get("parameters", list, default=[]), 1):
        p = _Fields(item, f"{path}: parameter {i}")
        name = p.get("name", str, required=True)
        if not PARAM_RE.match(name):
            raise ConfigError(f"{path}: parameter {i}: invalid name {name!r} (use letters, digits and '_')")
        params.append(DemoParameter(name, p.get("event", int, required=True), p.get("label", str),
                                    bool(p.get("secret", bool, default=False))))
    names = [p.name for p in params]
    if len(set(names)) != len(names):
        raise ConfigError(f"{path}: a parameter name is used twice")
    window = f.get("window", dict)
    return DemoMeta(f.get("name", str, required=True), f.get("created", str, default=""),
                    float(f.get("created_at", (int, float), default=0.0)), dict(screen), window,
                    f.get("stop_reason", str, default=""), float(f.get("duration", (int, float), default=0.0)),
                    f.get("stop_hotkey", str), tuple(params), f.get("platform", str, default=""),
                    f.get("events", int, default=0), version)


def _frame_name(f: _Fields, key: str, folder: Path) -> str | None:
    name = f.get(key, str)
    if name is None:
        return None
    if not FRAME_RE.match(name):
        raise ConfigError(f"{f.where}: {key} frame {name!r} must be a name like 0001-{key}.png")
    if not (folder / "frames" / name).is_file():
        raise ConfigError(f"{f.where}: {key} frame frames/{name} does not exist")
    return name


def _event(raw: Any, where: str, folder: Path) -> DemoEvent:
    f = _Fields(raw, where)
    kind = f.get("kind", str, required=True)
    if kind not in EVENT_KINDS:
        raise ConfigError(f"{where}: unknown kind {kind!r}; known: {', '.join(EVENT_KINDS)}")
    t = float(f.get("t", (int, float), required=True))
    point = f.ints("point", 2, required=kind in ("click", "scroll", "drag"))
    button = f.get("button", str, default="left" if kind in ("click", "drag") else None)
    if button is not None and button not in BUTTONS:
        raise ConfigError(f"{where}: button must be one of {', '.join(BUTTONS)}")
    clicks = f.get("clicks", int, default=1)
    if not 1 <= clicks <= 3:
        raise ConfigError(f"{where}: clicks must be 1, 2 or 3")
    text, secret = f.get("text", str, required=kind == "type"), f.get("secret", str)
    if secret is not None and (not PARAM_RE.match(secret) or text != secret_placeholder(secret)):
        raise ConfigError(f"{where}: a secret's text must be the placeholder {{secret:NAME}}")
    if secret is None and text is not None and SECRET_RE.match(text):
        raise ConfigError(f"{where}: text {text!r} is a secret placeholder but 'secret' is not set")
    keys = f.get("keys", list, required=kind in ("key", "hotkey"), default=[])
    if not all(isinstance(k, str) and k for k in keys) or (kind in ("key", "hotkey") and not keys):
        raise ConfigError(f"{where}: keys must be a non-empty list of key names")
    direction, amount = f.get("direction", str), f.get("amount", int, default=0)
    if kind == "scroll" and (direction not in DIRECTIONS or amount < 1):
        raise ConfigError(f"{where}: a scroll needs a direction ({', '.join(DIRECTIONS)}) and an amount >= 1")
    box = f.ints("window_box", 4)
    return DemoEvent(kind, t, float(f.get("end", (int, float), default=t)), point=point, button=button,
                     clicks=clicks, text=text, keys=tuple(keys), direction=direction, amount=amount,
                     end_point=f.ints("end_point", 2, required=kind == "drag"),
                     window=f.get("window", str), window_box=box, secret=secret,
                     before=_frame_name(f, "before", folder), after=_frame_name(f, "after", folder),
                     index=f.get("index", int, default=0))


def load_demo(folder: Path | str) -> Demonstration:
    """Read and validate a demonstration folder (ConfigError naming the file and line)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ConfigError(f"no demonstration folder at {folder}")
    meta = _load_meta(folder)
    path = folder / "events.jsonl"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise ConfigError(f"{folder} is not a complete demonstration: it has no events.jsonl") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it ({exc})") from exc
    events: list[DemoEvent] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}: line {number}"
        try:
            raw = json.loads(line)
        except ValueError as exc:
            raise ConfigError(f"{where}: not valid JSON ({exc})") from exc
        event = _event(raw, where, folder)
        events.append(event if event.index else _with_index(event, len(events) + 1))
    if not events:
        raise ConfigError(f"{path}: the demonstration has no events (nothing was recorded)")
    known = {e.index for e in events}
    for p in meta.parameters:
        if p.event not in known:
            raise ConfigError(f"{folder / 'meta.json'}: parameter {p.name!r} names event {p.event}, "
                              "which is not in events.jsonl")
    return Demonstration(folder, meta, tuple(events))


def _with_index(event: DemoEvent, index: int) -> DemoEvent:
    from dataclasses import replace

    return replace(event, index=index)
