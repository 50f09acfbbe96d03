"""One HTTP exchange bounded as a whole: in time (connect, headers, body) and in reply size.

A socket timeout bounds each read, not the exchange: a server trickling a byte a second keeps
a plain ``urlopen(timeout=60)`` alive for ever. Here every socket operation (plain or TLS) is
first given the time left until the exchange's end, so connecting, sending, the status line,
the headers and the body together never take longer than ``seconds``. The body is read in
chunks and counted, so a reply over ``max_bytes`` is refused rather than held in memory.

urllib still does the rest (proxies from the environment, HTTPS); redirects are not followed,
so a request and its API key never go to another address. Every failure is an
:class:`HttpFailure` whose ``kind`` says what happened; the caller turns it into a message.
"""

from __future__ import annotations

import email.utils
import http.client
import math
import socket
import ssl
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any

from ..errors import BackendError

CHUNK = 64 * 1024
ERROR_BODY_BYTES = 64 * 1024  # an error reply is read only this far: its start says enough

# HttpFailure kinds; RETRYABLE are the ones a healthy server can cause now and then.
TIMEOUT, REFUSED, DNS, TLS, TOO_LARGE, BROKEN, PROTOCOL, URL = (
    "timeout", "refused", "dns", "tls", "too-large", "broken", "protocol", "url")
RETRYABLE = (BROKEN,)


class HttpFailure(BackendError):
    """No usable HTTP reply; ``kind`` is one of the constants above, ``detail`` says more."""

    def __init__(self, kind: str, detail: str) -> None:
        self.kind = kind
        self.detail = detail
        super().__init__(f"{kind}: {detail}")


@dataclass(frozen=True)
class HttpReply:
    status: int
    body: str
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names


# -- sockets that give every operation only the time left -----------------------------------
class _Bounded:
    """Mixin for socket classes: each send/receive gets at most the time left until ``_end``."""

    _end = math.inf

    def _arm(self) -> None:
        left = self._end - time.monotonic()
        if left <= 0:
            raise TimeoutError("the time for this request ran out")
        if left != math.inf:
            self.settimeout(left)  # type: ignore[attr-defined]

    def recv(self, *args: Any, **kwargs: Any) -> Any:
        self._arm()
        return super().recv(*args, **kwargs)  # type: ignore[misc]

    def recv_into(self, *args: Any, **kwargs: Any) -> Any:
        self._arm()
        return super().recv_into(*args, **kwargs)  # type: ignore[misc]

    def send(self, *args: Any, **kwargs: Any) -> Any:
        self._arm()
        return super().send(*args, **kwargs)  # type: ignore[misc]

    def sendall(self, *args: Any, **kwargs: Any) -> Any:
        self._arm()  # since Python 3.5 the timeout bounds the whole sendall
        return super().sendall(*args, **kwargs)  # type: ignore[misc]


class _BoundedSocket(_Bounded, socket.socket):
    pass


class _BoundedSSLSocket(_Bounded, ssl.SSLSocket):
    pass


_TLS_CONTEXT: ssl.SSLContext | None = None


def _tls_context() -> ssl.SSLContext:
    global _TLS_CONTEXT
    if _TLS_CONTEXT is None:
        context = ssl.create_default_context()
        context.sslsocket_class = _BoundedSSLSocket
        _TLS_CONTEXT = context
    return _TLS_CONTEXT


def _bounded_connect(end: float):
    def connect(address: Any, timeout: Any = None, source_address: Any = None) -> socket.socket:
        left = end - time.monotonic()
        if left <= 0:
            raise TimeoutError("the time for this request ran out before connecting")
        plain = socket.create_connection(address, left, source_address)
        sock = _BoundedSocket(plain.family, plain.type, plain.proto, fileno=plain.detach())
        sock._end = end
        sock.settimeout(left)
        return sock
    return connect


class _Connection(http.client.HTTPConnection):
    def __init__(self, host: str, *, end: float, **kwargs: Any) -> None:
        super().__init__(host, **kwargs)
        self._create_connection = _bounded_connect(end)


class _TLSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, *, end: float, **kwargs: Any) -> None:
        super().__init__(host, **kwargs)
        self._end = end
        self._create_connection = _bounded_connect(end)

    def connect(self) -> None:
        super().connect()
        if isinstance(self.sock, _Bounded):
            self.sock._end = self._end  # the handshake was bounded by the socket's timeout


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, end: float) -> None:
        super().__init__()
        self._end = end

    def http_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(_Connection, req, end=self._end)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, end: float) -> None:
        super().__init__(context=_tls_context())
        self._end = end

    def https_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(_TLSConnection, req, context=self._context, end=self._end)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A 3xx is returned as it is: the request (and its API key) never goes elsewhere."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


# -- the exchange ------------------------------------------------------------------------------
def exchange(url: str, method: str = "GET", data: bytes | None = None,
             headers: dict[str, str] | None = None, *, seconds: float,
             max_bytes: int) -> HttpReply:
    """One request and its whole reply within ``seconds``; HTTP error statuses are returned,
    everything else that goes wrong raises :class:`HttpFailure`."""
    if seconds <= 0:
        raise HttpFailure(TIMEOUT, "no time was left for the request")
    end = time.monotonic() + seconds
    try:
        request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
        opener = urllib.request.build_opener(_HTTPHandler(end), _HTTPSHandler(end), _NoRedirect())
        try:
            response = opener.open(request, timeout=seconds)
        except urllib.error.HTTPError as exc:  # an error status: its body says why
            body = b""
            if exc.fp is not None:
                try:
                    body = _read_body(exc.fp, end, ERROR_BODY_BYTES, truncate=True)
                finally:
                    exc.fp.close()
            return HttpReply(exc.code, body.decode("utf-8", "replace"), _headers(exc.headers))
        with response:
            body = _read_body(response, end, max_bytes, truncate=False)
            return HttpReply(response.status, body.decode("utf-8", "replace"),
                             _headers(response.headers))
    except HttpFailure:
        raise
    except urllib.error.URLError as exc:
        reason = exc.reason
        raise _failure(reason) if isinstance(reason, BaseException) else HttpFailure(
            URL, str(reason)) from exc
    except (OSError, http.client.HTTPException, ValueError) as exc:
        raise _failure(exc) from exc


def _failure(exc: BaseException) -> HttpFailure:
    """The kind of a low-level failure (socket, TLS, HTTP parsing)."""
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, TimeoutError):
        return HttpFailure(TIMEOUT, detail)
    if isinstance(exc, ConnectionRefusedError):
        return HttpFailure(REFUSED, detail)
    if isinstance(exc, socket.gaierror):
        return HttpFailure(DNS, detail)
    if isinstance(exc, ssl.SSLError | ssl.CertificateError):
        return HttpFailure(TLS, detail)
    if isinstance(exc, http.client.IncompleteRead):
        return HttpFailure(BROKEN, f"the reply was cut off ({exc.partial and len(exc.partial)} "
                                   "bytes read, more announced)")
    if isinstance(exc, http.client.RemoteDisconnected | ConnectionError):
        return HttpFailure(BROKEN, f"the connection was closed or reset ({detail})")
    if isinstance(exc, http.client.LineTooLong):
        return HttpFailure(PROTOCOL, f"a line of the reply is too long ({detail})")
    if isinstance(exc, http.client.HTTPException):
        return HttpFailure(PROTOCOL, f"{type(exc).__name__}: {detail[:200]}")
    if isinstance(exc, ValueError):
        return HttpFailure(URL, detail[:200])
    return HttpFailure(BROKEN, f"{type(exc).__name__}: {detail[:200]}")


def _read_body(response: Any, end: float, max_bytes: int, *, truncate: bool) -> bytes:
    """The body in chunks, refusing (or, with ``truncate``, cutting) it past ``max_bytes``."""
    declared = getattr(response, "length", None)
    if not truncate and isinstance(declared, int) and declared > max_bytes:
        raise HttpFailure(TOO_LARGE, f"the reply announces {declared} bytes")
    chunks: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() >= end:
            raise HttpFailure(TIMEOUT, "the reply was still arriving when the time ran out")
        chunk = response.read(min(CHUNK, max_bytes - size + 1))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            if truncate:
                return b"".join(chunks)[:max_bytes]
            raise HttpFailure(TOO_LARGE, f"the reply was over {max_bytes} bytes and still coming")
    if isinstance(declared, int) and size < declared:
        raise HttpFailure(BROKEN, f"the reply was cut off ({size} of {declared} bytes)")
    return b"".join(chunks)


def _headers(message: Any) -> dict[str, str]:
    try:
        return {str(k).lower(): str(v) for k, v in message.items()} if message is not None else {}
    except (AttributeError, TypeError, ValueError):
        return {}


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """A ``Retry-After`` value (seconds, or an HTTP date) as seconds from now; None if unreadable."""
    if not value:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except (ValueError, OverflowError):
        pass
    else:
        return seconds if seconds >= 0 else None  # nan and negatives are unreadable; inf stays
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = time.time() if now is None else now
    try:
        return max(0.0, when.timestamp() - current)
    except (OverflowError, OSError, ValueError):
        return None
