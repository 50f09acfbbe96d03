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
