"""A minimal Chrome DevTools Protocol client: one page target, ``Runtime.evaluate`` only.

The harness (never the agent) uses it to start episodes and to read the instruction and the
reward. Built on ``websocket-client`` (the ``bench`` extra); one request at a time, so a
client must not be shared between threads.
"""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.request
from typing import Any

from ...errors import GuiAgentError

log = logging.getLogger(__name__)


class CdpError(GuiAgentError):
    """The browser's DevTools endpoint could not be reached or answered with an error."""


def page_websocket_url(port: int, timeout: float = 15.0) -> str:
    """The DevTools websocket of the first page target on ``localhost:port`` (waits for it)."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as resp:
                targets = json.loads(resp.read().decode("utf-8"))
            pages = [t for t in targets if t.get("type") == "page" and t.get("webSocketDebuggerUrl")]
            if pages:
                return str(pages[0]["webSocketDebuggerUrl"])
        except (OSError, urllib.error.URLError, ValueError) as exc:
            last = exc
        time.sleep(0.1)
    raise CdpError(f"no page target on DevTools port {port} after {timeout:.0f} s"
                   f"{f' ({last})' if last else ''}; did chromium start?")


class CdpClient:
    """Evaluates JavaScript in one page over its DevTools websocket."""

    def __init__(self, ws_url: str, timeout: float = 10.0) -> None:
        try:
            import websocket
        except ImportError as exc:
            raise CdpError("the MiniWoB bench needs websocket-client: "
                           "pip install 'gui-agent[bench]'") from exc
        self.ws_url = ws_url
        self.timeout = timeout
        self._socket_errors: tuple[type[BaseException], ...] = (OSError, websocket.WebSocketException)
        try:
            self._ws = websocket.create_connection(ws_url, timeout=timeout, suppress_origin=True)
        except self._socket_errors as exc:
            raise CdpError(f"cannot connect to the browser's DevTools at {ws_url}: {exc}") from exc
        self._next_id = 0

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one command and return its ``result`` (events received meanwhile are dropped)."""
        try:
            return self._call(method, params)
        except self._socket_errors as exc:
            raise CdpError(f"{method}: the DevTools connection failed ({exc}); "
                           "did chromium exit?") from exc

    def _call(self, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        self._next_id += 1
        msg_id = self._next_id
        self._ws.send(json.dumps({"id": msg_id, "method": method, "params": params or {}}))
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            reply = json.loads(self._ws.recv())
            if reply.get("id") != msg_id:
                continue
            if "error" in reply:
                raise CdpError(f"{method} failed: {reply['error'].get('message', reply['error'])}")
            return dict(reply.get("result", {}))
        raise CdpError(f"{method}: no answer within {self.timeout:.0f} s")

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression; raises CdpError on a JavaScript exception."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise CdpError(f"JavaScript error in {expression[:60]!r}: {text}")
        return result.get("result", {}).get("value")

    def navigate(self, url: str) -> None:
        self.call("Page.navigate", {"url": url})

    def close(self) -> None:
        try:
            self._ws.close()
        except self._socket_errors as exc:
            log.debug("closing the DevTools socket: %s", exc)

    def __enter__(self) -> CdpClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
