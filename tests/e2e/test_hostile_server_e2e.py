"""The run's deadline reaches the transformers backend (torch): checked before loading, and
generation stops at it (the tiny checkpoint). The OpenAI backend's side is
tests/unit/backends/test_hostile_server.py."""

from __future__ import annotations

import time

import pytest

from gui_agent.backends.base import GenerationSettings, Message
from gui_agent.deadline import Deadline
from gui_agent.errors import DeadlineExceeded
from tests.support.vlm_fixtures import tiny_vlm_dir  # noqa: F401 - a fixture

MESSAGES = [Message.text("user", "Click OK")]


@pytest.mark.e2e("torch")
def test_the_transformers_backend_checks_the_deadline_before_loading(tmp_path):
    from gui_agent.backends.transformers_backend import TransformersBackend

    backend = TransformersBackend(str(tmp_path / "no-model-here"), device="cpu")
    with pytest.raises(DeadlineExceeded, match="before generating with no-model-here"):
        backend.generate(MESSAGES, deadline=Deadline(0))  # no load was tried: no BackendError


def test_the_transformers_backend_stops_generating_at_the_deadline(monkeypatch, tiny_vlm_dir):  # noqa: F811
    from gui_agent.backends import transformers_backend as tb
    from gui_agent.backends.registry import get_family

    backend = tb.TransformersBackend(str(tiny_vlm_dir), get_family("qwen2.5-vl"), device="cpu")
    model = backend.loaded.model
    real_generate = model.generate
    seen: dict[str, float] = {}

    def slow_generate(**kwargs):  # a model that runs until transformers' max_time stops it
        seen["max_time"] = kwargs["max_time"]
        time.sleep(kwargs["max_time"])
        return real_generate(**kwargs)

    monkeypatch.setattr(model, "generate", slow_generate)
    with pytest.raises(DeadlineExceeded, match="generating with"):
        backend.generate([Message.text("user", "Click OK")], GenerationSettings(max_new_tokens=2),
                         deadline=Deadline(0.5))
    assert 0 < seen["max_time"] <= 0.5
