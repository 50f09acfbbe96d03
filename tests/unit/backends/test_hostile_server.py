"""Model calls stay within the run's limits against a hostile server, and fail as errors.

The fake server (tests/support/fake_chat_server.py) trickles, floods, nests, truncates,
resets and misquotes HTTP; for each behaviour the OpenAI backend must raise a BackendError or
DeadlineExceeded with a message a user can act on (never another exception), and return within
the deadline plus a little. The deadline also reaches the planner and the grounder (and the
transformers backend: tests/e2e/test_hostile_server_e2e.py).
"""

from __future__ import annotations

import re
import ssl
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest
from PIL import Image

from gui_agent.backends import bounded_http
from gui_agent.backends.base import GenerationSettings, Message
from gui_agent.backends.bounded_http import retry_after_seconds
from gui_agent.backends.factory import create_backend
from gui_agent.backends.openai_backend import OpenAIBackend
from gui_agent.backends.registry import ModelFamily
from gui_agent.deadline import Deadline
from gui_agent.errors import BackendError, DeadlineExceeded, GuiAgentError, StepLimitReached
from tests.support.fake_chat_server import (
    BEHAVIOURS,
    HOSTILE,
    REPLY_TEXT,
    FakeChatServer,
    http_date,
)
from tests.support.requirements import require_tool

DEADLINE = 2.0
SLACK = 1.5  # generous: the suite shares two loaded cores
MESSAGES = [Message.text("user", "Click OK")]
OUT_OF_TIME = r"time limit of 2 s is used up; raise it with --max-seconds"
NOT_COMPLETION = "not a chat completion"
INVALID_HTTP = r"did not answer in valid HTTP .*is --base-url the address of an OpenAI-compatible"
RETRY_PAST_DEADLINE = r"to retry would pass the run's time limit .*raise --max-seconds"
TOO_LARGE = r"sent a reply larger than 20971520 bytes .*refused unread"

# behaviour -> (the error, what its message says); every hostile behaviour is listed.
EXPECTED: dict[str, tuple[type[GuiAgentError], str]] = {
    "trickle-headers": (DeadlineExceeded, OUT_OF_TIME),
    "trickle-body": (DeadlineExceeded, OUT_OF_TIME),
    "trickle-chunks": (DeadlineExceeded, OUT_OF_TIME),
    "silent": (DeadlineExceeded, OUT_OF_TIME),
    "huge-declared": (BackendError, TOO_LARGE),
    "huge-chunked": (BackendError, TOO_LARGE),
    "huge-unannounced": (BackendError, TOO_LARGE),
    "deep-json": (BackendError, NOT_COMPLETION),
    "deep-json-error": (BackendError, r"answered 400: \{\"error\": \[\[\["),
    "deep-json-content": (BackendError, NOT_COMPLETION),
    "huge-number": (BackendError, NOT_COMPLETION),
    "bad-status": (BackendError, INVALID_HTTP),
    "not-http": (BackendError, INVALID_HTTP),
    "empty": (BackendError, r"failed \(the connection was closed.*" + RETRY_PAST_DEADLINE),
    "long-status-line": (BackendError, INVALID_HTTP + ".*"),
    "long-header": (BackendError, INVALID_HTTP),
    "many-headers": (BackendError, INVALID_HTTP),
    "reset-mid-body": (BackendError, RETRY_PAST_DEADLINE),
    "incomplete": (BackendError, r"cut off \(10 of 1000 bytes\).*" + RETRY_PAST_DEADLINE),
    "bad-chunk": (BackendError, r"cut off.*" + RETRY_PAST_DEADLINE),
    "long-chunk-line": (BackendError, INVALID_HTTP),
    "retry-after-seconds": (BackendError, r"answered 429; waiting 1.0 s " + RETRY_PAST_DEADLINE),
    "retry-after-hour": (BackendError, r"answered 429 and asked to retry after 3600 s, longer "
                                       r"than the 60 s gui-agent waits: try again later"),
    "retry-after-date": (BackendError, r"answered 503; waiting (29|30)\.\d s " + RETRY_PAST_DEADLINE),
    "garbage-retry-after": (BackendError, r"answered 503; waiting 2.0 s " + RETRY_PAST_DEADLINE),
    "not-json": (BackendError, NOT_COMPLETION),
    "invalid-utf8": (BackendError, NOT_COMPLETION),
    "no-choices": (BackendError, NOT_COMPLETION),
    "empty-choices": (BackendError, NOT_COMPLETION),
    "null-content": (BackendError, "gave an empty reply"),
    "wrong-types": (BackendError, NOT_COMPLETION),
    "redirect": (BackendError, r"answered 302, a redirect to 'http://attacker.invalid/steal', which "
                               r"is not followed .*pass the final address with --base-url"),
    "redirect-self": (BackendError, r"answered 307, a redirect .*not followed"),
    "weird-status": (BackendError, "answered 999"),
    "slow-model-list": (BackendError, r"model 'm' not found .*Pass the model name the server "
                                      "serves with --model"),
}


@pytest.fixture(scope="module")
def server():
    with FakeChatServer() as s:
        yield s


@dataclass(frozen=True)
class Outcome:
    reply: str | None
    error: BaseException | None
    seconds: float


def ask(url: str, deadline: Deadline | None = None, **kw) -> Outcome:
    backend = OpenAIBackend("m", url, **kw)
    started = time.monotonic()
    try:
        reply = backend.generate(MESSAGES, GenerationSettings(max_new_tokens=8), deadline=deadline)
    except BaseException as exc:  # noqa: BLE001 - what escapes is what is measured
        return Outcome(None, exc, time.monotonic() - started)
    return Outcome(reply, None, time.monotonic() - started)


def test_every_hostile_behaviour_has_an_expectation():
    assert set(EXPECTED) == set(HOSTILE)


@pytest.mark.parametrize("behaviour", HOSTILE)
def test_a_hostile_server_gives_an_error_within_the_deadline(server, behaviour):
    kind, message = EXPECTED[behaviour]
    outcome = ask(server.url(behaviour), Deadline(DEADLINE))
    assert isinstance(outcome.error, kind), f"{behaviour}: {outcome.error!r}"
    assert re.search(message, str(outcome.error), re.S), str(outcome.error)
    assert outcome.seconds < DEADLINE + SLACK, f"{behaviour} took {outcome.seconds:.2f} s"


def test_tls_to_a_plain_server_is_an_error(server):
    outcome = ask(server.url("ok", scheme="https"), Deadline(DEADLINE))
    assert isinstance(outcome.error, BackendError)
    assert re.search(r"TLS connection to https://127.0.0.1:\d+/ok/v1 failed .*check the address "
                     r"\(http or https\)", str(outcome.error))


def test_the_time_bound_holds_over_tls(tmp_path, monkeypatch):
    openssl = require_tool("openssl", apt="openssl")   # it makes the certificate
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    server_side = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_side.load_cert_chain(cert, key)
    trusting = ssl.create_default_context(cafile=str(cert))
    trusting.sslsocket_class = bounded_http._BoundedSSLSocket  # as the module's own context
    monkeypatch.setattr(bounded_http, "_TLS_CONTEXT", trusting)
    with FakeChatServer(tls=server_side) as tls_server:
        assert ask(tls_server.url("ok", "https"), Deadline(DEADLINE)).reply == REPLY_TEXT
        outcome = ask(tls_server.url("trickle-headers", "https"), Deadline(DEADLINE))
    assert isinstance(outcome.error, DeadlineExceeded) and outcome.seconds < DEADLINE + SLACK


@pytest.mark.parametrize("behaviour", ["trickle-headers", "trickle-body", "silent"])
def test_without_a_deadline_the_timeout_bounds_the_whole_request(server, behaviour):
    # Before: the timeout bounded each read, and one byte every 0.2 s kept the call alive.
    outcome = ask(server.url(behaviour), None, timeout=1.5)
    assert isinstance(outcome.error, BackendError) and not isinstance(outcome.error, DeadlineExceeded)
    assert "did not answer within 1.5 s" in str(outcome.error)
    assert outcome.seconds < 1.5 + SLACK


def test_the_backends_own_deadline_is_used_when_generate_gets_none(server):
    backend = OpenAIBackend("m", server.url("trickle-headers"), deadline=Deadline(1.0))
    started = time.monotonic()
    with pytest.raises(DeadlineExceeded, match="time limit of 1 s"):
        backend.generate(MESSAGES)
    assert time.monotonic() - started < 1.0 + SLACK


def test_the_factory_hands_the_deadline_to_the_backend(server):
    deadline = Deadline(5)
    backend, _ = create_backend("m", family="gui-agent", backend="openai",
                                base_url=server.url("ok"), deadline=deadline)
    assert backend.deadline is deadline and backend.generate(MESSAGES) == REPLY_TEXT


def test_retry_after_in_seconds_is_honoured(server, monkeypatch):
    sleeps: list[float] = []
    monkeypatch.setattr("gui_agent.backends.openai_backend._sleep", sleeps.append)
    outcome = ask(server.url("retry-after-then-ok"), Deadline(DEADLINE), backoff=0.01)
    assert outcome.reply == REPLY_TEXT and sleeps == [1.0]


def test_retry_after_as_an_http_date_is_honoured(server):
    # A past date means "now": with a 30 s backoff, only reading the date keeps this quick.
    outcome = ask(server.url("past-date-then-ok"), None, backoff=30)
    assert outcome.reply == REPLY_TEXT and outcome.seconds < 2


def test_retry_after_values():
    now = time.time()
    assert retry_after_seconds("7") == 7.0 and retry_after_seconds(" 1.5 ") == 1.5
    assert retry_after_seconds(http_date(60), now) == pytest.approx(60, abs=1.5)
    assert retry_after_seconds(http_date(-60), now) == 0.0
    for unreadable in ("", None, "soon", "-3", "nan", "Mon, 99 Foo 2024 99:99:99 GMT"):
        assert retry_after_seconds(unreadable) is None
    assert retry_after_seconds("9" * 400) == float("inf")


def test_backoff_never_sleeps_past_the_deadline(server, monkeypatch):
    sleeps: list[float] = []
    monkeypatch.setattr("gui_agent.backends.openai_backend._sleep", sleeps.append)
    outcome = ask(server.url("empty"), Deadline(5), backoff=1.0, max_retries=10)
    assert isinstance(outcome.error, BackendError) and "would pass the run's time limit" in str(
        outcome.error)
    assert sleeps == [1.0, 2.0, 4.0]  # (not slept, so ~5 s are left) 8 s would pass the deadline


def test_a_reply_counted_past_the_size_limit_is_refused(server):
    outcome = ask(server.url("ok"), Deadline(DEADLINE), max_reply_bytes=50)
    assert isinstance(outcome.error, BackendError) and "larger than 50 bytes" in str(outcome.error)


def test_an_expired_deadline_asks_nothing(server):
    deadline = Deadline(0)
    before = server.hits["ok"]
    outcome = ask(server.url("ok"), deadline)
    assert isinstance(outcome.error, DeadlineExceeded) and server.hits["ok"] == before


def test_no_tracebacks_over_every_behaviour(server):
    """All behaviours at once, each with its own 2 s deadline: the README's figures."""
    cases = [*((b, server.url(b)) for b in BEHAVIOURS), ("tls-to-plain", server.url("ok", "https"))]
    with ThreadPoolExecutor(max_workers=len(cases)) as pool:
        outcomes = dict(zip((name for name, _ in cases),
                            pool.map(lambda case: ask(case[1], Deadline(DEADLINE)), cases),
                            strict=True))
    tracebacks = {name: o.error for name, o in outcomes.items()
                  if o.error is not None and not isinstance(o.error, GuiAgentError)}
    failed_ok = {name for name in ("ok", "retry-after-then-ok", "past-date-then-ok")
                 if outcomes[name].reply != REPLY_TEXT}
    overrun = max(max(0.0, o.seconds - DEADLINE) for o in outcomes.values())
    hostile = len(cases) - 3
    print(f"\n{len(tracebacks)} tracebacks over the fake server's {hostile} hostile behaviours "
          f"(+3 that succeed); longest overrun past a {DEADLINE:g} s deadline: {overrun:.3f} s")
    assert tracebacks == {} and failed_ok == set()
    assert overrun < SLACK
    assert hostile == 36     # the README quotes this count: change both together


# -- the Deadline itself -----------------------------------------------------------------------
def test_a_deadline_counts_down_and_names_the_flag():
    assert Deadline().remaining() is None and not Deadline().expired()
    Deadline().check("anything")  # no limit: never raises
    deadline = Deadline(10)
    assert 9 < deadline.remaining() <= 10 and not deadline.expired()
    deadline.arm(0)
    assert deadline.expired() and deadline.remaining() == 0
    with pytest.raises(DeadlineExceeded, match=r"^planning: the run's time limit of 0 s is used up; "
                                               r"raise it with --max-seconds$") as caught:
        deadline.check("planning")
    assert isinstance(caught.value, StepLimitReached)  # the agent loop ends the run with it
    deadline.arm(None)
    assert deadline.remaining() is None and not deadline.expired()
    deadline.arm(float("inf"))
    assert deadline.remaining() is None
    with pytest.raises(ValueError):
        Deadline(float("nan"))


# -- the deadline reaches every model call -----------------------------------------------------
class RecordingBackend:
    """Answers from a script and records the deadline each call got."""

    name = "recording"

    def __init__(self, replies: list[str], on_call=None) -> None:
        self.replies = list(replies)
        self.deadlines: list[Deadline | None] = []
        self.on_call = on_call

    def generate(self, messages, settings=None, *, deadline=None):
        self.deadlines.append(deadline)
        if self.on_call is not None:
            self.on_call(len(self.deadlines))
        return self.replies.pop(0)


def Family(name: str, prompt: str, parser: str, coordinates: str, min_pixels: int = 3136,  # noqa: N802
           max_pixels: int = 12845056) -> ModelFamily:
    """A registry family with its prompt inline (independent of the shipped prompt files)."""
    return ModelFamily(name=name, prompt="", parser=parser, coordinates=coordinates, min_pixels=min_pixels,
                       max_pixels=max_pixels, prompt_text=prompt)


POINTER = Family("uground", "Description: {instruction}\nAnswer:", "grounding-point", "relative-1000")
PLANNER = Family("gui-agent", "Act.\n{instruction}", "gui-agent", "absolute")
IMAGE = Image.new("RGB", (1000, 500), "white")


def test_the_planner_passes_its_deadline_to_every_call():
    from gui_agent.planner.vlm import vlm_planner

    deadline = Deadline(60)
    backend = RecordingBackend(["1. Click OK", 'click("OK")'])
    planner = vlm_planner(backend, PLANNER, deadline=deadline)
    assert planner.manager.deadline is deadline and planner.worker.worker.deadline is deadline
    (subtask,) = planner.manager.plan("click OK", None)
    planner.worker.next_action(subtask, None, [])
    assert backend.deadlines == [deadline, deadline]


def test_an_expired_deadline_stops_the_planner_before_it_asks():
    from gui_agent.planner.vlm import vlm_planner

    backend = RecordingBackend(["1. Click OK"])
    planner = vlm_planner(backend, PLANNER, deadline=Deadline(0))
    with pytest.raises(DeadlineExceeded, match="before asking the planning model"):
        planner.manager.plan("click OK", None)
    assert backend.deadlines == []


def test_the_grounder_passes_its_deadline_and_never_keeps_a_guess_past_it():
    from gui_agent.grounding.vlm_grounder import VlmGrounder, ZoomSettings

    deadline = Deadline(60)
    backend = RecordingBackend(["(100, 50)"])
    assert VlmGrounder(backend, POINTER, deadline=deadline).point_on("OK", IMAGE)
    assert backend.deadlines == [deadline]

    def run_out(call: int) -> None:  # the zoom-in (second call) ends past the deadline
        if call == 2:
            deadline.arm(0)

    deadline.arm(60)
    backend = RecordingBackend(["(500, 500)", "(500, 500)"], on_call=run_out)
    grounder = VlmGrounder(backend, POINTER, zoom=ZoomSettings(), deadline=deadline)
    with pytest.raises(DeadlineExceeded, match="the grounding model answered"):
        grounder.candidates("the OK button", _observation())


def _observation():
    from gui_agent.screen.observation import Observation

    return Observation.from_image(IMAGE)


def test_model_parts_shares_one_deadline_between_planner_and_grounder(monkeypatch):
    from gui_agent import engine as vlm_setup
    from gui_agent.config import Settings

    monkeypatch.setattr(vlm_setup, "load_backend",
                        lambda model, family, settings: (RecordingBackend([]), PLANNER))
    deadline = Deadline(60)
    planner, ladder, _ = vlm_setup.model_parts(Settings(model="m"), deadline=deadline)
    assert planner.manager.deadline is deadline and planner.worker.worker.deadline is deadline
    assert ladder.grounders[-1].name == "vlm" and ladder.grounders[-1].deadline is deadline
