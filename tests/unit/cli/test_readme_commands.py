"""Every command line the README shows exists as documented, and the cheap ones run for real.

Commands come from the README itself: the lines starting with ``gui-agent`` in its ```bash
and ```text blocks (the synopsis under "The command line" included; continuation lines
joined) and the ``gui-agent ...`` code spans of its prose. For each one the subcommand's
``--help`` works and lists every ``--flag`` the README gives it (and every value of an
``a|b|c`` list); a concrete example line parses as it stands. ``screenshot``, ``playground``,
``app``, ``models``, ``memory path`` and ``run --screenshot`` then run as the README says.
So the README and the CLI cannot drift apart.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from gui_agent.cli import build_parser, main
from tests.support.paths import REPO

README = REPO / "README.md"
CONSOLE_SCRIPT = Path(sys.executable).parent / "gui-agent"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
COMMAND_BLOCKS = ("bash", "text", "sh", "console", "")
_FENCE = re.compile(r"^\s*```\s*(\w*)\s*$")
_ENV_ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=")


@dataclass(frozen=True)
class Command:
    line: int          # where it starts in README.md
    text: str          # as written, continuation lines joined
    fenced: bool       # from a code block (else a code span in the prose)

    @property
    def words(self) -> list[str]:
        words = shlex.split(self.text.removeprefix("$ "), comments=True)
        while words and _ENV_ASSIGNMENT.match(words[0]):
            words.pop(0)
        return words

    @property
    def synopsis(self) -> bool:
        """A usage line with placeholders ([--flag N], a|b, ...), not a runnable example."""
        return any(mark in word for word in self.words for mark in ("[", "|", "..."))

    def __str__(self) -> str:
        return f"README.md:{self.line}: {self.text}"


def readme_commands(text: str) -> list[Command]:
    """Every `gui-agent ...` command of the README, in order."""
    lines = text.splitlines()
    found: list[Command] = []
    in_block, lang, prose = False, "", []
    current: list[str] = []
    start = 0

    def flush() -> None:
        if current:
            found.append(Command(start, " ".join(current), fenced=True))
            current.clear()

    for number, line in enumerate(lines, 1):
        fence = _FENCE.match(line)
        if fence:
            flush()
            in_block = not in_block
            lang = fence.group(1).lower() if in_block else ""
            continue
        if not in_block:
            prose.append((number, line))
            continue
        if lang not in COMMAND_BLOCKS:
            continue
        stripped = line.strip()
        continues = current and (current[-1].endswith("\\") or stripped.startswith(("[--", "--")))
        if continues:
            current[-1] = current[-1].removesuffix("\\").rstrip()
            current.append(stripped)
            continue
        flush()
        words = stripped.removeprefix("$ ").split()
        while words and _ENV_ASSIGNMENT.match(words[0]):
            words.pop(0)
        if words and words[0] == "gui-agent":
            current.append(stripped)
            start = number
    flush()
    found.extend(_prose_commands(prose))
    return found


def _prose_commands(prose: list[tuple[int, str]]) -> list[Command]:
    """`gui-agent ...` code spans of the prose (a span may wrap onto the next line)."""
    text = "\n".join(line for _, line in prose)
    out = []
    for match in re.finditer(r"`(gui-agent [^`]+)`", text):
        number = prose[text.count("\n", 0, match.start())][0]
        out.append(Command(number, " ".join(match.group(1).split()), fenced=False))
    return out


COMMANDS = readme_commands(README.read_text(encoding="utf-8"))
FENCED = [c for c in COMMANDS if c.fenced]


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def resolve(command: Command) -> list[tuple[list[str], argparse.ArgumentParser]]:
    """The (subcommand path, parser) pairs a README command names: one, or one per choice of
    an ``a|b|c`` list of sub-actions (``skills list|show|...``)."""
    words = command.words
    assert words and words[0] == "gui-agent", command
    found = [([], build_parser())]
    for word in words[1:]:
        nxt = []
        for path, parser in found:
            subs = _subparsers(parser)
            if not subs:
                nxt.append((path, parser))
                continue
            for name in word.split("|"):
                assert name in subs, f"{command}\n  `gui-agent {' '.join(path)}` has no " \
                                     f"subcommand {name!r} (it has: {', '.join(subs)})"
                nxt.append(([*path, name], subs[name]))
        found = nxt
        if all(not _subparsers(p) for _, p in found):
            break
    return found


def flags_shown(command: Command) -> list[tuple[str, str | None]]:
    """Each ``--flag`` of the command with the word after it (None when there is none)."""
    words = [w.strip("[]") for w in command.words]
    out = []
    for i, word in enumerate(words):
        if not word.startswith("--"):
            continue
        flag, _, inline = word.partition("=")
        after = inline or (words[i + 1] if i + 1 < len(words) else None)
        out.append((flag.rstrip("."), after))
    return out


def test_the_readme_has_the_commands_this_test_checks():
    subcommands = {c.words[1] for c in COMMANDS if len(c.words) > 1}
    for name in ("run", "replay", "record", "compile", "screenshot", "playground", "demo",
                 "batch", "app", "models", "skills", "memory", "bench"):
        assert name in subcommands, f"the README no longer shows `gui-agent {name}`"
    synopsis = [c for c in FENCED if c.synopsis and c.words[1] == "run"]
    assert synopsis and "--no-memory" in synopsis[0].text  # continuation lines were joined
    assert len(FENCED) >= 20


@pytest.mark.parametrize("command", COMMANDS, ids=[f"line{c.line}" for c in COMMANDS])
def test_every_flag_the_readme_shows_exists(command: Command):
    for path, parser in resolve(command):
        options = {opt: action for action in parser._actions for opt in action.option_strings}
        for flag, value in flags_shown(command):
            assert flag in options, f"{command}\n  `gui-agent {' '.join(path)}` has no {flag}"
            choices = options[flag].choices
            if choices and value and "|" in value:
                for choice in value.split("|"):
                    assert choice in choices, f"{command}\n  {flag} does not take {choice!r}"


NOT_GUI_AGENT_FLAGS = {"--uninstall": "installer/install-desktop-entry.sh's",
                       "--num-cpus": "`ray start`'s (the cluster recipe)",
                       "--force-renderer-accessibility": "Chromium's and Electron's"}


def _all_options(parser: argparse.ArgumentParser) -> set[str]:
    options = {opt for action in parser._actions for opt in action.option_strings}
    for sub in _subparsers(parser).values():
        options |= _all_options(sub)
    return options


def test_every_flag_the_prose_names_belongs_to_some_command():
    """A `--flag` quoted on its own in the prose (`--runs-dir`, `--secret-hotkey`) exists."""
    quoted = set(re.findall(r"`(--[a-z][a-z0-9-]*)", README.read_text(encoding="utf-8")))
    assert len(quoted) > 20
    missing = sorted(quoted - _all_options(build_parser()) - set(NOT_GUI_AGENT_FLAGS))
    assert not missing, f"the README names flags no gui-agent command has: {missing}"


@pytest.mark.parametrize("command", [c for c in FENCED if not c.synopsis],
                         ids=[f"line{c.line}" for c in FENCED if not c.synopsis])
def test_every_example_line_parses_as_written(command: Command):
    try:
        build_parser().parse_args(command.words[1:])
    except SystemExit as exc:
        pytest.fail(f"{command}\n  is refused by the command line (exit {exc.code})")


HELP_PATHS = sorted({tuple(path) for c in COMMANDS for path, _ in resolve(c)})


@pytest.mark.parametrize("path", HELP_PATHS, ids=[" ".join(p) for p in HELP_PATHS])
def test_help_works_for_every_subcommand_the_readme_shows(path: tuple[str, ...], capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*path, "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: gui-agent {' '.join(path)}")
    assert "see --help" not in out


# -- the ones that can run headless, cheaply, for real ------------------------------------------

def _fenced(subcommand: str, *, synopsis: bool) -> Command:
    return next(c for c in FENCED if c.words[1:2] == [subcommand] and c.synopsis == synopsis)


def _console(words: list[str], **kwargs) -> subprocess.CompletedProcess:
    assert CONSOLE_SCRIPT.exists(), f"no console script {CONSOLE_SCRIPT}: install gui-agent"
    return subprocess.run([str(CONSOLE_SCRIPT), *words], capture_output=True, text=True,
                          timeout=120, **kwargs)


def test_screenshot_file_writes_the_screen_as_png(xvfb: str, tmp_path):
    """`gui-agent screenshot FILE [--monitor N]` (it crashed with an ImportError)."""
    assert _fenced("screenshot", synopsis=True).words[:3] == ["gui-agent", "screenshot", "FILE"]
    target = tmp_path / "shot.png"
    done = _console(["screenshot", str(target)])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"saved {target}"
    with Image.open(target) as image:
        assert image.format == "PNG" and image.size == (1280, 800)
    again = tmp_path / "all.png"
    assert main(["screenshot", str(again), "--monitor", "0"]) == 0
    assert Image.open(again).size == (1280, 800)


@pytest.mark.e2e("xvfb", "qt")
def test_playground_with_the_options_the_readme_shows(xvfb: str, tmp_path):
    """`gui-agent playground [--theme light|dark] [--font-scale 1.25] [--state-file FILE]`
    (every option was refused as "unrecognized arguments")."""
    shown = dict(flags_shown(_fenced("playground", synopsis=True)))
    state = tmp_path / "state.json"
    words = ["playground", "--theme", "dark", "--font-scale", shown["--font-scale"],
             "--state-file", str(state)]
    env = dict(os.environ, DISPLAY=xvfb, QT_QPA_PLATFORM="xcb")
    proc = subprocess.Popen([str(CONSOLE_SCRIPT), *words], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 90
        data = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                data = json.loads(state.read_text(encoding="utf-8"))
                break
            except (OSError, ValueError):
                time.sleep(0.2)
        assert data is not None, f"no state file; exit {proc.poll()}"
        assert data["theme"] == "dark" and data["font_scale"] == 1.25
    finally:
        proc.terminate()
        output, _ = proc.communicate(timeout=30)
    assert "unrecognized arguments" not in output


def test_app_starts_through_gui_agent_app(xvfb: str, tmp_path):
    env = dict(os.environ, DISPLAY=xvfb, QT_QPA_PLATFORM="offscreen",
               GUI_AGENT_CONFIG_DIR=str(tmp_path / "config"), GUI_AGENT_DATA_DIR=str(tmp_path))
    done = _console(["app", "--startup-check"], env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "window shown: True;" in done.stdout


def test_models_lists_the_families(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Model families (") and "ui-tars" in out


def test_memory_path_prints_the_database(capsys):
    from gui_agent.memory import default_memory_path

    assert main(["memory", "path"]) == 0
    out = capsys.readouterr().out.strip()
    assert out == str(default_memory_path()) and out.endswith("memory.sqlite3")


@pytest.fixture(scope="module")
def address_book(tmp_path_factory) -> tuple[Path, dict[str, tuple[int, int, int, int]]]:
    """Three rows, each with an identical "Edit" button; returns the file and each button's box."""
    image = Image.new("RGB", (700, 300), (245, 245, 245))
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, 16)
    boxes = {}
    for i, name in enumerate(("Ann", "Bob", "Cid")):
        y = 60 + 60 * i
        draw.text((40, y + 6), name, fill="black", font=font)
        box = (300, y, 380, y + 32)
        draw.rounded_rectangle(box, radius=4, fill=(225, 225, 228), outline=(110, 110, 110))
        draw.text((322, y + 7), "Edit", fill="black", font=font)
        boxes[name] = box
    path = tmp_path_factory.mktemp("readme") / "shot.png"
    image.save(path)
    return path, boxes


def test_run_on_a_screenshot_as_the_readme_shows(address_book, tmp_path, capsys):
    """`gui-agent run --screenshot shot.png 'click the Edit button next to Bob'`, verbatim."""
    shot, boxes = address_book
    command = next(c for c in FENCED if "--screenshot" in c.words and not c.synopsis)
    words = [str(shot) if w == "shot.png" else w for w in command.words[1:]]
    assert str(shot) in words, command
    assert main([*words, "--runs-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    step = next(line for line in out.splitlines() if line.lstrip().startswith("[ 1]"))
    x, y = (int(v) for v in step.split(" at (", 1)[1].split(")", 1)[0].split(","))
    left, top, right, bottom = boxes["Bob"]
    assert left <= x <= right and top <= y <= bottom, step


def test_an_instruction_it_cannot_read_is_answered_as_the_readme_says(address_book, tmp_path,
                                                                     capsys):
    shot, _ = address_book
    assert main(["run", "--screenshot", str(shot), "--runs-dir", str(tmp_path),
                 "make the window look nicer"]) == 2
    out = capsys.readouterr().out
    assert 'I could not understand "make the window look nicer": no known action verb' in out
