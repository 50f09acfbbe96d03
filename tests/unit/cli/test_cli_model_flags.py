"""`gui-agent run --model ...`: flags, config file and environment reach the VLM planner."""

from __future__ import annotations

import pytest
from PIL import Image

from gui_agent import cli
from gui_agent import engine as vlm_setup
from gui_agent.backends.registry import get_family
from gui_agent.commands.run import model_overrides
from gui_agent.config import Settings, load_settings
from gui_agent.errors import ConfigError
from tests.support.scripted_backend import ScriptedBackend


@pytest.fixture(autouse=True)
def no_user_config(tmp_path, monkeypatch):
    monkeypatch.setenv("GUI_AGENT_CONFIG_DIR", str(tmp_path / "config"))
    for name in ("MODEL", "FAMILY", "BACKEND", "BASE_URL", "GROUNDING_MODEL", "MAX_PIXELS",
                 "PLANNER_MODEL", "PLANNER_FAMILY", "PLANNER_BASE_URL"):
        monkeypatch.delenv(f"GUI_AGENT_{name}", raising=False)


@pytest.fixture
def loaded(monkeypatch):
    """Replaces model loading: records what was asked for, answers with scripted backends."""
    calls: list[tuple[str, str | None, Settings]] = []
    scripts: dict[str, ScriptedBackend] = {}

    def load(model, family, settings):
        calls.append((model, family, settings))
        return scripts[model], get_family(family or "ui-tars-1.5")

    # the acting model is loaded with the run's settings, the planner with its own
    monkeypatch.setattr(vlm_setup, "load_backend", load)

    monkeypatch.setattr(vlm_setup, "load_backend", load)
    return calls, scripts


def parse(*argv: str):
    return cli.build_parser().parse_args(["run", "do it", *argv])


def test_every_model_flag_becomes_a_setting():
    args = parse("--model", "/models/UI-TARS-1.5-7B", "--family", "ui-tars-1.5", "--backend", "openai",
                 "--base-url", "http://localhost:8000/v1", "--api-key-env", "MY_KEY",
                 "--grounding-model", "osunlp/UGround-V1-2B", "--grounding-family", "uground",
                 "--grounding-zoom", "--allow-download", "--device", "cuda:1", "--dtype", "bfloat16",
                 "--max-pixels", "1024x28x28", "--min-pixels", "3136")
    s = Settings().with_overrides(**model_overrides(args))
    assert (s.model, s.family, s.backend, s.base_url, s.api_key_env) == (
        "/models/UI-TARS-1.5-7B", "ui-tars-1.5", "openai", "http://localhost:8000/v1", "MY_KEY")
    assert (s.grounding_model, s.grounding_family, s.grounding_zoom) == (
        "osunlp/UGround-V1-2B", "uground", True)
    assert (s.allow_download, s.device, s.dtype, s.max_pixels, s.min_pixels) == (
        True, "cuda:1", "bfloat16", 802816, 3136)
    planned = Settings().with_overrides(**model_overrides(parse(
        "--planner-model", "Qwen/Qwen3-8B", "--planner-family", "chat", "--planner-backend",
        "openai", "--planner-base-url", "http://localhost:11434/v1", "--max-new-tokens", "300",
        "--temperature", "0.2", "--top-p", "0.9")))
    assert (planned.planner_model, planned.planner_family, planned.planner_backend,
            planned.planner_base_url) == ("Qwen/Qwen3-8B", "chat", "openai",
                                          "http://localhost:11434/v1")
    assert (planned.max_new_tokens, planned.temperature, planned.top_p) == (300, 0.2, 0.9)


def test_flags_left_out_keep_the_config_and_environment_values(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('[agent]\nmodel = "/m/qwen"\nfamily = "qwen2.5-vl"\nallow_download = true\n'
                   'max_pixels = "1280x28x28"\n')
    env = {"GUI_AGENT_DEVICE": "cpu", "GUI_AGENT_MODEL": "/m/ui-tars", "GUI_AGENT_MIN_PIXELS": "3136"}
    s = load_settings(cfg, env).with_overrides(**model_overrides(parse()))
    assert (s.model, s.family, s.allow_download, s.device) == ("/m/ui-tars", "qwen2.5-vl", True, "cpu")
    assert (s.max_pixels, s.min_pixels) == (1280 * 28 * 28, 3136)
    flagged = load_settings(cfg, env).with_overrides(**model_overrides(parse("--model", "/m/x")))
    assert flagged.model == "/m/x"


@pytest.mark.parametrize("values, message", [
    ({"backend": "ollama"}, "backend must be one of"),
    ({"device": "tpu"}, "device must be one of"),
    ({"dtype": "int4"}, "dtype must be one of"),
    ({"min_pixels": 10_000, "max_pixels": 5_000}, "must not exceed"),
    ({"planner_backend": "ollama"}, "planner_backend must be one of"),
    ({"top_p": 0}, "top_p must be in"),
    ({"temperature": -1}, "temperature must be 0"),
    ({"max_new_tokens": 0}, "max_new_tokens must be at least 1"),
])
def test_bad_model_settings_are_refused_with_the_allowed_values(values, message):
    with pytest.raises(ConfigError, match=message):
        Settings(**values)


def test_a_bad_pixel_budget_in_the_environment_names_the_format(tmp_path):
    with pytest.raises(ConfigError, match="1024x28x28"):
        load_settings(tmp_path / "none.toml", {"GUI_AGENT_MAX_PIXELS": "lots"})


def test_a_bad_flag_value_is_a_usage_error(capsys):
    with pytest.raises(SystemExit):
        parse("--model", "x", "--dtype", "int4")
    with pytest.raises(SystemExit):
        parse("--model", "x", "--max-pixels", "many")
    assert "1024x28x28" in capsys.readouterr().err


def screenshot(tmp_path):
    path = tmp_path / "screen.png"
    Image.new("RGB", (448, 280), "white").save(path)
    return path


def test_run_with_a_native_agent_hands_it_the_task_and_never_asks_for_a_plan(tmp_path, loaded,
                                                                              capsys):
    calls, scripts = loaded
    scripts["/m/ui-tars"] = ScriptedBackend([
        "Thought: there.\nAction: click(start_box='(30,20)')",
        "Thought: done.\nAction: finished(content='clicked')",
    ])
    code = cli.main(["run", "click the box", "--model", "/m/ui-tars", "--family", "ui-tars-1.5",
                     "--device", "cpu", "--screenshot", str(screenshot(tmp_path)),
                     "--runs-dir", str(tmp_path / "runs")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "1. click the box" in out and "answer: clicked" in out
    (model, family, settings), = calls
    assert (model, family, settings.device) == ("/m/ui-tars", "ui-tars-1.5", "cpu")
    assert scripts["/m/ui-tars"].remaining == 0
    assert all("numbered list" not in r.text for r in scripts["/m/ui-tars"].requests)


def test_a_planner_model_plans_for_the_worker_on_its_own_server(tmp_path, loaded, capsys):
    calls, scripts = loaded
    scripts["/m/qwen3"] = ScriptedBackend(["1. Click the box"])
    scripts["/m/ui-tars"] = ScriptedBackend([
        "Thought: there.\nAction: click(start_box='(30,20)')",
        "Thought: done.\nAction: finished(content='')",
    ])
    code = cli.main(["run", "click the box", "--model", "/m/ui-tars", "--family", "ui-tars-1.5",
                     "--planner-model", "/m/qwen3", "--planner-family", "chat",
                     "--planner-base-url", "http://127.0.0.1:9/v1", "--base-url",
                     "http://127.0.0.1:8/v1", "--screenshot", str(screenshot(tmp_path)),
                     "--runs-dir", str(tmp_path / "runs")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "1. Click the box" in out
    loads = {model: (family, s.backend, s.base_url) for model, family, s in calls}
    assert loads == {"/m/ui-tars": ("ui-tars-1.5", None, "http://127.0.0.1:8/v1"),
                     "/m/qwen3": ("chat", "openai", "http://127.0.0.1:9/v1")}
    assert scripts["/m/qwen3"].remaining == 0 and scripts["/m/ui-tars"].remaining == 0
    plan = scripts["/m/qwen3"].requests[0]
    assert "numbered list" in plan.text and plan.images == []   # a text-only planner


def test_a_grounder_as_the_acting_model_is_refused_with_what_to_do(tmp_path, loaded, capsys):
    _, scripts = loaded
    scripts["/m/uground"] = ScriptedBackend([])
    code = cli.main(["run", "click it", "--model", "/m/uground", "--family", "uground",
                     "--screenshot", str(screenshot(tmp_path)), "--runs-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert code == cli.EXIT_ERROR
    assert "only point at elements" in err and "--grounding-model" in err


def test_an_unreadable_model_reply_exits_with_the_error_status(tmp_path, loaded, capsys):
    _, scripts = loaded
    scripts["m"] = ScriptedBackend(["no idea", "still no idea"])
    code = cli.main(["run", "click it", "--model", "m", "--screenshot", str(screenshot(tmp_path)),
                     "--runs-dir", str(tmp_path / "runs")])
    out = capsys.readouterr().out
    assert code == cli.EXIT_ERROR
    assert "ERROR" in out and "still no idea" in out


def test_a_grounding_model_alone_helps_the_offline_planner(tmp_path, loaded, capsys):
    calls, scripts = loaded
    scripts["/m/uground"] = ScriptedBackend(["Action: click(start_box='(224,140)')"])
    code = cli.main(["run", 'click "the gear icon"', "--grounding-model", "/m/uground",
                     "--grounding-family", "ui-tars-1.5", "--screenshot", str(screenshot(tmp_path)),
                     "--runs-dir", str(tmp_path / "runs")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert [c[0] for c in calls] == ["/m/uground"]
    assert "vlm" in out


def test_without_a_model_nothing_is_loaded(tmp_path, loaded, capsys):
    calls, _ = loaded
    code = cli.main(["run", "make it nicer", "--screenshot", str(screenshot(tmp_path)),
                     "--runs-dir", str(tmp_path / "runs")])
    assert code == cli.EXIT_ERROR and calls == []
    assert "could not understand" in capsys.readouterr().out.lower()
