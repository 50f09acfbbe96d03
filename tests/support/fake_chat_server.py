"""A hostile fake chat-completions server on 127.0.0.1, for testing what a backend survives.

Raw sockets, one thread per connection; the first path segment picks the behaviour:
``FakeChatServer().url("trickle-headers")`` is ``http://127.0.0.1:<port>/trickle-headers/v1``,
so a backend pointed at it POSTs ``/trickle-headers/v1/chat/completions``. Each behaviour is
a function ``(connection, server, nth request of this behaviour)``; :data:`BEHAVIOURS` lists
them with what they do. ``ok`` answers a proper completion. Use as a context manager.
"""

from __future__ import annotations

import email.utils
import json
import socket
import ssl
import struct
import threading
import time
from collections import Counter
from collections.abc import Callable

TRICKLE_PERIOD = 0.2
HUGE_BYTES = 50 * 1024 * 1024
REPLY_TEXT = "done()"

Handler = Callable[[socket.socket, "FakeChatServer", int], None]


def completion(text: str = REPLY_TEXT) -> bytes:
    return json.dumps({"id": "x", "object": "chat.completion", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": text}}]}).encode()


def response(status: str, body: bytes = b"", headers: tuple[str, ...] = (),
             length: int | None = None) -> bytes:
    """A whole HTTP/1.1 response; ``length`` overrides the Content-Length announced."""
    head = [f"HTTP/1.1 {status}", "Content-Type: application/json", "Connection: close",
            f"Content-Length: {len(body) if length is None else length}", *headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


class FakeChatServer:
    """``tls``: a server-side SSLContext to speak HTTPS (then use ``url(..., "https")``)."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.tls = tls
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self.port = self._listener.getsockname()[1]
        self.stopped = threading.Event()
        self.hits: Counter[str] = Counter()
        self.requests: list[tuple[str, str]] = []   # (method, path)
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def url(self, behaviour: str, scheme: str = "http") -> str:
        return f"{scheme}://127.0.0.1:{self.port}/{behaviour}/v1"

    def close(self) -> None:
        self.stopped.set()
        self._thread.join(timeout=2)
        self._listener.close()

    def __enter__(self) -> FakeChatServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- serving -----------------------------------------------------------------------------
    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        try:
            if self.tls is not None:
                conn = self.tls.wrap_socket(conn, server_side=True)
            request = _read_request(conn)
            if request is None:  # not HTTP (a TLS hello, say): answer like a plain server does
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")
                return
            method, path = request
            behaviour = path.strip("/").split("/", 1)[0]
            with self._lock:
                self.hits[behaviour] += 1
                nth = self.hits[behaviour]
                self.requests.append((method, path))
            BEHAVIOURS.get(behaviour, (_not_found, ""))[0](conn, self, nth)
        except OSError:  # ssl.SSLError included
            pass  # the client went away: that is what it should do
        finally:
            conn.close()

    def wait_for_close(self, conn: socket.socket) -> None:
        """Say nothing until the client hangs up or the server stops."""
        conn.settimeout(TRICKLE_PERIOD)
        while not self.stopped.is_set():
            try:
                if not conn.recv(1024):
                    return
            except TimeoutError:
                continue

    def trickle(self, conn: socket.socket, data: bytes = b"x") -> None:
        """One byte every TRICKLE_PERIOD seconds, for ever (until the client hangs up)."""
        while not self.stopped.is_set():
            conn.sendall(data)
            time.sleep(TRICKLE_PERIOD)


def _read_request(conn: socket.socket) -> tuple[str, str] | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
        if not data[:1].isupper() or len(data) > 1 << 20:
            return None
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = (lines[0].split(" ") + ["", ""])[:3]
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return method, path


# -- behaviours --------------------------------------------------------------------------------
def _ok(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("200 OK", completion()))


def _not_found(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("404 Not Found", b'{"error": {"message": "no such route"}}'))


def _trickle_headers(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
    server.trickle(conn)


def _trickle_body(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("200 OK", b'{"choices": [', length=10**6))
    server.trickle(conn, b" ")


def _trickle_chunks(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
    server.trickle(conn, b"1\r\n \r\n")


def _silent(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    server.wait_for_close(conn)


def _stream(conn: socket.socket, server: FakeChatServer, chunked: bool) -> None:
    block = b"[" + b" " * (1024 * 1024 - 1)
    for _ in range(HUGE_BYTES // len(block)):
        if server.stopped.is_set():
            return
        conn.sendall(b"%x\r\n%s\r\n" % (len(block), block) if chunked else block)


def _huge_declared(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("200 OK", length=HUGE_BYTES))
    _stream(conn, server, chunked=False)


def _huge_chunked(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
    _stream(conn, server, chunked=True)


def _huge_unannounced(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
    _stream(conn, server, chunked=False)


def _deep_json(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("200 OK", b"[" * 100_000))


def _deep_json_error(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("400 Bad Request", b'{"error": ' + b"[" * 100_000))


def _deep_json_content(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    nested = b"[" * 100_000 + b"]" * 100_000
    conn.sendall(response("200 OK", b'{"choices": [{"message": {"content": ' + nested + b"}}]}"))


def _huge_number(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("200 OK", b'{"choices": [{"message": {"content": ' + b"9" * 10_000
                          + b"}}]}"))


def _bad_status(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(b"HTTP/1.1 abc OK\r\nContent-Length: 2\r\n\r\n{}")


def _not_http(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")


def _empty(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    pass  # close without a word: http.client's RemoteDisconnected


def _long_status_line(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(b"HTTP/1.1 200 " + b"O" * 70_000 + b"\r\n\r\n")


def _long_header(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * 70_000 + b"\r\n\r\n")


def _many_headers(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("200 OK", completion(), tuple(f"X-H{i}: {i}" for i in range(200))))


def _reset_mid_body(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("200 OK", completion()[:20], length=1000))
    time.sleep(0.05)
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close = RST


def _incomplete(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("200 OK", completion()[:10], length=1000))


def _bad_chunk(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")


def _long_chunk_line(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + b"1" * 70_000)


def _retry_after_seconds(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("429 Too Many Requests", b'{"error": "slow down"}', ("Retry-After: 1",)))


def _retry_after_hour(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("429 Too Many Requests", b'{"error": "slow down"}', ("Retry-After: 3600",)))


def http_date(offset: float) -> str:
    return email.utils.formatdate(time.time() + offset, usegmt=True)


def _retry_after_date(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("503 Service Unavailable", b'{"error": "loading"}',
                          (f"Retry-After: {http_date(30)}",)))


def _retry_after_then_ok(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    if nth == 1:
        conn.sendall(response("429 Too Many Requests", b"{}", ("Retry-After: 1",)))
    else:
        _ok(conn, server, nth)


def _past_date_then_ok(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    if nth == 1:
        conn.sendall(response("503 Service Unavailable", b"{}",
                              (f"Retry-After: {http_date(-60)}",)))
    else:
        _ok(conn, server, nth)


def _garbage_retry_after(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("503 Service Unavailable", b"{}", ("Retry-After: soon, maybe",)))


def _not_json(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("200 OK", b"<html><body>It works!</body></html>"))


def _invalid_utf8(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("200 OK", b"\xff\xfe\x00{\x80choices"))


def _no_choices(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("200 OK", b'{"id": "x", "object": "chat.completion"}'))


def _empty_choices(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("200 OK", b'{"choices": []}'))


def _null_content(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("200 OK", b'{"choices": [{"message": {"content": null}}]}'))


def _wrong_types(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("200 OK", b'{"choices": {"0": "x"}}'))


def _redirect(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("302 Found", b"", ("Location: http://attacker.invalid/steal",)))


def _redirect_self(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("307 Temporary Redirect", b"",
                          (f"Location: {server.url('redirect-self')}/chat/completions",)))


def _weird_status(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    conn.sendall(response("999 Weird", b"\x00" * 10))


def _slow_model_list(conn: socket.socket, server: FakeChatServer, nth: int) -> None:
    if nth == 1:  # the model is unknown ...
        conn.sendall(response("404 Not Found", b'{"error": {"message": "model not found"}}'))
    else:         # ... and the model list (asked next, for the message) never comes
        server.trickle(conn)


# name -> (handler, what it does); the hostile ones are every entry but "ok" and the "-then-ok".
BEHAVIOURS: dict[str, tuple[Handler, str]] = {
    "ok": (_ok, "a proper chat completion"),
    "trickle-headers": (_trickle_headers, "one header byte every 0.2 s, for ever"),
    "trickle-body": (_trickle_body, "announces 1 MB, sends one body byte every 0.2 s"),
    "trickle-chunks": (_trickle_chunks, "a chunked body of one-byte chunks every 0.2 s"),
    "silent": (_silent, "reads the request and never answers"),
    "huge-declared": (_huge_declared, "announces 50 MB and streams it"),
    "huge-chunked": (_huge_chunked, "streams 50 MB in chunks, size unannounced"),
    "huge-unannounced": (_huge_unannounced, "streams 50 MB until it closes, no length"),
    "deep-json": (_deep_json, "200 with 100k nested '['"),
    "deep-json-error": (_deep_json_error, "400 whose error body nests 100k deep"),
    "deep-json-content": (_deep_json_content, "a completion whose content nests 100k deep"),
    "huge-number": (_huge_number, "content is a 10,000-digit number"),
    "bad-status": (_bad_status, "status line 'HTTP/1.1 abc OK'"),
    "not-http": (_not_http, "an SSH banner instead of HTTP"),
    "empty": (_empty, "closes without a byte"),
    "long-status-line": (_long_status_line, "a status line over 65k"),
    "long-header": (_long_header, "a header line over 65k"),
    "many-headers": (_many_headers, "200 headers"),
    "reset-mid-body": (_reset_mid_body, "connection reset in the middle of the body"),
    "incomplete": (_incomplete, "announces 1000 bytes, sends 10, closes"),
    "bad-chunk": (_bad_chunk, "a chunk size that is not hex"),
    "long-chunk-line": (_long_chunk_line, "a chunk-size line over 65k"),
    "retry-after-seconds": (_retry_after_seconds, "429 with Retry-After: 1, every time"),
    "retry-after-hour": (_retry_after_hour, "429 with Retry-After: 3600"),
    "retry-after-date": (_retry_after_date, "503 with Retry-After as an HTTP date 30 s ahead"),
    "garbage-retry-after": (_garbage_retry_after, "503 with an unreadable Retry-After"),
    "retry-after-then-ok": (_retry_after_then_ok, "429 Retry-After: 1, then a completion"),
    "past-date-then-ok": (_past_date_then_ok, "503 Retry-After a past date, then a completion"),
    "not-json": (_not_json, "200 with an HTML page"),
    "invalid-utf8": (_invalid_utf8, "200 with bytes that are not UTF-8"),
    "no-choices": (_no_choices, "200 JSON without 'choices'"),
    "empty-choices": (_empty_choices, "200 with 'choices': []"),
    "null-content": (_null_content, "200 with content null"),
    "wrong-types": (_wrong_types, "200 with 'choices' an object"),
    "redirect": (_redirect, "302 to another host"),
    "redirect-self": (_redirect_self, "307 to itself, for ever"),
    "weird-status": (_weird_status, "status 999 with NUL bytes"),
    "slow-model-list": (_slow_model_list, "404 model not found, then /models trickles"),
}
SUCCEEDING = ("ok", "retry-after-then-ok", "past-date-then-ok")
HOSTILE = tuple(name for name in BEHAVIOURS if name not in SUCCEEDING)
