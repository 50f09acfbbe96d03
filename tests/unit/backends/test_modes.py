"""A configuration's mode follows from what its models are (the registry's modes)."""

from __future__ import annotations

import pytest

from gui_agent.backends.modes import (
    HIERARCHICAL,
    NATIVE,
    OFFLINE,
    TOOL,
    choose_mode,
    configured_mode,
    family_uses,
)
from gui_agent.backends.registry import get_family
from gui_agent.errors import ConfigError

F = get_family


@pytest.mark.parametrize(("model", "planner", "grounding", "mode", "worker", "rung"), [
    (None, None, None, OFFLINE, None, None),
    (None, None, "uground", OFFLINE, None, "uground"),
    ("ui-tars-1.5", None, None, NATIVE, "native-agent", "ui-tars-1.5"),
    ("ui-tars-1.0", None, "showui", NATIVE, "native-agent", "showui"),
    ("qwen2.5-vl", None, None, TOOL, "tool-agent", "qwen2.5-vl"),
    ("gui-agent", None, None, HIERARCHICAL, "action-text", "gui-agent"),
    ("ui-tars-1.5", "chat", "uground", HIERARCHICAL, "native-agent", "uground"),
    ("qwen2.5-vl", "qwen2.5-vl", None, HIERARCHICAL, "tool-agent", "qwen2.5-vl"),
    (None, "chat", "os-atlas", HIERARCHICAL, "action-text", "os-atlas"),
])
def test_each_configuration_gets_its_mode(model, planner, grounding, mode, worker, rung):
    choice = choose_mode(*(F(n) if n else None for n in (model, planner, grounding)))
    assert (choice.mode, choice.worker, choice.grounder) == (mode, worker, rung)
    assert choice.describe().startswith(choice.name)


@pytest.mark.parametrize(("model", "planner", "grounding", "message"), [
    ("showui", None, None, "only point at elements.*--grounding-model"),
    ("uground", "chat", None, "only point at elements"),
    ("qwen2.5-vl", "ui-tars-1.5", None, "trained to act, not to plan"),
    (None, None, "chat", "cannot point at elements"),
])
def test_a_model_used_for_what_it_cannot_do_is_refused_with_what_to_do(model, planner, grounding,
                                                                         message):
    with pytest.raises(ConfigError, match=message):
        choose_mode(*(F(n) if n else None for n in (model, planner, grounding)))


def test_the_mode_is_said_from_names_alone_and_each_family_says_what_it_can_be():
    choice = configured_mode("ByteDance-Seed/UI-TARS-1.5-7B", planner_model="Qwen/Qwen3-8B",
                             grounding_model="osunlp/UGround-V1-7B")
    assert (choice.mode, choice.worker, choice.grounder) == (HIERARCHICAL, "native-agent", "uground")
    assert family_uses(F("ui-tars-1.5")) == "native agent (--model), grounder (--grounding-model)"
