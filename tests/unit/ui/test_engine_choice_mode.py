"""The engine selector says which mode a chosen model gives (as `gui-agent models` does)."""

from __future__ import annotations

from tests.support.requirements import require_module

require_module("PySide6")

from ui.engine_choice import EngineChoice  # noqa: E402


def test_the_selector_says_the_mode_and_refuses_a_grounder_with_the_reason():
    assert "Mode: native agent" in EngineChoice("local", "/models/UI-TARS-1.5-7B").describe()
    served = EngineChoice("server", "Qwen/Qwen2.5-VL-7B-Instruct", "http://h:8000/v1").describe()
    assert "Mode: tool-calling agent" in served
    assert "only point at elements" in EngineChoice("local", "/m/UGround-V1-7B").describe()
    assert "Mode" not in EngineChoice().describe()
