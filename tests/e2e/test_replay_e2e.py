"""End to end: a skill learned from a real screenshot of the playground replays with real input
after the window moved and the theme turned dark, then runs on the cheap template rung again.

The skill is built the way the compiler builds one: each target found by the grounding ladder
on the light window at (0, 0), its image crop (``crop_around``) and nearby text landmarks kept.
On the moved, dark window the crops no longer match (inverted colours), so each step is found by
OCR and its image is healed in the memory store; a third window (dark, moved elsewhere) is then
replayed from the healed skill, found by the template rungs once the first step has shown how
far the window moved.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gui_agent.config import Settings
from gui_agent.grounding.default import default_ladder
from gui_agent.memory.anchors import crop_around, fixed_texts, landmarks_for
from gui_agent.memory.models import Skill, SkillParameter, SkillStep
from gui_agent.memory.store import MemoryStore

pytestmark = pytest.mark.e2e("xvfb", "input", "qt")

TARGETS = (  # (action, the target's description, postcondition text)
    ('type("{user}", into="the Username field")', "the Username field", None),
    ('type("{password}", into="the Password field")', "the Password field", None),
    ('click("Remember me")', "the Remember me checkbox", None),
    ('click("Log in")', "the Log in button", "Signed in as"),
)


def _learn(parser, obs, folder: Path) -> Skill:
    ladder, _ = default_ladder(parser)
    elements = parser.parse(obs.image).elements
    steps = []
    for n, (action, target, post) in enumerate(TARGETS, 1):
        cand = ladder.resolve(target, obs)
        crop = folder / f"step{n}.png"
        crop_around(obs.image, cand.box).save(crop)
        text = cand.element.text if cand.element is not None and cand.element.kind != "field" else None
        steps.append(SkillStep(action, target=target, ocr_text=text or None, crop=str(crop),
                               box=cand.box.corners, landmarks=landmarks_for(fixed_texts(elements), cand.box),
                               post_text=post))
    return Skill("playground login", tuple(steps), description="sign in to the playground",
                 parameters=(SkillParameter("user"), SkillParameter("password")))


def _replay(store, skill, parser, tmp_path, work, **launch):
    from gui_agent import Engine, ExperienceMemory
    from gui_agent.control.pyautogui_controller import PyAutoGuiController
    from gui_agent.desktop import LiveDesktop
    from gui_agent.playground import launch_playground

    settings = Settings(safety="refuse", runs_dir=tmp_path / "runs")
    with launch_playground(work / "state.json", **launch) as app:
        app.wait_ready()
        engine = Engine(LiveDesktop(PyAutoGuiController(), settings.monitor), settings=settings,
                        parser=parser, memory=ExperienceMemory(store))
        result = engine.replay(skill, {"user": "ann", "password": "secret"})
        state = app.wait_for(lambda s: s["login"]["logged_in_as"] == "ann", timeout=3) if result.ok else app.state()
    return result, state


def test_a_learned_login_replays_on_a_moved_dark_window_and_heals(xvfb, tmp_path):
    from gui_agent.parsing.screen_parser import ScreenParser
    from gui_agent.playground import launch_playground
    from gui_agent.screen.capture import ScreenCapture

    parser = ScreenParser()
    crops = tmp_path / "learned"
    crops.mkdir()
    with launch_playground(tmp_path / "learn" / "state.json") as app:
        app.wait_ready()
        capture = ScreenCapture()
        try:
            skill = _learn(parser, capture.capture(1), crops)
        finally:
            capture.close()
    store = MemoryStore(tmp_path / "m.sqlite3")
    store.save_skill(skill)

    moved = tmp_path / "moved"
    result, state = _replay(store, store.require_skill(skill.name), parser, tmp_path, moved,
                            pos=(150, 60), theme="dark")
    steps = "\n".join(s.describe() for s in result.steps)
    assert result.ok, f"{result.reason}\n{steps}"
    assert state["login"]["logged_in_as"] == "ann" and state["login"]["remember_me"]
    assert state["login"]["password_length"] == 6
    assert all(s.source in ("ocr", "landmarks") for s in result.steps), steps
    assert result.healed == (1, 2, 3, 4) and result.counts["template"] == 0
    for step in result.steps:      # every click landed inside the moved window
        x, y = step.screen_point
        assert 150 <= x < 150 + 1024 and 60 <= y < 60 + 700, step.describe()
    assert "secret" not in (result.run_dir / "steps.jsonl").read_text()

    healed = store.require_skill(skill.name)
    assert healed.stats.runs == 1 and healed.steps[0].crop != skill.steps[0].crop
    again, state = _replay(store, healed, parser, tmp_path, tmp_path / "again", pos=(90, 40), theme="dark")
    steps = "\n".join(s.describe() for s in again.steps)
    assert again.ok, f"{again.reason}\n{steps}"
    assert state["login"]["logged_in_as"] == "ann"
    # Two empty fields look alike, so the first step (no shift known yet) needs its label read;
    # once it has shown how far the window moved, the other steps are found by their images.
    assert {s.source for s in again.steps[1:]} <= {"template", "template-anywhere"}, steps
    assert again.counts["ocr"] <= 1 and again.counts["ocr_parses"] <= 2   # + the postcondition
    store.close()
