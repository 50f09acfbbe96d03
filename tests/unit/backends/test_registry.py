"""The model registry: every shipped family is valid, and a bad field is named clearly."""

from __future__ import annotations

import pytest

from gui_agent.backends.base import GenerationSettings
from gui_agent.backends.registry import (
    COORDINATE_CONVENTIONS,
    MODES,
    get_family,
    load_registry,
    parse_registry,
)
from gui_agent.errors import ConfigError

GOOD = """
[families.demo]
prompt = "gui-agent.txt"
parser = "gui-agent"
coordinates = "relative-1000"
min_pixels = 3136
max_pixels = 200704
match = ["Demo-VL"]

[families.demo.generation]
max_new_tokens = 64
temperature = 0.2
stop = ["<|im_end|>"]
"""


def test_shipped_registry_has_the_documented_families():
    families = load_registry()
    expected = {"ui-tars-1.5": "absolute-resized", "ui-tars-1.0": "relative-1000",
                "showui": "relative-1", "uground": "relative-1000", "os-atlas": "relative-1000",
                "qwen2.5-vl": "absolute-resized", "gui-agent": "absolute-resized"}
    for name, convention in expected.items():
        assert families[name].coordinates == convention
    for family in families.values():
        assert family.coordinates in COORDINATE_CONVENTIONS
        assert 0 < family.min_pixels <= family.max_pixels
        assert family.generation.max_new_tokens > 0
        assert family.modes and all(m in MODES for m in family.modes)
    assert families["ui-tars-1.5"].modes == ("native-agent", "grounder")
    assert families["qwen2.5-vl"].can("tool-agent") and not families["showui"].can("planner")


def test_a_family_reads_into_frozen_dataclasses():
    family = parse_registry(GOOD)["demo"]
    assert family.generation == GenerationSettings(max_new_tokens=64, temperature=0.2, top_p=1.0,
                                                   stop=("<|im_end|>",))
    assert family.match == ("demo-vl",)
    assert family.budget.max_pixels == 200704
    with pytest.raises(AttributeError):
        family.parser = "other"  # type: ignore[misc]


@pytest.mark.parametrize(("old", "new", "message"), [
    ('coordinates = "relative-1000"', 'coordinates = "percent"', "coordinates must be one of"),
    ("min_pixels = 3136", "min_pixels = 999999", "min_pixels <= max_pixels"),
    ('prompt = "gui-agent.txt"', 'prompt = "../secret.txt"', "prompt must be a file name"),
    ('prompt = "gui-agent.txt"', "", "missing field 'prompt'"),
    ("max_pixels = 200704", 'max_pixels = "lots"', "'max_pixels' must be int"),
    ('parser = "gui-agent"', 'parser = "gui-agent"\nsize = 3', "unknown field"),
    ("max_new_tokens = 64", "max_new_tokens = 0", "max_new_tokens must be a positive"),
    ("temperature = 0.2", "temperature = -1", "temperature must be a number"),
    ('stop = ["<|im_end|>"]', "stop = [1]", "'stop' must be a list of strings"),
    ('match = ["Demo-VL"]', 'match = "Demo-VL"', "'match' must be a list"),
    ('parser = "gui-agent"', 'parser = "gui-agent"\nmodes = ["boss"]', "modes must be a non-empty"),
    ('parser = "gui-agent"', 'parser = "gui-agent"\nmodes = ["native-agent"]',
     "needs an agent_prompt"),
    ('parser = "gui-agent"', 'parser = "gui-agent"\ngrounding_layout = "sideways"',
     "grounding_layout must be one of"),
    ('prompt = "gui-agent.txt"', 'prompt = "package:../x"', "package:MODULE:NAME"),
    ('parser = "gui-agent"', 'parser = "gui-agent"\nmax_images = 0', "max_images must be"),
])
def test_each_bad_field_is_named(old, new, message):
    text = GOOD.replace(old, new)
    with pytest.raises(ConfigError, match=message) as info:
        parse_registry(text, "registry.toml")
    assert "family 'demo'" in str(info.value)


def test_broken_or_empty_files_and_unknown_families(tmp_path, monkeypatch):
    with pytest.raises(ConfigError, match="not valid TOML"):
        parse_registry("[families.demo\n")
    with pytest.raises(ConfigError, match="at least one"):
        parse_registry("title = 'x'")
    with pytest.raises(ConfigError, match="cannot be read"):
        load_registry(tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match="unknown model family 'gpt-9'.*ui-tars-1.5"):
        get_family("gpt-9")
    custom = tmp_path / "registry.toml"
    custom.write_text(GOOD, encoding="utf-8")
    monkeypatch.setenv("GUI_AGENT_MODEL_REGISTRY", str(custom))
    assert list(load_registry()) == ["demo"]
