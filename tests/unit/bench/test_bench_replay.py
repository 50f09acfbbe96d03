"""`gui-agent bench replay`: the judging of clicks and replays, the table, the playground's
perturbation options, and what the bench needed fixed in the compiler and the replay. A short
demonstration recorded with real input and replayed is tests/e2e/test_bench_replay_e2e.py."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from gui_agent.bench.replay_bench import PERTURBATIONS, _names, add_arguments, perturbation_named
from gui_agent.bench.replay_cases import (
    DEMOS,
    RENAMES,
    ClickTruth,
    click_point,
    matching,
    row_text,
)
from gui_agent.bench.replay_judge import (
    ClickCheck,
    ReplayCase,
    describe_case,
    element_under,
    first_renamed,
    format_rungs,
    format_table,
    judge_click,
    step_truths,
    summary,
    verdict,
    write_results,
)
from gui_agent.errors import ConfigError, TargetNotFound
from gui_agent.geometry import Box, Point
from gui_agent.grounding.candidate import Candidate
from gui_agent.memory.models import SkillStep
from gui_agent.parsing.elements import Element, ElementKind, ScreenParse
from gui_agent.playground.launcher import playground_command
from gui_agent.playground.options import parse_options
from gui_agent.playground.state import initial_state
from gui_agent.recording.targets import element_at

WIN = "gui-agent playground"


def t(kind: str, text: str, box: list[int], window: str = WIN) -> dict:
    return {"kind": kind, "text": text, "box": box, "window": window}


CONTACTS = [  # three identical Edit buttons, one per row (as the playground draws them)
    t("label", "Alice", [36, 228, 40, 16]), t("label", "alice@example.com", [114, 228, 140, 16]),
    t("button", "Edit", [293, 224, 80, 24]),
    t("label", "Bob", [36, 262, 30, 16]), t("label", "bob@example.com", [114, 262, 130, 16]),
    t("button", "Edit", [293, 258, 80, 24]),
    t("label", "Carol", [36, 296, 40, 16]), t("label", "carol@example.com", [114, 296, 140, 16]),
    t("button", "Edit", [293, 292, 80, 24]),
    t("group", "", [26, 188, 970, 140]),
]


def test_a_click_is_right_inside_the_meant_element_only() -> None:
    targets = [t("button", "Add", [358, 206, 100, 24]), t("button", "Delete", [358, 256, 100, 24]),
               t("label", "Shopping list", [26, 87, 150, 24])]
    add = ClickTruth((408, 218), "button", "Add", WIN)
    assert judge_click(targets, (410, 220), add, 3) == ClickCheck(3, True, "button 'Add'", "button 'Add'", (410, 220))
    wrong = judge_click(targets, (400, 268), add, 3)
    assert not wrong.ok and wrong.hit == "button 'Delete'"
    assert judge_click(targets, (900, 600), add, 3).hit == "nothing"
    renamed = [t("button", "Append", [358, 206, 100, 24])]
    assert not judge_click(renamed, (408, 218), add, 3).ok            # the meant button is gone
    in_dialog = ClickTruth((408, 218), "button", "Add", "Settings")   # same text, another window
    assert not judge_click(targets, (408, 218), in_dialog, 1).ok


def test_twins_are_told_apart_by_their_row() -> None:
    alice = ClickTruth((333, 236), "button", "Edit", WIN, "alice@example.com")
    assert row_text(CONTACTS[2], CONTACTS) == "alice@example.com"
    assert row_text(t("button", "Add", [1, 1, 5, 5]), [t("button", "Add", [1, 1, 5, 5])]) is None
    assert judge_click(CONTACTS, (333, 236), alice, 2).ok
    check = judge_click(CONTACTS, (333, 304), alice, 2)               # Carol's Edit
    assert not check.ok and check.meant == "button 'Edit' on the row of 'alice@example.com'"
    reordered = [dict(x, box=[x["box"][0], 524 - x["box"][1], *x["box"][2:]]) for x in CONTACTS[:-1]]
    assert [row_text(x, reordered) for x in reordered if x["text"] == "Edit"] == [
        "alice@example.com", "bob@example.com", "carol@example.com"]
    assert judge_click(reordered, (333, 312), alice, 2).ok             # Alice's row is now at the bottom
    assert len(matching(reordered, "button", "Edit", None)) == 3


def test_element_under_prefers_a_control_to_a_label_or_group() -> None:
    assert element_under(CONTACTS, (333, 236))["text"] == "Edit"
    assert element_under(CONTACTS, (40, 236))["text"] == "Alice"
    assert element_under(CONTACTS, (600, 200))["kind"] == "group"
    assert element_under(CONTACTS, (5, 5)) is None
    assert click_point(t("list_item", "Apples", [30, 150, 300, 20])) == (54, 160)
    assert click_point(t("button", "Add", [358, 206, 100, 24])) == (408, 218)


def test_steps_get_their_recorded_clicks_in_order() -> None:
    field = ClickTruth((478, 186), "field", "New item", WIN)
    truths = [ClickTruth((215, 50), "tab", "Items", WIN), field, ClickTruth((408, 218), "button", "Add", WIN),
              ClickTruth((478, 186), "field", "New item", WIN), ClickTruth((138, 101), "menu_item", "New", "QMenu")]
    steps = [SkillStep('click("Items")', box=(176, 34, 256, 67)),
             SkillStep('type("{a}", into="the New item field")', box=(358, 174, 598, 198)),
             SkillStep('click("Add")', box=(358, 206, 458, 230)),
             SkillStep('type("{b}", into="the New item field")', box=(358, 174, 598, 198)),
             SkillStep('hotkey("enter")'),
             SkillStep('click("Ctrl+N")', box=(162, 91, 214, 112))]   # the row's text beside the point
    mapped = step_truths(steps, truths, {"left": 0, "top": 0, "scale": 1.0})
    assert mapped == [truths[0], truths[1], truths[2], truths[3], None, truths[4]]
    assert mapped[1] is not mapped[3]
    assert first_renamed(mapped, RENAMES) == 3 and first_renamed(mapped, {}) is None


def _case(pert: str, method: str, *, completed=True, ok=True, wrong=0, stopped=None, expected=None,
          seconds=(0.3, 0.5)) -> ReplayCase:
    clicks = [ClickCheck(2, False, "button 'Add'", "button 'Delete'", (1, 1))] * wrong
    return ReplayCase("d", pert, method, 10, resolved=10 - wrong, completed=completed, replay_ok=ok,
                      stopped_at=stopped, expected_stop=expected, wrong_clicks=wrong, clicks=clicks,
                      step_seconds=list(seconds))


def test_table_and_verdict_on_fabricated_results() -> None:
    cases = [_case("none", "ours"), _case("none", "baseline", seconds=(0.6,)),
             _case("moved", "ours"), _case("moved", "baseline", completed=False, wrong=3, seconds=(0.6,)),
             _case("renamed", "ours", completed=False, ok=False, stopped=3, expected=3),
             _case("renamed", "baseline", completed=True, wrong=1, expected=3, seconds=(0.6,))]
    perts = [("none", True), ("moved", True), ("renamed", False)]
    table = format_table(cases, perts)
    lines = table.splitlines()
    assert lines[0].split()[:2] == ["perturbation", "method"] and len(lines) == 2 + 6
    assert lines[4].split() == ["moved", "ours", "10/10", "1/1", "completed", "0", "0.40"]
    assert lines[5].split() == ["baseline", "7/10", "0/1", "completed", "3", "0.60"]
    assert lines[6].split() == ["renamed", "ours", "10/10", "1/1", "stopped", "0", "0.40"]
    assert lines[7].split() == ["baseline", "9/10", "0/1", "stopped", "1", "0.60"]
    assert verdict(cases, perts) == []                      # ours meets every target
    worse = cases + [_case("moved", "ours", completed=False, ok=False, stopped=4),
                     _case("renamed", "ours", completed=False, ok=False, stopped=2, expected=3, wrong=1)]
    misses = verdict(worse, perts)
    assert any("moved: d not completed" in m for m in misses)
    assert any("wrong click" in m and "meant button 'Add', hit button 'Delete'" in m for m in misses)
    assert any("did not stop cleanly at step 3 (stopped at 2" in m for m in misses)
    slow = [_case("none", "ours", seconds=(1.2, 1.5, 0.9))]
    assert verdict(slow, [("none", True)]) == ["median seconds per step 1.20 >= 1.0"]
    cases[0].rungs = {"template": 7, "ocr": 3, "healed": 3, "steps": 10}
    cases[2].rungs = {"template-anywhere": 10}
    assert format_rungs(cases, ["none", "moved", "renamed"]).splitlines()[1:] == [
        "  none          7 / 0 / 3 / 0 / 0 / 3", "  moved         0 / 10 / 0 / 0 / 0 / 0",
        "  renamed       0 / 0 / 0 / 0 / 0 / 0"]
    s = summary(cases[:1], True)
    assert s["median_s_per_step"] == 0.4 and s["completed"] == 1 and s["resolved"] == 10


def test_results_file_and_progress_lines(tmp_path: Path) -> None:
    cases = [_case("none", "ours"), _case("renamed", "ours", completed=False, ok=False, stopped=3, expected=3)]
    cases[1].reason = "step 3 of 10 (click('\"Add\"')): the target \"Add\" was not found"
    assert describe_case(cases[0]) == "  [none        ] ours     d                     10/10 steps, completed, 0.0s"
    assert "stopped at step 3, 0.0s — step 3 of 10" in describe_case(cases[1])
    perts = [perturbation_named("none"), perturbation_named("renamed")]
    data = json.loads(write_results(tmp_path, cases, perts, DEMOS[:1]).read_text())
    assert data["misses"] == [] and data["demos"][0]["name"] == DEMOS[0].name
    assert data["summary"]["renamed"]["ours"]["stopped_cleanly"] == 1 and not data["summary"]["renamed"]["ours"][
        "keeps_target"]
    assert data["cases"][1]["stopped_at"] == 3 and data["perturbations"][1]["name"] == "renamed"


def test_stopping_cleanly_means_at_the_renamed_step_with_no_wrong_click() -> None:
    assert _case("renamed", "ours", ok=False, stopped=3, expected=3).stopped_cleanly
    assert not _case("renamed", "ours", ok=False, stopped=2, expected=3).stopped_cleanly
    assert not _case("renamed", "ours", ok=False, stopped=3, expected=3, wrong=1).stopped_cleanly
    assert not _case("renamed", "ours", ok=True, expected=3).stopped_cleanly


def test_bench_options_and_names() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--demos", "delete-items", "--perturbations", "moved,renamed", "--headless"])
    assert args.headless and not args.no_baseline and args.out == Path("bench-replay")
    assert _names(args.perturbations, [p.name for p in PERTURBATIONS], "perturbation") == ["moved", "renamed"]
    assert _names(None, ["a", "b"], "demo") == ["a", "b"]
    with pytest.raises(ConfigError, match="unknown demo.*known: a, b"):
        _names("a,zz", ["a", "b"], "demo")
    with pytest.raises(ConfigError, match="unknown perturbation"):
        perturbation_named("upside-down")
    assert len(DEMOS) >= 6 and len({d.name for d in DEMOS}) == len(DEMOS)
    assert [p.name for p in PERTURBATIONS if not p.keeps_target] == ["renamed"]
    for demo in DEMOS:    # each demonstration has ~10 acts and clicks something the renamed run renames
        assert len(demo.acts) >= 10 and any(a.kind == "click" and a.value in RENAMES for a in demo.acts)


def test_playground_perturbation_options() -> None:
    opts = parse_options(["--reorder", "--extra-widget", "--rename", "Add=Append", "--rename", "Log in = Enter"])
    assert opts.reorder and opts.extra_widget and dict(opts.rename) == {"Add": "Append", "Log in": "Enter"}
    plain = parse_options([])
    assert not plain.reorder and not plain.extra_widget and not plain.rename
    for bad in (["--rename", "Add"], ["--rename", "=x"], ["--rename", "Add="]):
        with pytest.raises(ConfigError, match="OLD=NEW"):
            parse_options(bad)
    argv = playground_command(Path("s.json"), reorder=True, extra_widget=True, rename={"OK": "Done"})
    assert argv[-4:] == ["--reorder", "--extra-widget", "--rename", "OK=Done"]
    assert "--reorder" not in playground_command(Path("s.json"))
    state = initial_state(save_dir=Path("/tmp"), theme="light", font_scale=1.0, reorder=True)
    assert state["items"]["list"] == ["Cherries", "Bananas", "Apples"]
    assert state["contacts"]["rows"] == ["Carol", "Bob", "Alice"]
    assert initial_state(save_dir=Path("/tmp"), theme="light", font_scale=1.0)["items"]["list"][0] == "Apples"


def test_a_click_on_a_list_row_means_the_rows_text() -> None:
    """The compiler's element under a click: a list's row text, not the whole (tall) list."""
    lst = Element(ElementKind.TEXT_FIELD, Box(26, 150, 320, 502))
    dates = Element(ElementKind.TEXT, Box(30, 210, 46, 23), "Dates")
    figs = Element(ElementKind.TEXT, Box(28, 232, 36, 22), "Figs")
    field = Element(ElementKind.TEXT_FIELD, Box(358, 174, 240, 24), "Dates", label="New item")
    elements = [lst, dates, figs, field]
    assert element_at(elements, Point(186, 221)) is dates       # the row's middle, far right of the word
    assert element_at(elements, Point(40, 240)) is figs
    assert element_at(elements, Point(186, 400)) is lst         # an empty row: the list itself
    assert element_at(elements, Point(470, 186)) is field       # a one-line field keeps its content


# -- end to end (Xvfb, real input) ------------------------------------------------------------


# -- what the bench needed fixed in the compiler and the replay --------------------------------
class _Ladder:
    """An OCR ladder over a fixed list of texts (centre points); others are not found."""
    last_alternatives: list = []   # the Ladder protocol: runners-up of the latest

    def __init__(self, texts: dict[str, tuple[int, int]]) -> None:
        self.texts = texts

    def resolve(self, description: str, obs) -> Candidate:
        at = self.texts.get(description.strip('"'))
        if at is None:
            raise TargetNotFound(description, "not on the fake screen")
        return Candidate(Box(at[0] - 20, at[1] - 8, 40, 16), 1.0, "ocr")


def _compiler(values: list[str]):
    from types import SimpleNamespace

    from gui_agent.recording.compiler import DemoCompiler

    compiler = DemoCompiler(SimpleNamespace(), parser=SimpleNamespace())
    compiler.values = values
    return compiler


def _parse(*texts: str) -> ScreenParse:
    return ScreenParse(tuple(Element(ElementKind.TEXT, Box(10, 20 * i, 80, 16), t) for i, t in enumerate(texts)),
                       800, 600)


def test_compiler_postconditions_and_landmarks_skip_regrouped_words_typed_values_and_twins() -> None:
    compiler = _compiler(["Kiwis"])
    assert compiler._has_value("Kiwvisl") and compiler._has_value("Added 'Kiwis'")   # misread with the caret
    assert not compiler._has_value("Bananas") and not compiler._has_value("Kit")
    frames = {"a": _parse("Apples", "Bananas Cherries", "Kiwis"),
              "b": _parse("Apples Bananas Cherries", "Kiwvisl", "Welcome back!"),
              "c": _parse("Apples Bananas", "Cherries")}
    compiler.parse = frames.get
    assert compiler.post_text("a", "b") == "Welcome back!"   # not the list OCR grouped otherwise
    assert compiler.post_text("a", "c") is None
    edits = ScreenParse(tuple(Element(ElementKind.BUTTON, Box(293, 186 + 34 * i, 80, 24), "Edit") for i in range(3))
                        + (Element(ElementKind.TEXT, Box(114, 190, 140, 16), "alice@example.com"),), 800, 600)
    assert [e.text for e in compiler._fixed_texts(edits)] == ["alice@example.com"]


def test_a_postcondition_text_is_visible_when_its_words_are() -> None:
    from gui_agent.replay.conditions import text_visible

    def resolve(description, obs):
        raise TargetNotFound(description, "not as one line")

    shown = lambda obs: [Element(ElementKind.TEXT, Box(0, 0, 9, 9), "Red"),  # noqa: E731
                         Element(ElementKind.TEXT, Box(0, 9, 9, 9), "Green")]
    assert text_visible(resolve, "Red Green", None, shown)
    assert not text_visible(resolve, "Red Blue", None, shown)
    assert not text_visible(resolve, "Red Green", None)          # without a parse: as before


def test_region_postconditions_try_each_plausible_shift() -> None:
    from gui_agent.replay.resolve import Found
    from gui_agent.replay.steps import _region_shifts

    step = SkillStep('click("Verbose logging")', box=(344, 248, 464, 274))
    found = Found(Candidate(Box(326, 252, 16, 16), 1.0, "ocr"), "ocr")   # its check box, not its text
    assert _region_shifts(step, found, (0, 0)) == [(-70, -1), (-18, 4), (0, 0)]
    assert _region_shifts(step, None, (5, 6)) == [(5, 6)]


def test_landmarks_on_the_targets_row_decide_when_rows_were_reordered() -> None:
    from gui_agent.replay.landmarks import locate
    from gui_agent.screen.observation import Observation

    obs = Observation.from_image(Image.new("RGB", (800, 600), "white"))
    # Alice's Edit was learned on row 1 under the "Action" header; the rows were reversed: her
    # e-mail is on row 3 now, Bob's stays on row 2; the Edit image is on every row.
    marks = (("Action", 15, 30), ("alice@example.com", 147, -1), ("bob@example.com", 147, -35))
    texts = {"Action": (318, 168), "alice@example.com": (186, 266), "bob@example.com": (186, 232)}
    rows = (198, 232, 266)   # the Edit image confirms any place on a row (within 6 px)
    confirm = lambda box: 1.0 if any(abs(box.center.y - y) <= 6 for y in rows) else None  # noqa: E731
    cand, why = locate(marks, obs, find_text=_Ladder(texts).resolve, size=(80, 24), ocr_text="Edit",
                       confirm=confirm)
    assert cand is not None and cand.box.center == Point(333, 265), why
    # No landmark on its row: two confirmed places that disagree are no answer
    cand, why = locate(marks[:1] + (("Address book", 200, 90),), obs, confirm=confirm, size=(80, 24),
                       find_text=_Ladder({"Action": (318, 168), "Address book": (133, 142)}).resolve, ocr_text="Edit")
    assert cand is None and "disagree" in why


def test_an_ocr_match_far_from_where_the_landmarks_put_the_target_is_refused() -> None:
    from gui_agent.replay.resolve import Anchors, Drift, Miss, Rungs
    from gui_agent.screen.observation import Observation

    obs = Observation.from_image(Image.new("RGB", (1024, 700), "white"))
    # '"Log in"' reads like the tab "Login" once the button is renamed; its landmarks are elsewhere
    ladder = _Ladder({"Log in": (39, 51), "Remember me": (449, 274)})
    rungs = Rungs(ladder, None, None)
    anchors = Anchors(('"Log in"',), box=(627, 296, 737, 320), ocr_text="Log in",
                      landmarks=(("Remember me", 233, 34),))
    miss = Miss()
    assert rungs.lower(obs, anchors, Drift(), miss) is None
    assert "put it elsewhere" in miss.notes[0] and miss.candidates
    ladder.texts["Log in"] = (690, 312)                  # the button itself, a little moved
    assert rungs.lower(obs, anchors, Drift(), Miss()).candidate.box.center == Point(690, 312)


def test_twins_near_the_learned_place_are_told_apart_by_reading_their_landmarks() -> None:
    from gui_agent.replay.resolve import Anchors, Rungs, _detailless
    from gui_agent.screen.observation import Observation

    field = Image.new("RGB", (369, 32), "white")
    ImageDraw.Draw(field).rectangle([4, 4, 364, 27], outline=(120, 120, 120))
    assert _detailless(field)
    ImageDraw.Draw(field).line([12, 9, 12, 22], fill="black")            # the text cursor
    assert _detailless(field)
    ImageDraw.Draw(field).text((16, 9), "Kiwis and more", fill="black")
    assert not _detailless(field)

    class Reader:
        def __init__(self, text: str) -> None:
            self.text, self.regions = text, []

        def read_text(self, image, box):
            self.regions.append(box)
            return self.text

    crop = Image.new("RGB", (88, 32), "gray")
    obs = Observation.from_image(Image.new("RGB", (800, 600), "white"))
    near = Candidate(Box(289, 182, 88, 32), 1.0, "template")
    anchors = Anchors(crop=crop, box=(293, 186, 373, 210), landmarks=(("Action", 15, 30),
                                                                      ("alice@example.com", 147, -1)))
    reader = Reader("carol@example.com")
    assert not Rungs(None, reader, None)._landmarks_read(obs, anchors, near)
    assert len(reader.regions) == 1 and reader.regions[0].center.y == 199    # only the row's landmark is read
    assert Rungs(None, Reader("alice@example.com"), None)._landmarks_read(obs, anchors, near)
    assert not Rungs(None, object(), None)._landmarks_read(obs, anchors, near)   # cannot read: not confirmed
