"""The command line on the test's Xvfb: `gui-agent screenshot` of a monitor that does not exist."""

from __future__ import annotations

from gui_agent.cli import main


def test_screenshot_of_a_monitor_that_does_not_exist_is_exit_2(xvfb, tmp_path, capsys):
    assert main(["screenshot", str(tmp_path / "s.png"), "--monitor", "7"]) == 2
    assert "monitor 7 does not exist" in capsys.readouterr().err
    assert not (tmp_path / "s.png").exists()
