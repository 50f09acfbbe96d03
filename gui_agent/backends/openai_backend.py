"""Any OpenAI-compatible chat-completions server: vLLM, SGLang, llama.cpp, Ollama, LM Studio.

Standard library only (urllib). Images are resized to the family's budget and sent as base64
data URLs. Transient failures (connection reset, 429, 5xx) are retried a bounded number of
times with exponential backoff; a 413 (payload too large) is retried once with every image
at half the pixels. Every other failure becomes a BackendError that says what to do.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from PIL import Image

from ..errors import BackendError
from .base import GenerationSettings, Message
from .images import ImageBudget, image_data_url
from .registry import ModelFamily

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
RETRY_STATUSES = (429, 500, 502, 503, 504)


@dataclass(frozen=True)
class HttpReply:
    status: int
    body: str


def _error_detail(body: str) -> str:
    """The server's own error message from a JSON error body, else the body's start."""
    try:
        data = json.loads(body)
    except ValueError:
        return body.strip()[:300]
    error = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(error, dict):
        return str(error.get("message") or error.get("detail") or error)[:300]
    return str(error)[:300]


class OpenAIBackend:
    """``generate(messages) -> text`` through ``POST {base_url}/chat/completions``."""

    name = "openai"

    def __init__(self, model: str, base_url: str = DEFAULT_BASE_URL,
                 family: ModelFamily | None = None, budget: ImageBudget | None = None,
                 api_key_env: str = "OPENAI_API_KEY", timeout: float = 120.0,
                 max_retries: int = 3, backoff: float = 1.0, image_format: str = "PNG") -> None:
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.family = family
        self.budget = budget or (family.budget if family else ImageBudget())
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.image_format = image_format

    # -- the request ---------------------------------------------------------------------
    def _content(self, message: Message, budget: ImageBudget) -> Any:
        if not message.images and len(message.content) == 1:
            return message.content[0]
        parts: list[dict[str, Any]] = []
        for part in message.content:
            if isinstance(part, Image.Image):
                url = image_data_url(budget.apply(part), self.image_format)
                parts.append({"type": "image_url", "image_url": {"url": url}})
            else:
                parts.append({"type": "text", "text": part})
        return parts

    def build_payload(self, messages: list[Message], settings: GenerationSettings,
                      budget: ImageBudget | None = None) -> dict[str, Any]:
        budget = budget or self.budget
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": self._content(m, budget)} for m in messages],
            "max_tokens": settings.max_new_tokens,
            "temperature": settings.temperature,
            "top_p": settings.top_p,
            "stream": False,
        }
        if settings.stop:
            payload["stop"] = list(settings.stop)
        payload.update(settings.extra)
        return payload

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(self.api_key_env, "") if self.api_key_env else ""
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _request(self, method: str, path: str, payload: dict[str, Any] | None = None) -> HttpReply:
        """One HTTP exchange; HTTP error statuses are returned, network failures raised."""
        data = json.dumps(payload).encode("utf-8") if payload is not None else None
        request = urllib.request.Request(self.base_url + path, data=data, method=method,
                                         headers=self._headers())
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return HttpReply(response.status, response.read().decode("utf-8", "replace"))
        except urllib.error.HTTPError as exc:
            body = exc.read().decode("utf-8", "replace") if exc.fp else ""
            return HttpReply(exc.code, body)

    # -- errors --------------------------------------------------------------------------
    def _refused(self) -> BackendError:
        return BackendError(
            f"no server at {self.base_url}: start one first, e.g. `vllm serve {self.model} "
            "--port 8000` (or llama.cpp's llama-server, Ollama, LM Studio), or pass --base-url"
        )

    def _available_models(self) -> list[str]:
        try:
            reply = self._request("GET", "/models")
            data = json.loads(reply.body) if reply.status == 200 else {}
        except (OSError, ValueError):
            return []
        items = data.get("data", []) if isinstance(data, dict) else []
        return [str(m.get("id")) for m in items if isinstance(m, dict) and m.get("id")]

    def _status_error(self, reply: HttpReply) -> BackendError:
        detail = _error_detail(reply.body)
        if reply.status in (401, 403):
            where = f"${self.api_key_env}" if self.api_key_env else "the API key variable"
            state = "is not set" if not os.environ.get(self.api_key_env or "") else "was refused"
            return BackendError(
                f"{self.base_url} answered {reply.status} unauthorized ({detail}): the API key in "
                f"{where} {state}; set the API key in {where}")
        lowered = detail.lower()
        if reply.status == 404 or ("model" in lowered and ("not found" in lowered
                                                            or "does not exist" in lowered)):
            models = self._available_models()
            known = f"; the server has: {', '.join(models)}" if models else ""
            return BackendError(
                f"model {self.model!r} not found on {self.base_url} ({detail}){known}. "
                "Pass the model name the server serves with --model")
        if reply.status == 413:
            return BackendError(
                f"{self.base_url} refused the request as too large (413) even with images at half "
                "the pixels: lower the image budget (max_pixels) or raise the server's body limit")
        return BackendError(f"{self.base_url} answered {reply.status}: {detail}")

    # -- generation ----------------------------------------------------------------------
    def _post_with_retries(self, payload: dict[str, Any]) -> HttpReply:
        attempt = 0
        while True:
            try:
                reply = self._request("POST", "/chat/completions", payload)
            except urllib.error.URLError as exc:
                reason = exc.reason
                if isinstance(reason, ConnectionRefusedError):
                    raise self._refused() from exc
                if isinstance(reason, socket.timeout | TimeoutError):
                    raise self._timeout() from exc
                if isinstance(reason, socket.gaierror):
                    raise BackendError(f"cannot resolve the host of {self.base_url}: {reason}") from exc
                error: BaseException = exc
                reply = None
            except (ConnectionResetError, ConnectionAbortedError, BrokenPipeError,
                    ConnectionError) as exc:
                if isinstance(exc, ConnectionRefusedError):
                    raise self._refused() from exc
                error, reply = exc, None
            except TimeoutError as exc:
                raise self._timeout() from exc
            if reply is not None and reply.status not in RETRY_STATUSES:
                return reply
            if attempt >= self.max_retries:
                if reply is not None:
                    return reply
                raise BackendError(
                    f"{self.base_url} failed {attempt + 1} times: {error}; is the server healthy?")
            delay = self.backoff * (2 ** attempt)
            why = f"status {reply.status}" if reply is not None else repr(error)
            log.warning("%s: %s; retrying in %.1f s", self.base_url, why, delay)
            time.sleep(delay)
            attempt += 1

    def _timeout(self) -> BackendError:
        return BackendError(
            f"{self.base_url} did not answer within {self.timeout:.0f} s: the server may be "
            "overloaded or the model too slow; raise the timeout or lower max tokens")

    def generate(self, messages: list[Message], settings: GenerationSettings | None = None) -> str:
        settings = settings or (self.family.generation if self.family else GenerationSettings())
        budget = self.budget
        reply = self._post_with_retries(self.build_payload(messages, settings, budget))
        if reply.status == 413 and any(m.images for m in messages):
            budget = budget.halved()
            log.warning("%s: payload too large; retrying with images at %d pixels at most",
                        self.base_url, budget.max_pixels)
            reply = self._post_with_retries(self.build_payload(messages, settings, budget))
        if reply.status != 200:
            raise self._status_error(reply)
        return self._reply_text(reply.body)

    def _reply_text(self, body: str) -> str:
        try:
            data = json.loads(body)
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise BackendError(
                f"{self.base_url} gave a reply that is not a chat completion: {body[:200]!r}") from exc
        if isinstance(content, list):  # some servers answer with typed parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if not isinstance(content, str):
            raise BackendError(f"{self.base_url} gave an empty reply: {body[:200]!r}")
        return content

    def list_models(self) -> list[str]:
        """Model ids the server serves (``GET /models``); empty when it cannot say."""
        return self._available_models()
