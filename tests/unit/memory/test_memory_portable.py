"""A skill exported to one zip file imports into another store intact; bad files are refused."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from PIL import Image

from gui_agent.errors import ConfigError
from gui_agent.memory import MemoryStore, Skill, SkillNameTaken, SkillParameter, SkillStep
from gui_agent.memory.portable import FORMAT, export_skill, import_skill, read_skill_file


@pytest.fixture()
def crop(tmp_path) -> Path:
    path = tmp_path / "crop.png"
    Image.new("RGB", (24, 12), (10, 200, 30)).save(path)
    return path


@pytest.fixture()
def exported(tmp_path, crop) -> Path:
    skill = Skill(
        name="fill form", description="fill the form and save", source="mined",
        parameters=(SkillParameter("who", default="Ann"),
                    SkillParameter("level", kind="choice", choices=("a", "b"))),
        steps=(SkillStep('type("{who}", into="Name")', target="the Name field", ocr_text="Name",
                         crop=str(crop), landmarks=(("Name", 90, -2),), post_text="{who}"),
               SkillStep('click("{level}")', post_region=(1, 2, 3, 4))),
        examples=("fill the form for Bob",),
    )
    with MemoryStore(tmp_path / "a" / "memory.sqlite3") as store:
        store.save_skill(skill)
        store.record_skill_run("fill form", False, [False, None])
        return export_skill(store, "fill form", tmp_path / "fill.zip")


def test_export_then_import_gives_the_same_skill_without_its_statistics(tmp_path, exported, crop):
    with zipfile.ZipFile(exported) as zf:
        assert sorted(zf.namelist()) == ["crops/0.png", "skill.json"]
        doc = json.loads(zf.read("skill.json"))
    assert doc["format"] == FORMAT and doc["skill"]["steps"][0]["crop"] == "crops/0.png"
    with MemoryStore(tmp_path / "b" / "memory.sqlite3") as other:
        got = import_skill(other, exported)
        with MemoryStore(tmp_path / "a" / "memory.sqlite3") as first:
            original = first.skill("fill form")
        assert got.parameters == original.parameters and got.examples == original.examples
        assert [s.action for s in got.steps] == [s.action for s in original.steps]
        assert got.steps[0].landmarks == (("Name", 90, -2),) and got.steps[1].post_region == (1, 2, 3, 4)
        assert other.shot_path(got.steps[0].crop).read_bytes() == crop.read_bytes()
        assert got.stats.runs == 0 and original.stats.runs == 1
        with pytest.raises(SkillNameTaken):
            import_skill(other, exported)
        assert import_skill(other, exported, name="fill form 2").name == "fill form 2"
        assert import_skill(other, exported, replace=True).name == "fill form"


def _rewrite(src: Path, dest: Path, edit=None, drop: str | None = None, extra: dict | None = None) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w") as zout:
        for name in zin.namelist():
            if name == drop:
                continue
            data = zin.read(name)
            if name == "skill.json" and edit is not None:
                doc = json.loads(data)
                edit(doc)
                data = json.dumps(doc).encode()
            zout.writestr(name, data)
        for name, data in (extra or {}).items():
            zout.writestr(name, data)
    return dest


def _set(path: list, value):
    def edit(doc):
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


@pytest.mark.parametrize("how, message", [
    (dict(edit=_set(["format"], "something-else")), "not marked as format"),
    (dict(edit=_set(["version"], 99)), "version 99 is not supported"),
    (dict(edit=_set(["skill", "steps"], "click")), "'steps' has the wrong type"),
    (dict(edit=_set(["skill", "steps", 1, "action"], "launch_rockets()")), "not a valid action"),
    (dict(edit=_set(["skill", "steps", 1, "action"], 'click("{ghost}")')), "undeclared parameter"),
    (dict(edit=_set(["skill", "steps", 0, "crop"], "../../etc/passwd")), "must be a file under crops/"),
    (dict(edit=_set(["skill", "steps", 0, "landmarks"], [["Name", "far"]])), "landmarks"),
    (dict(edit=_set(["skill", "parameters", 1, "kind"], "colour")), "kind must be one of"),
    (dict(edit=_set(["skill", "name"], "")), "invalid skill name"),
    (dict(drop="skill.json"), "skill.json is missing"),
    (dict(drop="crops/0.png"), "not in the archive"),
    (dict(drop="crops/0.png", extra={"crops/0.png": b"not an image"}), "not a readable image"),
])
def test_a_malformed_file_is_refused_with_a_clear_message_and_nothing_is_stored(
        tmp_path, exported, how, message):
    bad = _rewrite(exported, tmp_path / "bad.zip", **how)
    with MemoryStore(tmp_path / "c" / "memory.sqlite3") as store:
        with pytest.raises(ConfigError, match=message) as err:
            import_skill(store, bad)
        assert str(bad) in str(err.value)
        assert store.list_skills(include_flagged=True) == []
        assert not (store.path.parent / "crops").exists() or not any((store.path.parent / "crops").iterdir())


def test_files_that_are_not_skill_archives_are_refused(tmp_path):
    not_zip = tmp_path / "x.zip"
    not_zip.write_bytes(b"\x00garbage" * 10)
    with pytest.raises(ConfigError, match="not a zip archive"):
        read_skill_file(not_zip)
    bad_json = tmp_path / "y.zip"
    with zipfile.ZipFile(bad_json, "w") as zf:
        zf.writestr("skill.json", "{not json")
    with pytest.raises(ConfigError, match="cannot be read"):
        read_skill_file(bad_json)
    with pytest.raises(ConfigError, match="no such skill file"):
        read_skill_file(tmp_path / "missing.zip")
