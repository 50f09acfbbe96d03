"""The compiler on a synthetic demonstration (Pillow screens of a login form), and the secret
detector on synthetic fields. Uses the real screen parser (OCR), loaded once for the module."""

from __future__ import annotations

import argparse
import json
import zipfile
from pathlib import Path

import pytest
from PIL import Image

from gui_agent.errors import ConfigError
from gui_agent.geometry import Point
from gui_agent.memory import MemoryStore
from gui_agent.recording import compile_demo, load_demo
from gui_agent.recording.demo_folder import DemoMeta, DemoParameter, DemoWriter
from gui_agent.recording.events import DemoEvent
from gui_agent.recording.secrets import SecretDetector, is_secret_label
from tests.support.login_demo import (
    BUTTON,
    PASS_FIELD,
    SECRET,
    SIZE,
    USER_FIELD,
    centre,
    screen,
    write_demo,
)


@pytest.fixture(scope="module")
def parser():
    from gui_agent.parsing.screen_parser import ScreenParser

    return ScreenParser()


@pytest.fixture(scope="module")
def compiled(parser, tmp_path_factory):
    folder = write_demo(tmp_path_factory.mktemp("rec") / "demo")
    return folder, compile_demo(folder, parser=parser)


def test_click_then_type_becomes_one_anchored_type_step(compiled) -> None:
    folder, skill = compiled
    assert skill.source == "recorded" and skill.name == "acme login"
    assert [s.action for s in skill.steps] == [
        "type('{username}', into='the Username field')",
        "type('{secret_password}', into='the Password field')",
        "click('\"Log in\"')",
        f"click({skill.steps[3].box})",
        "hotkey('ctrl', 's')",
    ]
    user = skill.steps[0]
    assert user.target == "the Username field"
    assert user.box is not None and all(abs(a - b) <= 3 for a, b in zip(user.box, USER_FIELD, strict=True))
    assert user.crop and Path(user.crop).is_absolute() and Path(user.crop).parent == (folder / "crops").resolve()
    with Image.open(user.crop) as crop:
        assert abs(crop.width - (USER_FIELD[2] - USER_FIELD[0])) <= 12
    assert "Username" in [t for t, _, _ in user.landmarks]
    assert skill.steps[2].target == '"Log in"' and skill.steps[2].ocr_text == "Log in"


def test_parameters_named_from_labels_and_secret_without_default(compiled) -> None:
    _, skill = compiled
    params = {p.name: p for p in skill.parameters}
    assert set(params) == {"username", "secret_password"}
    assert params["username"].default == "ann"
    assert params["secret_password"].default is None
    assert "GUI_AGENT_SECRET_PASSWORD" in params["secret_password"].description
    assert skill.render({"secret_password": "pw"})[0] == "type('ann', into='the Username field')"
    with pytest.raises(ConfigError, match="needs a value for 'secret_password'"):
        skill.render()


def test_postconditions_are_texts_that_appeared(compiled) -> None:
    _, skill = compiled
    posts = [s.post_text for s in skill.steps]
    assert posts[2] == "Welcome back!"             # the next step's before-frame shows it
    assert posts[4] == "Saved draft"               # the last step: its own after-frame
    assert posts[0] is None and posts[1] is None   # the typed value and dots never are
    x0, y0, x1, y1 = skill.steps[0].post_region
    assert x0 >= USER_FIELD[0] - 4 and x1 <= USER_FIELD[2] + 4 and y0 >= USER_FIELD[1] - 4
    assert all("ann" not in t for s in skill.steps for t, _, _ in s.landmarks)


def test_click_on_nothing_keeps_no_target_but_a_crop(compiled) -> None:
    _, skill = compiled
    blank = skill.steps[3]
    assert blank.target is None and blank.crop and Path(blank.crop).is_file()
    left, top, right, bottom = blank.box
    assert left < 560 < right and top < 300 < bottom


def test_secret_is_in_no_file_of_the_demo_the_store_or_the_export(compiled, tmp_path: Path) -> None:
    from gui_agent.memory.portable import export_skill

    folder, skill = compiled
    with MemoryStore(tmp_path / "m.sqlite3") as store:
        store.save_skill(skill)
        export = export_skill(store, skill.name, tmp_path / "skill.zip")
        saved = store.require_skill(skill.name)
        assert all(s.crop is None or store.shot_path(s.crop).is_file() for s in saved.steps)
    blobs = [p.read_bytes() for root in (folder, tmp_path) for p in root.rglob("*") if p.is_file()]
    with zipfile.ZipFile(export) as zf:
        blobs += [zf.read(n) for n in zf.namelist()]
    assert len(blobs) > 10 and not any(SECRET.encode() in b for b in blobs)
    assert json.loads(zipfile.ZipFile(export).read("skill.json"))["skill"]["parameters"][1]["default"] is None


def test_parameter_names_come_from_meta_json(parser, tmp_path: Path) -> None:
    folder = write_demo(tmp_path / "demo", parameters=(DemoParameter("login_name", 2, "Username"),))
    skill = compile_demo(load_demo(folder), name="renamed", parser=parser)
    assert skill.name == "renamed"
    assert [p.name for p in skill.parameters] == ["login_name", "secret_password"]


def test_compile_command_saves_and_prints_the_skill(parser, tmp_path: Path, monkeypatch, capsys) -> None:
    from gui_agent.commands.record import compile_command

    monkeypatch.setattr("gui_agent.parsing.screen_parser.ScreenParser", lambda: parser)
    folder = write_demo(tmp_path / "demo")
    args = argparse.Namespace(demo=folder, name="acme", replace=False, json=False, memory=tmp_path / "m.sqlite3")
    assert compile_command(args) == 0
    out = capsys.readouterr().out
    assert "saved skill 'acme'" in out and "type('{username}', into='the Username field')" in out
    assert "GUI_AGENT_SECRET_PASSWORD" in out
    from gui_agent.memory.models import SkillNameTaken

    with pytest.raises(SkillNameTaken):
        compile_command(args)
    with MemoryStore(tmp_path / "m.sqlite3") as store:
        assert store.require_skill("acme").source == "recorded"


def test_secret_detector_reads_labels_and_masked_fields(parser) -> None:
    detector = SecretDetector(parser, marked=("Member number",))
    pin = screen(label="PIN")
    assert detector.label_at(pin, Point(*centre(PASS_FIELD))) == "PIN"
    guess = detector.judge("1234", click_frame=pin, click_point=Point(*centre(PASS_FIELD)), before=None, after=None)
    assert guess.secret and guess.name == "pin"
    plain = detector.judge("ann", click_frame=screen(), click_point=Point(*centre(USER_FIELD)),
                           before=screen(focus="Username"), after=screen("ann", focus="Username"))
    assert not plain.secret and plain.label == "Username"
    masked = detector.judge("s3cret", click_frame=None, click_point=None,
                            before=screen(label="Code"), after=screen(dots=6, label="Code"))
    assert masked.secret
    assert is_secret_label("Member number:", detector.marked) and is_secret_label("Your passcode")
    assert not is_secret_label("Shipping address") and not is_secret_label(None)


def test_scroll_and_drag_become_anchored_steps(parser, tmp_path: Path) -> None:
    writer = DemoWriter(tmp_path / "demo")
    name = writer.save_frame(screen(), "0001-before.png")
    writer.append(DemoEvent("scroll", 0.5, 0.9, point=(60, 48), direction="down", amount=5, index=1,
                            before=name, after=name))
    writer.append(DemoEvent("drag", 1.0, 1.5, point=centre(BUTTON), end_point=(560, 300), button="left",
                            index=2, before=name, after=name))
    writer.append(DemoEvent("key", 2.0, 2.0, keys=("media_volume_up",), index=3, before=name, after=name))
    writer.write_meta(DemoMeta("drag", "", 1.0, {"left": 0, "top": 0, "width": SIZE[0], "height": SIZE[1]},
                               events=3))
    writer.close()
    skill = compile_demo(tmp_path / "demo", parser=parser)
    assert [s.action for s in skill.steps] == ["scroll('down', amount=5, at='\"Sign in to Acme\"')",
                                               "drag('\"Log in\"', (560, 300))"]   # the unknown key is left out
    assert skill.steps[1].crop and skill.steps[1].box and skill.parameters == ()
    assert sorted(p.name for p in (tmp_path / "demo" / "crops").iterdir()) == ["0001.png", "0002.png"]
