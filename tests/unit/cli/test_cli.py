"""The command line: dry runs on a screenshot file, and clear errors for bad input."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

from gui_agent.cli import main

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


@pytest.fixture(scope="module")
def form_png(tmp_path_factory):
    img = Image.new("RGB", (800, 500), (240, 240, 240))
    d = ImageDraw.Draw(img)
    font = ImageFont.truetype(FONT, 15)
    d.text((40, 62), "Name", fill="black", font=font)
    d.rectangle([140, 55, 400, 85], fill="white", outline=(120, 120, 120))
    d.rounded_rectangle([140, 120, 240, 152], radius=4, fill=(225, 225, 228), outline=(110, 110, 110))
    d.text((170, 127), "Save", fill="black", font=font)
    path = tmp_path_factory.mktemp("shots") / "form.png"
    img.save(path)
    return path


def test_dry_run_on_a_screenshot_prints_steps_and_points(form_png, tmp_path, capsys):
    code = main(["run", "--screenshot", str(form_png), "--runs-dir", str(tmp_path),
                 'type "Ann" into the Name field, then click "Save"'])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "type('Ann', into='the Name field')" in out
    lines = [ln for ln in out.splitlines() if ln.lstrip().startswith("[")]
    assert len(lines) == 2
    # the field spans x 140..400, y 55..85; the button x 140..240, y 120..152
    field_point = parse_point(lines[0])
    button_point = parse_point(lines[1])
    assert 140 <= field_point[0] <= 400 and 55 <= field_point[1] <= 85
    assert 140 <= button_point[0] <= 240 and 120 <= button_point[1] <= 152


def parse_point(line: str) -> tuple[int, int]:
    inside = line.split(" at (", 1)[1].split(")", 1)[0]
    x, y = (int(v) for v in inside.split(","))
    return x, y


def test_an_instruction_it_cannot_understand_exits_2_with_the_reason(form_png, tmp_path, capsys):
    code = main(["run", "--screenshot", str(form_png), "--runs-dir", str(tmp_path), "paint it blue"])
    out = capsys.readouterr().out
    assert code == 2
    assert 'could not understand "paint it blue"' in out


def test_a_missing_screenshot_file_is_a_clear_error(tmp_path, capsys):
    code = main(["run", "--screenshot", str(tmp_path / "nope.png"), 'click "OK"'])
    assert code == 2
    assert "nope.png" in capsys.readouterr().err


def test_a_target_that_is_not_there_fails_with_exit_1(form_png, tmp_path, capsys):
    code = main(["run", "--screenshot", str(form_png), "--runs-dir", str(tmp_path), 'click "Publish"'])
    out = capsys.readouterr().out
    assert code == 1
    assert "could not find" in out and "Publish" in out


def test_bad_demo_task_numbers_are_a_clear_error(capsys):
    assert main(["demo", "--tasks", "1,x"]) == 2
    assert "--tasks" in capsys.readouterr().err


# -- commands the README documents -----------------------------------------------------------

def test_screenshot_without_a_display_says_so_without_suggesting_a_flag_it_lacks(monkeypatch,
                                                                                  tmp_path, capsys):
    """It crashed with ImportError (save_screenshot was imported as a module-level function)."""
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    assert main(["screenshot", str(tmp_path / "s.png")]) == 2
    err = capsys.readouterr().err
    assert err == ("gui-agent: error: no display: DISPLAY is not set; set DISPLAY to a running "
                   "X server\n")


def _captured_main(monkeypatch, target: str) -> list:
    calls: list = []
    monkeypatch.setattr(target, lambda argv=None: calls.append(list(argv)) or 0)
    return calls


def test_playground_options_reach_the_playground(monkeypatch):
    """`gui-agent playground --state-file F` exited with "unrecognized arguments"."""
    calls = _captured_main(monkeypatch, "gui_agent.playground.main")
    argv = ["--state-file", "s.json", "--theme", "dark", "--font-scale", "1.25", "--rename",
            "Add=Append", "--save-dir", "d", "--reorder", "--size", "800x600", "--pos", "5,6"]
    assert main(["-v", "playground", *argv]) == 0
    assert calls == [argv]
    assert main(["playground"]) == 0 and calls[-1] == []


def test_app_options_reach_the_app(monkeypatch):
    calls = _captured_main(monkeypatch, "ui.main.main")
    argv = ["--task", "click app", "--dry-run", "--size", "900x700", "--startup-check"]
    assert main(["app", *argv]) == 0
    assert calls == [argv]


@pytest.mark.parametrize("command,flags", [
    ("playground", ["--state-file", "--theme", "--font-scale", "--size", "--pos", "--save-dir",
                    "--reorder", "--extra-widget", "--rename"]),
    ("app", ["--task", "--dry-run", "--pos", "--size", "--events-file", "--startup-check"]),
])
def test_playground_and_app_help_list_their_options(command, flags, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "see --help" not in out
    for flag in flags:
        assert flag in out, flag


@pytest.mark.parametrize("argv", [["playground", "--nope"], ["playground", "--theme", "pink"],
                                  ["app", "--size", "big"]])
def test_bad_playground_and_app_options_exit_2_before_any_window(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith(("gui-agent: error:", f"gui-agent {argv[0]}: error:"))
    assert argv[-1] in last


# -- text from a model, the screen or a file reaches the terminal without escape sequences ----

HOSTILE = ("\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1bPq#0\x1b\\"
           "\u202eevil\x9b31m text")


def _assert_clean(text: str) -> None:
    for bad in ("\x1b", "\x07", "\x9b", "\u202e"):
        assert bad not in text, repr(text)


def _fake_model_planner(action):
    from gui_agent.planner.base import Planner, Subtask

    class Manager:
        def plan(self, task, observation):
            return [Subtask(f"look {HOSTILE}")]

        def replan(self, task, observation, done, failed, reason):
            return []

    class Worker:
        def next_action(self, subtask, observation, history):
            return action

    return Planner("fake model", Manager(), Worker())


@pytest.mark.parametrize("action", ["done", "fail", "ask_user"])
def test_model_text_is_printed_without_escape_sequences(form_png, tmp_path, monkeypatch, capsys,
                                                        action):
    """A model's done(...) cleared the screen, retitled the window and wrote the clipboard."""
    from gui_agent.actions import AskUser, Done, Fail

    made = {"done": Done(answer=HOSTILE), "fail": Fail(reason=HOSTILE),
            "ask_user": AskUser(question=HOSTILE)}[action]
    monkeypatch.setattr("gui_agent.planner.offline_planner", lambda *readers: _fake_model_planner(made))
    main(["run", "--screenshot", str(form_png), "--runs-dir", str(tmp_path), f"task {HOSTILE}"])
    out, err = capsys.readouterr()
    _assert_clean(out + err)
    assert "look" in out and "evil" in out and "text" in out  # the words are still shown


def test_terminal_questions_are_asked_without_escape_sequences(monkeypatch):
    from gui_agent.actions import Click
    from gui_agent.commands import run as run_module

    prompts: list[str] = []
    monkeypatch.setattr("sys.stdin", type("Tty", (), {"isatty": staticmethod(lambda: True)})())
    monkeypatch.setattr("builtins.input", lambda prompt="": prompts.append(prompt) or "n")
    run_module._ask_on_terminal(f"which file? {HOSTILE}")
    run_module._confirm_on_terminal(Click(target_=f'"{HOSTILE}"'), None, f"it says {HOSTILE}")
    assert len(prompts) == 2
    for prompt in prompts:
        _assert_clean(prompt)
    assert prompts[0].startswith("gui-agent asks: which file?")


def test_a_stored_skill_is_shown_without_escape_sequences(tmp_path, capsys):
    from gui_agent.memory import MemoryStore, Skill, SkillStep

    db = tmp_path / "memory.sqlite3"
    with MemoryStore(db) as store:
        store.save_skill(Skill("tricky", description=f"read off the screen: {HOSTILE}",
                               steps=(SkillStep('click("OK")', target="OK"),)))
    for argv in (["skills", "show", "tricky"], ["skills", "list"]):
        assert main([*argv, "--memory", str(db)]) == 0
        out = capsys.readouterr().out
        _assert_clean(out)
        assert "read off the screen" in out


def test_error_messages_are_printed_without_escape_sequences(tmp_path, capsys):
    missing = tmp_path / f"suite{HOSTILE}.yaml"
    assert main(["batch", str(missing)]) == 2
    err = capsys.readouterr().err
    _assert_clean(err)
    assert err.startswith("gui-agent: error: ") and "cannot read the suite file" in err
