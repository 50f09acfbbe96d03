"""A skill as one portable file: a zip holding ``skill.json`` and its image crops ``crops/N.png``.

Import checks everything before touching the store: the zip itself, the format marker and
version, every field's type, that each step is a valid action, and that each crop named is a
readable PNG inside the archive. Anything wrong is a ConfigError naming the file and the fault.
"""

from __future__ import annotations

import io
import json
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from ..errors import ConfigError, GuiAgentError
from ..private_files import NotWritable, describe, is_write_error, open_private
from .models import Skill, SkillParameter, SkillStep
from .rows import skill_to_json
from .store import MemoryStore

FORMAT = "gui-agent-skill"
FORMAT_VERSION = 1
MAX_MEMBER_BYTES = 20 * 1024 * 1024
MAX_TOTAL_BYTES = 100 * 1024 * 1024


def export_skill(store: MemoryStore, name: str, file: Path) -> Path:
    """Write skill ``name`` to ``file`` (0600; statistics stay behind); the file's path. A secret
    parameter has no value to ship: the skill's steps and parameters hold none."""
    skill = store.require_skill(name)
    file = Path(file)
    crop_names: list[str | None] = []
    members: dict[str, bytes] = {}
    for i, step in enumerate(skill.steps):
        if step.crop and store.shot_path(step.crop).is_file():
            member = f"crops/{i}.png"
            members[member] = store.shot_path(step.crop).read_bytes()
            crop_names.append(member)
        else:
            crop_names.append(None)
    doc = {"format": FORMAT, "version": FORMAT_VERSION, "skill": skill_to_json(skill, crop_names)}
    tmp = file.with_name(file.name + ".tmp")
    try:
        with open_private(tmp, "wb") as f, zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("skill.json", json.dumps(doc, indent=2, ensure_ascii=False))
            for member, data in members.items():
                zf.writestr(member, data)
        tmp.replace(file)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        if is_write_error(exc):
            fix = "export to a folder you can write to"
            raise NotWritable(file.parent, describe(exc), fix) from None
        raise ConfigError(f"{file}: cannot write the skill file ({exc})") from exc
    return file


def _bad(file: Path, why: str) -> ConfigError:
    return ConfigError(f"{file}: not a usable gui-agent skill file: {why}")


def _field(data: dict[str, Any], key: str, kinds: type | tuple[type, ...], where: str, file: Path,
           required: bool = False) -> Any:
    value = data.get(key)
    if value is None:
        if required:
            raise _bad(file, f"{where} lacks {key!r}")
        return None
    allowed = kinds if isinstance(kinds, tuple) else (kinds,)
    if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
        raise _bad(file, f"{where}: {key!r} has the wrong type ({type(value).__name__})")
    return value


def read_skill_file(file: Path) -> tuple[Skill, dict[str, bytes]]:
    """The skill in ``file`` and its crop images by member name; ConfigError if malformed."""
    file = Path(file)
    if not file.is_file():
        raise ConfigError(f"{file}: no such skill file")
    if not zipfile.is_zipfile(file):
        raise _bad(file, "it is not a zip archive")
    try:
        with zipfile.ZipFile(file) as zf:
            infos = {i.filename: i for i in zf.infolist()}
            if "skill.json" not in infos:
                raise _bad(file, "skill.json is missing")
            if sum(i.file_size for i in infos.values()) > MAX_TOTAL_BYTES or any(
                    i.file_size > MAX_MEMBER_BYTES for i in infos.values()):
                raise _bad(file, "it is too large")
            doc = json.loads(zf.read("skill.json").decode("utf-8"))
            if not isinstance(doc, dict) or doc.get("format") != FORMAT:
                raise _bad(file, f"skill.json is not marked as format {FORMAT!r}")
            version = doc.get("version")
            if not isinstance(version, int) or version > FORMAT_VERSION or version < 1:
                raise _bad(file, f"format version {version!r} is not supported (this gui-agent "
                           f"reads version 1 to {FORMAT_VERSION}); upgrade gui-agent")
            raw = doc.get("skill")
            if not isinstance(raw, dict):
                raise _bad(file, "skill.json has no 'skill' object")
            skill, crop_members = _parse_skill(raw, file)
            crops: dict[str, bytes] = {}
            for member in crop_members:
                if member not in infos:
                    raise _bad(file, f"crop {member!r} is named but not in the archive")
                crops[member] = _check_png(zf.read(member), member, file)
    except (zipfile.BadZipFile, UnicodeDecodeError, json.JSONDecodeError, OSError) as exc:
        raise _bad(file, f"it cannot be read ({exc})") from exc
    return skill, crops


def _parse_skill(raw: dict[str, Any], file: Path) -> tuple[Skill, list[str]]:
    params_raw = _field(raw, "parameters", list, "skill", file) or []
    steps_raw = _field(raw, "steps", list, "skill", file, required=True)
    examples = _field(raw, "examples", list, "skill", file) or []
    if not all(isinstance(e, str) for e in examples):
        raise _bad(file, "examples must be texts")
    crop_members: list[str] = []
    try:
        params = []
        for i, p in enumerate(params_raw, 1):
            if not isinstance(p, dict):
                raise _bad(file, f"parameter {i} is not an object")
            where = f"parameter {i}"
            choices = _field(p, "choices", list, where, file) or []
            params.append(SkillParameter(
                name=_field(p, "name", str, where, file, required=True),
                kind=_field(p, "kind", str, where, file) or "text",
                default=_field(p, "default", (str, int, float), where, file),
                choices=tuple(str(c) for c in choices),
                description=_field(p, "description", str, where, file) or "",
                secret=bool(_field(p, "secret", bool, where, file))))
        steps = []
        for i, s in enumerate(steps_raw, 1):
            if not isinstance(s, dict):
                raise _bad(file, f"step {i} is not an object")
            where = f"step {i}"
            crop = _field(s, "crop", str, where, file)
            if crop is not None:
                if not crop.startswith("crops/") or "/" in crop[6:] or ".." in crop:
                    raise _bad(file, f"{where}: crop {crop!r} must be a file under crops/")
                crop_members.append(crop)
            landmarks = _field(s, "landmarks", list, where, file) or []
            if not all(isinstance(m, list) and len(m) == 3 and isinstance(m[0], str)
                       and all(isinstance(v, int) and not isinstance(v, bool) for v in m[1:])
                       for m in landmarks):
                raise _bad(file, f"{where}: landmarks must be [text, dx, dy] triples")
            region = _field(s, "post_region", list, where, file)
            if region is not None and not (len(region) == 4 and all(
                    isinstance(v, int) and not isinstance(v, bool) for v in region)):
                raise _bad(file, f"{where}: post_region must be [left, top, right, bottom]")
            box = _field(s, "box", list, where, file)
            if box is not None and not (len(box) == 4 and all(
                    isinstance(v, int) and not isinstance(v, bool) for v in box)):
                raise _bad(file, f"{where}: box must be [left, top, right, bottom]")
            steps.append(SkillStep(
                action=_field(s, "action", str, where, file, required=True),
                target=_field(s, "target", str, where, file),
                ocr_text=_field(s, "ocr_text", str, where, file), crop=crop,
                landmarks=tuple(tuple(m) for m in landmarks),
                post_text=_field(s, "post_text", str, where, file),
                post_region=tuple(region) if region else None,
                box=tuple(box) if box else None))
        skill = Skill(name=_field(raw, "name", str, "skill", file, required=True),
                      description=_field(raw, "description", str, "skill", file) or "",
                      source=_field(raw, "source", str, "skill", file) or "imported",
                      parameters=tuple(params), steps=tuple(steps), examples=tuple(examples))
        skill.check_actions()
    except ConfigError as exc:
        if str(exc).startswith(f"{file}:"):
            raise
        raise _bad(file, str(exc)) from exc
    return skill, crop_members


def _check_png(data: bytes, member: str, file: Path) -> bytes:
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as img:
            if img.format != "PNG":
                raise _bad(file, f"{member} is not a PNG image")
            img.verify()
    except GuiAgentError:
        raise
    except Exception as exc:  # PIL raises many kinds for a broken image
        raise _bad(file, f"{member} is not a readable image ({exc})") from exc
    return data


def import_skill(store: MemoryStore, file: Path, *, name: str | None = None,
                 replace: bool = False) -> Skill:
    """Add the skill in ``file`` (as ``name`` when given); SkillNameTaken on a clash unless
    ``replace``. Nothing is written when the file is malformed."""
    from dataclasses import replace as with_fields

    skill, crops = read_skill_file(file)
    if name:
        skill = with_fields(skill, name=name)
    with tempfile.TemporaryDirectory() as tmp:
        steps = []
        for i, step in enumerate(skill.steps):
            if step.crop:
                path = Path(tmp) / f"{i}.png"
                path.write_bytes(crops[step.crop])
                step = with_fields(step, crop=str(path))
            steps.append(step)
        store.save_skill(with_fields(skill, steps=tuple(steps)), replace=replace)
    return store.require_skill(skill.name)
