"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1 that records every request.

Each model name the server serves answers with a function of the request's JSON body (the
conversation as the backend sent it), so a test can reply in a family's real format from the
live screen and check afterwards that each request followed the family's protocol::

    with ScriptedChatServer({"ui-tars": reply_fn}) as server:
        settings = Settings(model="ui-tars", base_url=server.url, ...)
        ...
    server.requests["ui-tars"]   # the JSON bodies, in order

Standard library only; a reply function that raises answers 500 with the error (the test
sees it in the run's reason).
"""

from __future__ import annotations

import base64
import io
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from PIL import Image

Reply = Callable[[dict[str, Any]], str]


class ScriptedChatServer:
    def __init__(self, replies: dict[str, Reply]) -> None:
        self.replies = replies
        self.requests: dict[str, list[dict[str, Any]]] = {name: [] for name in replies}
        self.errors: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                self._send(200, {"data": [{"id": name} for name in server.replies]})

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                name = body.get("model")
                if name not in server.replies:
                    self._send(404, {"error": {"message": f"model {name!r} not found"}})
                    return
                server.requests[name].append(body)
                try:
                    text = server.replies[name](body)
                except Exception as exc:  # noqa: BLE001 - reported to the client and the test
                    server.errors.append(f"{name}: {exc!r}")
                    self._send(500, {"error": {"message": repr(exc)}})
                    return
                self._send(200, {"id": "x", "object": "chat.completion", "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}}]})

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedChatServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    """A message's content as typed parts (a plain string becomes one text part)."""
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def image_count(body: dict[str, Any]) -> int:
    return sum(p["type"] == "image_url" for m in body["messages"] for p in parts(m))


def image_size(part: dict[str, Any]) -> tuple[int, int]:
    """The size of an image_url part's base64 image."""
    data = part["image_url"]["url"].split(",", 1)[1]
    return Image.open(io.BytesIO(base64.b64decode(data))).size


def texts(body: dict[str, Any]) -> str:
    return "\n".join(p["text"] for m in body["messages"] for p in parts(m) if p["type"] == "text")
