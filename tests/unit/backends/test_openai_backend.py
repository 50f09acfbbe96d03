"""The OpenAI-compatible backend against a scripted local HTTP server."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PIL import Image

from gui_agent.backends.base import GenerationSettings, Message
from gui_agent.backends.factory import create_backend
from gui_agent.backends.images import ImageBudget, decode_data_url
from gui_agent.backends.openai_backend import OpenAIBackend
from gui_agent.errors import BackendError, ConfigError


def _completion(text: str) -> tuple[int, dict]:
    return 200, {"id": "x", "object": "chat.completion",
                 "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}


class ScriptedServer:
    """/v1/chat/completions answers from a script (status, body); every request is recorded."""

    def __init__(self) -> None:
        self.script: list[tuple[int, dict]] = []
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.models = ["served-model"]
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path == "/v1/models":
                    self._send(200, {"data": [{"id": m} for m in outer.models]})
                else:
                    self._send(404, {"error": {"message": "no route"}})

            def do_POST(self):
                length = int(self.headers["Content-Length"])
                outer.requests.append(json.loads(self.rfile.read(length)))
                outer.headers.append(dict(self.headers))
                status, body = outer.script.pop(0) if outer.script else _completion("done()")
                self._send(status, body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = ScriptedServer()
    yield s
    s.close()


SCREEN = Image.new("RGB", (1280, 800), (250, 250, 250))
BUDGET = ImageBudget(min_pixels=3136, max_pixels=256 * 28 * 28)


def _messages() -> list[Message]:
    return [Message.text("system", "You operate a computer."),
            Message("user", (SCREEN, "Click the OK button"))]


def _backend(server, **kw) -> OpenAIBackend:
    kw.setdefault("backoff", 0.01)
    return OpenAIBackend("served-model", server.url, budget=BUDGET, **kw)


def test_sends_budgeted_png_and_settings(server):
    server.script = [_completion("click(\"OK\")")]
    settings = GenerationSettings(max_new_tokens=77, temperature=0.3, top_p=0.9, stop=("\n\n",),
                                  extra={"seed": 5})
    assert _backend(server).generate(_messages(), settings) == 'click("OK")'
    (request,) = server.requests
    assert request["model"] == "served-model"
    assert (request["max_tokens"], request["temperature"], request["top_p"]) == (77, 0.3, 0.9)
    assert request["stop"] == ["\n\n"] and request["seed"] == 5
    system, user = request["messages"]
    assert system == {"role": "system", "content": "You operate a computer."}
    image_part, text_part = user["content"]
    assert text_part == {"type": "text", "text": "Click the OK button"}
    url = image_part["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    image = decode_data_url(url)
    assert image.format == "PNG" and image.size == BUDGET.resized_size(1280, 800)


def test_api_key_comes_from_the_named_variable(server, monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-test")
    _backend(server, api_key_env="MY_KEY").generate(_messages())
    assert server.headers[0]["Authorization"] == "Bearer sk-test"


def test_retries_transient_errors_with_backoff(server, monkeypatch):
    sleeps: list[float] = []
    monkeypatch.setattr("gui_agent.backends.openai_backend._sleep", sleeps.append)
    server.script = [(503, {"error": {"message": "loading"}}), (429, {"error": "busy"}),
                     _completion("wait()")]
    assert _backend(server, backoff=0.5).generate(_messages()) == "wait()"
    assert len(server.requests) == 3 and sleeps == [0.5, 1.0]
    server.requests.clear()
    server.script = [(502, {"error": "bad gateway"})] * 3
    with pytest.raises(BackendError, match="answered 502"):
        _backend(server, max_retries=2).generate(_messages())
    assert len(server.requests) == 3


def test_connection_refused_says_to_start_a_server():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    backend = OpenAIBackend("m", f"http://127.0.0.1:{port}/v1", max_retries=0)
    with pytest.raises(BackendError, match=r"no server at http://127.0.0.1:\d+/v1: start one first, e.g. `vllm serve m"):
        backend.generate(_messages())


def test_unauthorized_names_the_key_variable(server, monkeypatch):
    monkeypatch.delenv("MY_KEY", raising=False)
    server.script = [(401, {"error": {"message": "invalid api key"}})]
    with pytest.raises(BackendError, match=r"401 unauthorized.*set the API key in \$MY_KEY"):
        _backend(server, api_key_env="MY_KEY").generate(_messages())


def test_unknown_model_lists_what_the_server_has(server):
    server.script = [(404, {"error": {"message": "The model `nope` does not exist."}})]
    with pytest.raises(BackendError, match=r"model 'served-model' not found .*the server has: served-model"):
        _backend(server).generate(_messages())
    server.script = [(400, {"error": {"message": "model 'x' not found, try pulling it first"}})]
    with pytest.raises(BackendError, match="not found"):
        _backend(server).generate(_messages())


def test_payload_too_large_retries_once_with_half_the_pixels(server):
    server.script = [(413, {"error": "too large"}), _completion("ok")]
    assert _backend(server).generate(_messages()) == "ok"
    first, second = (decode_data_url(r["messages"][1]["content"][0]["image_url"]["url"])
                     for r in server.requests)
    assert first.size == BUDGET.resized_size(1280, 800)
    assert second.size == BUDGET.halved().resized_size(1280, 800)
    assert second.width * second.height <= first.width * first.height / 2
    server.requests.clear()
    server.script = [(413, {"error": "too large"}), (413, {"error": "too large"})]
    with pytest.raises(BackendError, match="too large .413. even with images at half the pixels"):
        _backend(server).generate(_messages())
    assert len(server.requests) == 2


def test_reply_that_is_not_a_completion(server):
    server.script = [(200, {"result": "?"})]
    with pytest.raises(BackendError, match="not a chat completion"):
        _backend(server).generate(_messages())


def test_factory_picks_the_served_model_and_its_family(server):
    server.models = ["ByteDance-Seed/UI-TARS-1.5-7B"]
    backend, family = create_backend(None, backend="openai", base_url=server.url)
    assert isinstance(backend, OpenAIBackend) and family.name == "ui-tars-1.5"
    assert backend.budget.max_pixels == family.max_pixels
    server.models = ["a", "b"]
    with pytest.raises(ConfigError, match="serves: a, b"):
        create_backend(None, backend="openai", base_url=server.url)
    with pytest.raises(ConfigError, match="backend must be one of"):
        create_backend("m", backend="grpc")
