"""Any OpenAI-compatible chat-completions server: vLLM, SGLang, llama.cpp, Ollama, LM Studio.

Standard library only (urllib, through :mod:`.bounded_http`). Images are resized to the
family's budget and sent as base64 data URLs. One request, connect to last byte, takes at most
``timeout`` seconds and never more than the run's :class:`~gui_agent.deadline.Deadline` leaves;
a reply over ``max_reply_bytes`` is refused. Transient failures (connection reset, 429, 5xx) are
retried a bounded number of times with exponential backoff, or after the server's
``Retry-After``, unless the wait would pass the deadline; a 413 (payload too large) is retried
once with every image at half the pixels. Every failure is a BackendError (or DeadlineExceeded)
that says what to do.
"""

from __future__ import annotations

import json
import logging
import math
import os
import time
from typing import Any

from PIL import Image

from ..deadline import Deadline
from ..errors import BackendError, GuiAgentError
from .base import GenerationSettings, Message
from .bounded_http import (
    BROKEN,
    DNS,
    PROTOCOL,
    REFUSED,
    RETRYABLE,
    TIMEOUT,
    TLS,
    TOO_LARGE,
    HttpFailure,
    HttpReply,
    exchange,
    retry_after_seconds,
)
from .images import ImageBudget, image_data_url
from .registry import ModelFamily

__all__ = ["DEFAULT_BASE_URL", "HttpReply", "OpenAIBackend"]


log = logging.getLogger(__name__)
_sleep = time.sleep   # a retry's wait (tests replace it without touching other threads' sleeps)

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
RETRY_STATUSES = (429, 500, 502, 503, 504)
RETRY_AFTER_STATUSES = (429, 503)
DEFAULT_MAX_REPLY_BYTES = 20 * 1024 * 1024
MODEL_LIST_SECONDS = 10.0  # the model list only makes a message more helpful: never wait long
_JSON_ERRORS = (ValueError, RecursionError, MemoryError)


def _error_detail(body: str) -> str:
    """The server's own error message from a JSON error body, else the body's start."""
    try:
        data = json.loads(body)
    except _JSON_ERRORS:
        return body.strip()[:300]
    error = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(error, dict):
        error = error.get("message") or error.get("detail") or error
    try:
        return str(error)[:300]
    except (ValueError, RecursionError):  # e.g. an int too long to print
        return body.strip()[:300]


class OpenAIBackend:
    """``generate(messages) -> text`` through ``POST {base_url}/chat/completions``."""

    name = "openai"

    def __init__(self, model: str, base_url: str = DEFAULT_BASE_URL,
                 family: ModelFamily | None = None, budget: ImageBudget | None = None,
                 api_key_env: str = "OPENAI_API_KEY", timeout: float = 120.0,
                 max_retries: int = 3, backoff: float = 1.0, image_format: str = "PNG",
                 *, deadline: Deadline | None = None,
                 max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
                 max_retry_wait: float = 60.0) -> None:
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.family = family
        self.budget = budget or (family.budget if family else ImageBudget())
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.image_format = image_format
        self.deadline = deadline
        self.max_reply_bytes = max_reply_bytes
        self.max_retry_wait = max_retry_wait

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

    def _request(self, method: str, path: str, payload: dict[str, Any] | None = None,
                 deadline: Deadline | None = None, timeout: float | None = None) -> HttpReply:
        """One HTTP exchange within ``min(timeout, deadline.remaining())``; HTTP error
        statuses are returned, every other failure raised as a BackendError."""
        limit = self.timeout if timeout is None else timeout
        left = deadline.remaining() if deadline is not None else None
        by_deadline = left is not None and left < limit
        if by_deadline and left is not None and left <= 0:
            raise deadline.exceeded(f"no time left to ask {self.base_url}")  # type: ignore[union-attr]
        seconds = left if by_deadline and left is not None else limit
        try:
            data = json.dumps(payload).encode("utf-8") if payload is not None else None
        except (TypeError, ValueError) as exc:
            raise BackendError(f"the request to {self.base_url} cannot be written as JSON: {exc}; "
                               "check the generation settings' extra values") from exc
        try:
            return exchange(self.base_url + path, method, data, self._headers(), seconds=seconds,
                            max_bytes=self.max_reply_bytes)
        except HttpFailure as failure:
            if failure.kind == TIMEOUT:
                if by_deadline:
                    raise deadline.exceeded(  # type: ignore[union-attr]
                        f"waiting for the model at {self.base_url}") from failure
                raise self._timeout() from failure
            raise

    # -- errors --------------------------------------------------------------------------
    def _refused(self) -> BackendError:
        return BackendError(
            f"no server at {self.base_url}: start one first, e.g. `vllm serve {self.model} "
            "--port 8000` (or llama.cpp's llama-server, Ollama, LM Studio), or pass --base-url"
        )

    def _timeout(self) -> BackendError:
        return BackendError(
            f"{self.base_url} did not answer within {self.timeout:g} s: the server may be "
            "overloaded or the model too slow; raise the timeout or lower max tokens")

    def _failure_error(self, failure: HttpFailure, attempts: int = 1) -> BackendError:
        """The message for a request that got no usable HTTP reply."""
        url, detail = self.base_url, failure.detail
        if failure.kind == REFUSED:
            return self._refused()
        if failure.kind == DNS:
            return BackendError(f"cannot resolve the host of {url}: {detail}; check --base-url")
        if failure.kind == TLS:
            return BackendError(f"the TLS connection to {url} failed ({detail}): check the "
                                "address (http or https) and the server's certificate")
        if failure.kind == TOO_LARGE:
            return BackendError(
                f"{url} sent a reply larger than {self.max_reply_bytes} bytes ({detail}); refused "
                "unread. Lower max tokens, or raise the backend's max_reply_bytes")
        if failure.kind == PROTOCOL:
            return BackendError(
                f"{url} did not answer in valid HTTP ({detail}): is --base-url the address of "
                "an OpenAI-compatible server?")
        if failure.kind == BROKEN:
            times = f" {attempts} times" if attempts > 1 else ""
            return BackendError(f"{url} failed{times}: {detail}; is the server healthy?")
        return BackendError(f"cannot reach {url} ({detail}): check --base-url")

    def _available_models(self, deadline: Deadline | None = None) -> list[str]:
        """The served model ids, asked within ``MODEL_LIST_SECONDS``; [] when unknown."""
        deadline = deadline or self.deadline
        try:
            reply = self._request("GET", "/models", deadline=deadline,
                                  timeout=min(self.timeout, MODEL_LIST_SECONDS))
            data = json.loads(reply.body) if reply.status == 200 else {}
        except (GuiAgentError, *_JSON_ERRORS):  # a courtesy, even when the deadline ran out
            return []
        items = data.get("data", []) if isinstance(data, dict) else []
        if not isinstance(items, list):
            return []
        return [str(m.get("id"))[:200] for m in items if isinstance(m, dict) and m.get("id")]

    def _status_error(self, reply: HttpReply, deadline: Deadline | None = None) -> BackendError:
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
            models = self._available_models(deadline)
            known = f"; the server has: {', '.join(models)}" if models else ""
            return BackendError(
                f"model {self.model!r} not found on {self.base_url} ({detail}){known}. "
                "Pass the model name the server serves with --model")
        if reply.status == 413:
            return BackendError(
                f"{self.base_url} refused the request as too large (413) even with images at half "
                "the pixels: lower the image budget (max_pixels) or raise the server's body limit")
        if 300 <= reply.status < 400:
            where = reply.headers.get("location", "elsewhere")[:200]
            return BackendError(
                f"{self.base_url} answered {reply.status}, a redirect to {where!r}, which is not "
                "followed (the API key would go along): pass the final address with --base-url")
        return BackendError(f"{self.base_url} answered {reply.status}: {detail}")

    # -- generation ----------------------------------------------------------------------
    def _retry_delay(self, attempt: int, reply: HttpReply | None, why: str,
                     deadline: Deadline | None) -> float:
        """Seconds to wait before the next try: the server's Retry-After, else the backoff.

        Raises a BackendError now when the wait is too long or would pass the deadline.
        """
        delay = self.backoff * (2 ** attempt)
        if reply is not None and reply.status in RETRY_AFTER_STATUSES:
            asked = retry_after_seconds(reply.headers.get("retry-after"))
            if asked is not None:
                if asked > self.max_retry_wait:
                    shown = "a very long time" if math.isinf(asked) else f"{asked:.0f} s"
                    raise BackendError(
                        f"{self.base_url} {why} and asked to retry after {shown}, longer than the "
                        f"{self.max_retry_wait:g} s gui-agent waits: try again later")
                delay = asked
        left = deadline.remaining() if deadline is not None else None
        if left is not None and delay >= left:
            raise BackendError(
                f"{self.base_url} {why}; waiting {delay:.1f} s to retry would pass the run's time "
                f"limit ({left:.1f} s left): try again later or raise --max-seconds")
        return delay

    def _post_with_retries(self, payload: dict[str, Any],
                           deadline: Deadline | None = None) -> HttpReply:
        attempt = 0
        while True:
            if deadline is not None:
                deadline.check(f"before asking the model at {self.base_url}")
            failure: HttpFailure | None = None
            reply: HttpReply | None = None
            try:
                reply = self._request("POST", "/chat/completions", payload, deadline)
            except HttpFailure as exc:
                if exc.kind not in RETRYABLE:
                    raise self._failure_error(exc) from exc
                failure = exc
            if reply is not None and reply.status not in RETRY_STATUSES:
                return reply
            if attempt >= self.max_retries:
                if reply is not None:
                    return reply
                assert failure is not None
                raise self._failure_error(failure, attempt + 1) from failure
            why = f"answered {reply.status}" if reply is not None else f"failed ({failure.detail})"
            delay = self._retry_delay(attempt, reply, why, deadline)
            log.warning("%s %s; retrying in %.1f s", self.base_url, why, delay)
            _sleep(delay)
            attempt += 1

    def generate(self, messages: list[Message], settings: GenerationSettings | None = None, *,
                 deadline: Deadline | None = None) -> str:
        deadline = deadline if deadline is not None else self.deadline
        settings = settings or (self.family.generation if self.family else GenerationSettings())
        budget = self.budget
        reply = self._post_with_retries(self.build_payload(messages, settings, budget), deadline)
        if reply.status == 413 and any(m.images for m in messages):
            budget = budget.halved()
            log.warning("%s: payload too large; retrying with images at %d pixels at most",
                        self.base_url, budget.max_pixels)
            reply = self._post_with_retries(self.build_payload(messages, settings, budget),
                                            deadline)
        if reply.status != 200:
            raise self._status_error(reply, deadline)
        return self._reply_text(reply.body)

    def _reply_text(self, body: str) -> str:
        try:
            data = json.loads(body)
            content = data["choices"][0]["message"]["content"]
        except (*_JSON_ERRORS, KeyError, IndexError, TypeError) as exc:
            raise BackendError(
                f"{self.base_url} gave a reply that is not a chat completion: {body[:200]!r}; "
                "is --base-url an OpenAI-compatible server?") from exc
        if isinstance(content, list):  # some servers answer with typed parts
            content = "".join(p["text"] for p in content
                              if isinstance(p, dict) and isinstance(p.get("text"), str))
        if not isinstance(content, str):
            raise BackendError(f"{self.base_url} gave an empty reply: {body[:200]!r}")
        return content

    def list_models(self) -> list[str]:
        """Model ids the server serves (``GET /models``); empty when it cannot say."""
        return self._available_models()
