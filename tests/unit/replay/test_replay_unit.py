"""Skill replay on a fake desktop: Pillow screens of a tiny dialog that react to clicks and typing.

The dialog (a Name field, OK, Cancel; OK with a name typed shows "Welcome <name>") can be moved,
re-themed, have its OK renamed or doubled. A fake OCR ladder reads the dialog's own layout, so
each test is exact and fast; the template rungs use the real TemplateMatcher on real pixels.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from gui_agent import Engine
from gui_agent.config import Settings
from gui_agent.control.dry_run import DryRunController
from gui_agent.errors import AmbiguousTarget, ConfigError, TargetNotFound
from gui_agent.geometry import Box, Point
from gui_agent.grounding.candidate import Candidate
from gui_agent.grounding.ladder import GroundingLadder
from gui_agent.memory.anchors import crop_around
from gui_agent.memory.models import Skill, SkillParameter, SkillStep
from gui_agent.memory.store import MemoryStore
from gui_agent.parsing.elements import Element, ElementKind, ScreenParse
from gui_agent.replay import SkillReplayer
from gui_agent.report import ReportEntry, write_report
from gui_agent.screen.observation import Observation
from gui_agent.trajectory import load_run

FONT = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 14)
SIZE = (560, 360)
FAST = {"settle_timeout": 0.2, "settle_interval": 0.01, "settle_change_grace": 0.05}


@dataclass(frozen=True)
class Widget:
    key: str                  # field | ok | cancel | twin | delete | label | title | welcome
    kind: ElementKind
    box: Box
    text: str
    names: tuple[str, ...] = ()   # the descriptions the fake OCR ladder knows it by


@dataclass
class FakeApp:
    """A dialog drawn at ``offset``; clicks and typing change its state."""

    offset: tuple[int, int] = (0, 0)
    dark: bool = False
    ok_label: str = "OK"
    twin_ok: bool = False
    ok_works: bool = True
    delete_button: bool = False
    has_field: bool = True
    typed: str = ""
    focused: bool = False
    welcome: bool = False
    status: str = ""          # a status line: what the last key or unfocused typing did
    deleted: bool = False
    log: list[str] = field(default_factory=list)

    def widgets(self) -> list[Widget]:
        ox, oy = self.offset

        def at(l, t, r, b):  # noqa: E741
            return Box.from_corners(l + ox, t + oy, r + ox, b + oy)

        out = [Widget("title", ElementKind.TEXT, at(12, 8, 90, 26), "Fake app"),
               Widget("label", ElementKind.TEXT, at(20, 52, 66, 70), "Name"),
               Widget("cancel", ElementKind.BUTTON, at(210, 100, 290, 128), "Cancel", ("the Cancel button",))]
        if self.has_field:
            out.append(Widget("field", ElementKind.TEXT_FIELD, at(80, 46, 300, 76), self.typed, ("the Name field",)))
        out.append(Widget("ok", ElementKind.BUTTON, at(110, 100, 190, 128), self.ok_label, (f"the {self.ok_label} button",)))
        if self.twin_ok:
            out.append(Widget("twin", ElementKind.BUTTON, at(310, 100, 390, 128), self.ok_label, (f"the {self.ok_label} button",)))
        if self.delete_button:
            out.append(Widget("delete", ElementKind.BUTTON, at(110, 150, 190, 178), "Delete", ("the Delete button",)))
        if self.welcome:
            out.append(Widget("welcome", ElementKind.TEXT, at(20, 200, 200, 220), f"Welcome {self.typed}"))
        if self.status:
            out.append(Widget("status", ElementKind.TEXT, at(220, 200, 400, 220), self.status))
        return out

    def widget(self, key: str) -> Widget:
        return next(w for w in self.widgets() if w.key == key)

    def render(self) -> Image.Image:
        bg, ink, face, edge = ((40, 42, 48), (235, 235, 235), (85, 88, 98), (150, 150, 160)) if self.dark else \
            ((238, 238, 238), (20, 20, 20), (215, 215, 222), (120, 120, 120))
        image = Image.new("RGB", SIZE, (0, 0, 0) if self.dark else (250, 250, 250))
        draw = ImageDraw.Draw(image)
        ox, oy = self.offset
        draw.rectangle([ox, oy, ox + 420, oy + 240], fill=bg, outline=edge)
        for w in self.widgets():
            b = w.box
            if w.kind == ElementKind.BUTTON:
                draw.rounded_rectangle([b.left, b.top, b.right - 1, b.bottom - 1], 4, fill=face, outline=edge)
                width = draw.textlength(w.text, font=FONT)
                draw.text((b.left + (b.width - width) / 2, b.top + 6), w.text, fill=ink, font=FONT)
            elif w.kind == ElementKind.TEXT_FIELD:
                draw.rectangle([b.left, b.top, b.right - 1, b.bottom - 1], fill=(15, 15, 15) if self.dark
                               else (255, 255, 255), outline=(0, 120, 215) if self.focused else edge, width=2)
                draw.text((b.left + 6, b.top + 6), w.text, fill=ink, font=FONT)
            else:
                draw.text((b.left, b.top), w.text, fill=ink, font=FONT)
        return image

    def click(self, p: Point) -> None:
        hit = next((w for w in self.widgets() if w.box.contains(p)), None)
        self.log.append(f"click {hit.key if hit else 'nothing'}")
        self.focused = hit is not None and hit.key == "field"
        if hit is not None and hit.key == "ok" and self.ok_works and self.typed:
            self.welcome = True
        if hit is not None and hit.key == "delete":
            self.status = "All deleted"

    def type_text(self, text: str) -> None:
        self.log.append(f"type {text}")
        if self.focused:
            self.typed += text
        else:
            self.status = f"typed {text}"

    def hotkey(self, *keys: str) -> None:
        self.log.append("hotkey " + "+".join(keys))
        self.status = "pressed " + "+".join(keys)


class AppController(DryRunController):
    def __init__(self, app: FakeApp) -> None:
        super().__init__()
        self.app = app

    def click(self, point, button="left", clicks=1):
        super().click(point, button, clicks)
        self.app.click(point)

    def type_text(self, text):
        super().type_text(text)
        self.app.type_text(text)

    def hotkey(self, *keys):
        super().hotkey(*keys)
        self.app.hotkey(*keys)


class FakeDesktop:
    def __init__(self, app: FakeApp) -> None:
        self.app = app
        self.controller = AppController(app)
        self.layouts: list[tuple[Image.Image, list[Widget]]] = []

    def observe(self) -> Observation:
        obs = Observation.from_image(self.app.render())
        self.layouts = [*self.layouts[-30:], (obs.image, self.app.widgets())]
        return obs

    def layout(self, image: Image.Image) -> list[Widget]:
        return next(w for img, w in self.layouts if img is image)


class FakeLadder:
    """The OCR ladder, reading the fake app's layout: descriptions by name, quoted text by content."""
    last_alternatives: list = []   # the Ladder protocol: runners-up of the latest

    def __init__(self, desktop: FakeDesktop) -> None:
        self.desktop = desktop
        self.calls: list[str] = []

    def candidates(self, description: str, obs: Observation) -> list[Candidate]:
        quoted = description.startswith('"') and description.endswith('"')
        q = description.strip('"').lower()
        hits = [w for w in self.desktop.layout(obs.image)
                if (q in w.text.lower() and w.text if quoted else description in w.names)]
        return [Candidate(w.box, 0.95, "ocr", Element(w.kind, w.box, w.text), f"read {w.text!r}") for w in hits]

    def resolve(self, description: str, obs: Observation) -> Candidate:
        self.calls.append(description)
        found = self.candidates(description, obs)
        if len(found) > 1:
            raise AmbiguousTarget(description, found)
        if not found:
            raise TargetNotFound(description, "not in the fake layout")
        return found[0]


class FakeParser:
    def __init__(self, desktop: FakeDesktop) -> None:
        self.desktop = desktop

    def parse(self, image: Image.Image) -> ScreenParse:
        return ScreenParse(tuple(Element(w.kind, w.box, w.text) for w in self.desktop.layout(image)), *SIZE)


def _landmarks(app: FakeApp, key: str, *names: str) -> tuple[tuple[str, int, int], ...]:
    target = app.widget(key).box.center
    out = []
    for name in names:
        c = app.widget(name).box.center
        out.append((app.widget(name).text, target.x - c.x, target.y - c.y))
    return tuple(out)


def login_skill(tmp_path: Path, *, ok_target: str | None = "the OK button", ok_text: str | None = "OK",
                post_text: str | None = "Welcome") -> Skill:
    """The skill as learned on the light dialog at (0, 0): type a name, click OK."""
    app = FakeApp()
    image = app.render()
    crops = tmp_path / "learned"
    crops.mkdir(exist_ok=True)
    paths = {key: crops / f"{key}.png" for key in ("field", "ok")}
    for key, path in paths.items():
        crop_around(image, app.widget(key).box).save(path)
    return Skill("fake login", (
        SkillStep('type("{name}", into="the Name field")', target="the Name field", crop=str(paths["field"]),
                  box=app.widget("field").box.corners, landmarks=_landmarks(app, "field", "label", "title")),
        SkillStep('click("OK")' if ok_target else 'click((150, 114))', target=ok_target, ocr_text=ok_text,
                  crop=str(paths["ok"]), box=app.widget("ok").box.corners, post_text=post_text,
                  landmarks=_landmarks(app, "ok", "label", "cancel")),
    ), description="log in to the fake app", parameters=(SkillParameter("name", default="ann"),))


def make_replayer(desktop, *, settings: Settings, ladder, parser=None, store=None, matcher=None,
                  hooks=None) -> SkillReplayer:
    """A replayer built as the engine builds it, over ``desktop``."""
    engine = Engine(desktop, settings=settings, ladder=ladder, parser=parser, hooks=hooks, matcher=matcher)
    return SkillReplayer(engine.pipeline, ladder=ladder, parser=parser, store=store, matcher=matcher)


def replayer(app: FakeApp, tmp_path: Path, *, parser: bool = False, **kw) -> tuple[SkillReplayer, FakeDesktop]:
    desktop = FakeDesktop(app)
    settings = Settings(runs_dir=tmp_path / "runs", safety=kw.pop("safety", "refuse"), **FAST)
    ladder = kw.pop("ladder", None) or FakeLadder(desktop)
    return make_replayer(desktop, settings=settings, ladder=ladder,
                         parser=FakeParser(desktop) if parser else None, **kw), desktop


def clicks(desktop: FakeDesktop) -> list[str]:
    return [e for e in desktop.app.log if e.startswith("click")]


def test_a_skill_replays_on_the_screen_it_was_learned_on(tmp_path):
    app = FakeApp()
    rep, desktop = replayer(app, tmp_path)
    result = rep.run(login_skill(tmp_path), {"name": "bob"})
    assert result.ok, result.reason
    assert app.welcome and app.typed == "bob"
    assert desktop.app.log == ["click field", "type bob", "click ok"]
    assert [s.source for s in result.steps] == ["template", "template"]
    assert result.counts["template"] == 2 and result.counts["ocr"] == 0 and result.counts["vlm_calls"] == 0
    assert result.counts["ocr_parses"] == 1      # only the postcondition read the screen
    run = load_run(result.run_dir)                # the folder the HTML report renders
    assert run.outcome == "done" and [s.outcome for s in run.steps] == ["ok", "ok"]
    assert (result.run_dir / run.steps[0].before).is_file()
    assert json.loads((result.run_dir / "replay.json").read_text())["counts"]["template"] == 2
    index = write_report(tmp_path / "report", "replay", [ReportEntry("fake login", run, run.ok)])
    assert "the Name field" in index.read_text() or "Name field" in index.read_text()


def test_a_moved_window_is_followed_with_the_running_shift(tmp_path):
    app = FakeApp(offset=(110, 70))
    rep, desktop = replayer(app, tmp_path)
    result = rep.run(login_skill(tmp_path))
    assert result.ok, result.reason
    assert desktop.app.log == ["click field", "type ann", "click ok"]
    # the first target is found anywhere; the second near its learned place moved by the first's shift
    assert [s.source for s in result.steps] == ["template-anywhere", "template"]
    click = desktop.controller.calls("click")[1].params["point"]
    assert app.widget("ok").box.contains(click)


def test_a_restyled_target_is_found_by_ocr_and_its_image_is_healed_in_the_store(tmp_path):
    store = MemoryStore(tmp_path / "m.sqlite3")
    store.save_skill(login_skill(tmp_path))
    skill = store.require_skill("fake login")
    app = FakeApp(offset=(60, 30), dark=True)
    rep, desktop = replayer(app, tmp_path, store=store)
    result = rep.run(skill)
    assert result.ok, result.reason
    assert [s.source for s in result.steps] == ["ocr", "ocr"]
    assert result.healed == (1, 2) and all("healed" in s.why for s in result.steps)
    healed = store.require_skill("fake login")
    assert healed.stats.runs == 1 and healed.stats.successes == 1
    assert healed.steps[1].box == app.widget("ok").box.corners
    assert healed.steps[1].crop != skill.steps[1].crop and (store.root / healed.steps[1].crop).is_file()
    assert healed.steps[1].successes == 1
    # the next replay on the same look finds both targets with the cheap template again
    app2 = FakeApp(offset=(60, 30), dark=True)
    rep2, _ = replayer(app2, tmp_path, store=store)
    again = rep2.run(healed)
    assert again.ok and [s.source for s in again.steps] == ["template", "template"]
    assert again.counts["healed"] == 0
    store.close()


@pytest.mark.parametrize("parser", [False, True], ids=["no-parser", "parser"])
def test_a_target_that_is_gone_stops_the_replay_with_a_picture_and_no_click(tmp_path, parser):
    app = FakeApp(has_field=False)
    rep, desktop = replayer(app, tmp_path, parser=parser)
    result = rep.run(login_skill(tmp_path))
    assert not result.ok and result.failed_step == 1 and result.outcome == "failed"
    assert "step 1 of 2" in result.reason and "the Name field" in result.reason
    assert "was not found" in result.reason
    assert desktop.controller.log == []          # never clicked the recorded coordinate
    assert result.failure_image is not None and result.failure_image.is_file()
    assert result.steps[0].before == "shots/001-failed.png"
    assert result.observation is not None


def test_a_step_waits_for_its_target_to_appear(tmp_path):
    app = FakeApp(has_field=False)
    desktop = FakeDesktop(app)
    settings = Settings(runs_dir=tmp_path / "runs", settle_timeout=1.0, settle_interval=0.01, settle_change_grace=0.05)
    rep = make_replayer(desktop, settings=settings, ladder=FakeLadder(desktop))
    threading.Timer(0.15, lambda: setattr(app, "has_field", True)).start()
    result = rep.run(login_skill(tmp_path))
    assert result.ok, result.reason
    assert result.steps[0].source == "template" and desktop.app.log[0] == "click field"


def test_two_equal_matches_stop_the_replay(tmp_path):
    app = FakeApp(offset=(0, 120), twin_ok=True)     # far from the learned place: two OK buttons
    rep, desktop = replayer(app, tmp_path)
    skill = login_skill(tmp_path)
    skill = replace(skill, steps=(replace(skill.steps[1], landmarks=()),), parameters=())
    result = rep.run(skill)
    assert not result.ok and "ambiguous" in result.reason and result.failed_step == 1
    assert clicks(desktop) == []
    assert len(result.steps[0].alternatives) >= 2
    assert Image.open(result.failure_image).size == SIZE


def test_a_postcondition_that_does_not_hold_stops_the_replay(tmp_path):
    app = FakeApp(ok_works=False)
    rep, desktop = replayer(app, tmp_path)
    result = rep.run(login_skill(tmp_path))
    assert not result.ok and result.failed_step == 2
    assert 'expected "Welcome" to appear' in result.reason
    assert result.steps[-1].outcome == "failed"


def test_the_safety_policy_refuses_a_destructive_click(tmp_path):
    app = FakeApp(delete_button=True)
    rep, desktop = replayer(app, tmp_path)
    crop = tmp_path / "del.png"
    crop_around(app.render(), app.widget("delete").box).save(crop)
    skill = Skill("wipe", (SkillStep('click("Delete")', ocr_text="Delete", crop=str(crop),
                                     box=app.widget("delete").box.corners),))
    result = rep.run(skill)
    assert result.outcome == "refused" and "refused" in result.reason and "delete" in result.reason.lower()
    assert clicks(desktop) == []
    asked = []
    rep2, desktop2 = replayer(FakeApp(delete_button=True), tmp_path, safety="ask")
    rep2.hooks.confirm = lambda action, cand, reason: asked.append(reason) or True
    assert rep2.run(skill).ok and asked and clicks(desktop2) == ["click delete"]


def test_stop_and_pause_are_honoured_between_steps(tmp_path):
    app = FakeApp()
    rep, desktop = replayer(app, tmp_path)
    rep.hooks.on_step = lambda step: rep.stop_event.set()
    result = rep.run(login_skill(tmp_path))
    assert result.outcome == "stopped" and len(result.steps) == 1 and clicks(desktop) == ["click field"]
    app2 = FakeApp()
    rep2, _ = replayer(app2, tmp_path)
    rep2.control.pause_event.set()
    threading.Timer(0.3, rep2.control.pause_event.clear).start()
    resumed = rep2.run(login_skill(tmp_path))
    assert resumed.ok and resumed.seconds >= 0.3


def test_landmarks_find_a_restyled_target_without_a_name(tmp_path):
    app = FakeApp(offset=(30, 20), dark=True)
    rep, desktop = replayer(app, tmp_path, parser=True)
    skill = login_skill(tmp_path, ok_target=None, ok_text=None)   # click at a point, no text anchors
    result = rep.run(skill)
    assert result.ok, result.reason
    assert result.steps[1].source == "landmarks" and "agree" in result.steps[1].why
    assert app.widget("ok").box.contains(desktop.controller.calls("click")[1].params["point"])


def test_a_renamed_target_is_not_clicked_through_its_landmarks(tmp_path):
    app = FakeApp(dark=True, ok_label="Submit")
    rep, desktop = replayer(app, tmp_path, parser=True)
    result = rep.run(login_skill(tmp_path))
    assert not result.ok and result.failed_step == 2
    assert "reads 'Submit', not 'OK'" in result.reason
    assert clicks(desktop) == ["click field"]


def test_a_fixed_point_without_anchors_is_never_clicked(tmp_path):
    rep, desktop = replayer(FakeApp(), tmp_path)
    result = rep.run(Skill("blind", (SkillStep("click((150, 114))"),)))
    assert not result.ok and "never acts at a recorded coordinate" in result.reason
    assert clicks(desktop) == []


class LayoutGrounder:
    def __init__(self, name: str, ladder: FakeLadder) -> None:
        self.name, self.ladder = name, ladder

    def candidates(self, description: str, obs: Observation) -> list[Candidate]:
        found = self.ladder.candidates(description, obs) if self.name == "vlm" else []
        return [replace(c, source="vlm") for c in found]


def test_the_vlm_rung_is_the_last_resort_and_is_counted(tmp_path):
    app = FakeApp(dark=True)
    desktop = FakeDesktop(app)
    fake = FakeLadder(desktop)
    ladder = GroundingLadder([LayoutGrounder("ocr", fake), LayoutGrounder("vlm", fake)])
    rep = make_replayer(desktop, settings=Settings(runs_dir=tmp_path / "runs", **FAST), ladder=ladder)
    skill = login_skill(tmp_path, post_text=None)
    result = rep.run(replace(skill, steps=(replace(skill.steps[0], landmarks=()),)))
    assert result.ok, result.reason
    assert result.steps[0].source == "vlm" and result.counts["vlm_calls"] == 1


def test_secret_parameters_never_reach_the_logs(tmp_path):
    app = FakeApp()
    rep, desktop = replayer(app, tmp_path)
    skill = login_skill(tmp_path)
    skill = replace(skill, parameters=(SkillParameter("password"),),
                    steps=(replace(skill.steps[0], action='type("{password}", into="the Name field")'),
                           skill.steps[1]))
    result = rep.run(skill, {"password": "hunter2!x"})
    assert result.ok, result.reason
    assert desktop.controller.calls("type_text")[0].params["text"] == "hunter2!x"
    for file in result.run_dir.rglob("*.json*"):
        assert "hunter2!x" not in file.read_text()
    assert "******" in result.steps[0].action


def test_bad_parameters_are_refused_before_anything_happens(tmp_path):
    rep, desktop = replayer(FakeApp(), tmp_path)
    with pytest.raises(ConfigError, match="no parameter"):
        rep.run(login_skill(tmp_path), {"nmae": "x"})
    assert desktop.controller.log == []


def test_steps_without_a_target_just_run(tmp_path):
    rep, desktop = replayer(FakeApp(), tmp_path)
    result = rep.run(Skill("keys", (SkillStep('hotkey("ctrl", "s")'), SkillStep("wait(0.01)"),
                                    SkillStep('type("x")'))))
    assert result.ok, result.reason
    assert [e.method for e in desktop.controller.log] == ["hotkey", "type_text"]
    assert all(s.source is None for s in result.steps) and result.counts["ocr_parses"] == 0


def test_a_skill_run_inside_an_agent_run_logs_into_its_folder(tmp_path):
    from gui_agent.trajectory import RunFolder

    rep, desktop = replayer(FakeApp(), tmp_path)
    reported = []
    rep.hooks.on_step = reported.append
    folder = RunFolder(tmp_path / "agent", "the agent's task")
    first = desktop.observe()
    result = rep.run(login_skill(tmp_path), task="the agent's task", folder=folder, first=first, first_index=5)
    assert result.ok and [s.index for s in result.steps] == [5, 6]
    assert result.run_dir == folder.path and not (folder.path / "run.json").exists()   # the agent finishes it
    assert "step 1 of 2" in result.steps[0].subtask
    folder.finish(result.to_run_result("the agent's task"))
    assert load_run(folder.path).steps == () and reported == []   # the agent logs and reports them
    assert (folder.path / result.steps[0].before).is_file()


def test_a_command_split_over_two_typing_steps_is_refused_as_a_whole(tmp_path):
    rep, desktop = replayer(FakeApp(), tmp_path)
    skill = Skill("split", (SkillStep('type("cd ~; r")'), SkillStep('type("m -rf *")')))
    result = rep.run(skill)
    assert result.outcome == "refused" and result.failed_step == 2, result.reason
    assert [e.params["text"] for e in desktop.controller.calls("type_text")] == ["cd ~; r"]
