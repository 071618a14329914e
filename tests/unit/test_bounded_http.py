"""The parts behind bounded answers, in process: the depth scan, decoding within the cap, the
whole-answer deadline, and what an id may be."""

from __future__ import annotations

import gzip
import json
import sys
import time
import tracemalloc
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import httpx
import pytest
from tests.loopback import Loopback, bomb, nested, send, trickle

from svc.api.capped import ResponseTooLargeError
from svc.api.http import Http
from svc.api.httpx_route import DeadlineTransport
from svc.api.ids import is_id, path_segment, request_id_arg, task_id_arg
from svc.api.jsonsafe import MAX_JSON_DEPTH, JsonTooDeepError, load_json, nesting_exceeds
from svc.api.retry import RetryPolicy
from svc.api.status import error_from_response
from svc.api.trace import REDACTED_HEADERS, Tracer
from svc.api.transport import tls_context
from svc.errors import ExitCode, ProtocolError, Unavailable, UsageError
from svc.origin import TrustedURL, configured
from svc.pay.errors import error_code


def url(text: str) -> TrustedURL:
    """A test URL through the origin gate, as every URL svc sends to."""
    return configured(text, "the test URL")


# --- depth -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("1", 0),
        ('"[[[{{{"', 0),
        ("[]", 1),
        ('{"a": [1, {"b": []}]}', 4),
        ('["\\"[[[", []]', 2),  # an escaped quote does not end the string
        ('["\\\\", [[]]]', 3),  # an escaped backslash does not escape the quote after it
        ('["\\\\\\"[", [[]]]', 3),  # \\ then \" : still inside the string
        ('"\\"\\"\\"', 0),  # an unclosed string: the rest is text to json.loads too
        ("[[[", 3),  # unclosed arrays still count
    ],
)
def test_the_depth_scan_is_exact_outside_strings(text: str, depth: int) -> None:
    raw = text.encode()
    assert not nesting_exceeds(raw, depth)
    if depth:
        assert nesting_exceeds(raw, depth - 1)


def test_the_bound_is_inclusive_and_reported_as_an_unreadable_answer() -> None:
    assert load_json(nested(MAX_JSON_DEPTH)) is not None
    with pytest.raises(JsonTooDeepError) as refused:
        load_json(nested(MAX_JSON_DEPTH + 1).encode(), "poll")
    error = refused.value
    assert isinstance(error, ProtocolError) and isinstance(error, ValueError)
    assert error.exit_code == ExitCode.ERROR and error.code == "bad_response"
    assert str(error) == f"poll: the server sent JSON nested deeper than {MAX_JSON_DEPTH} levels"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32-be"])
def test_utf16_and_utf32_cannot_hide_nesting_inside_fake_strings(encoding: str) -> None:
    """In UTF-16 LE U+225B is the bytes 5B 22, `["` to a byte scan: text in another encoding
    is scanned as UTF-8, where no byte of a non-ASCII character is ASCII."""
    text = '["\u225b\u2222"' + ",[" * 600 + "]" * 600 + "]"
    with pytest.raises(JsonTooDeepError):
        load_json(text.encode(encoding))


def test_recursion_is_caught_even_past_a_generous_limit() -> None:
    # Python's own limit as svc runs with it (a test runner may have left it raised).
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        with pytest.raises(JsonTooDeepError):
            load_json(nested(100_000), limit=10**6)  # the scan lets it through; json.loads recurses
    finally:
        sys.setrecursionlimit(previous)


def test_the_scan_is_linear_on_hostile_16_mib_answers() -> None:
    for raw in (b'"' + b'\\"' * (8 << 20), b"[" * (16 << 20), b'["' * (8 << 20)):
        started = time.perf_counter()
        nesting_exceeds(raw, MAX_JSON_DEPTH)
        assert time.perf_counter() - started < 5, raw[:10]


def test_call_sites_that_read_error_bodies_treat_deep_json_as_no_json() -> None:
    deep = nested(100_000).encode()
    assert error_code(deep) == (None, {})
    error = error_from_response(503, deep, "poll")
    assert isinstance(error, Unavailable) and error.body is None


# --- decoding within the cap -------------------------------------------------------------


def _serve(body: bytes, headers: dict[str, str] | None = None) -> Loopback:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        send(handler, body, headers=headers)

    return Loopback(answer)


@pytest.fixture
def http(monkeypatch: pytest.MonkeyPatch) -> Iterator[Http]:
    monkeypatch.setenv("SVC_MAX_RESPONSE_BYTES", str(1 << 20))
    client = Http(timeout=5, retry=RetryPolicy(attempts=2, base=0.01), sleep=lambda _: None)
    yield client
    client.close()


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_a_bomb_stops_one_step_past_the_cap(http: Http, coding: str) -> None:
    tracemalloc.start()
    try:
        with (
            _serve(bomb(coding), {"Content-Encoding": coding}) as server,
            pytest.raises(ResponseTooLargeError),
        ):
            http.get_json(url(server.url + "/x"), what="poll")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, peak  # the cap is 1 MiB; a 1 GiB bomb never unpacks past it


@pytest.mark.parametrize(
    ("coding", "packed"),
    [
        ("gzip", gzip.compress),
        ("x-gzip", gzip.compress),
        ("deflate", zlib.compress),  # zlib-wrapped, as the RFC says
        ("deflate", lambda b: zlib.compress(b, wbits=-zlib.MAX_WBITS)),  # raw, as some send
        ("identity", lambda b: b),
    ],
)
def test_compressed_answers_within_the_cap_read_as_before(
    http: Http, coding: str, packed: object
) -> None:
    doc = {"id": "t", "state": "pending", "pad": "x" * 200_000}
    body = packed(json.dumps(doc).encode())  # type: ignore[operator]
    with _serve(body, {"Content-Encoding": coding}) as server:
        assert http.get_json(url(server.url + "/x"), what="poll") == doc


def test_a_decoded_answer_just_over_the_cap_is_refused(http: Http) -> None:
    body = gzip.compress(b"[" + b" " * (1 << 20) + b"]")
    assert len(body) < 1 << 20
    with (
        _serve(body, {"Content-Encoding": "gzip"}) as server,
        pytest.raises(ResponseTooLargeError),
    ):
        http.get_json(url(server.url + "/x"), what="poll")


@pytest.mark.parametrize(
    ("coding", "body"),
    [
        ("br", b"\x0b\x02\x80{}\x03"),  # not offered: httpx would decode it without a bound
        ("gzip, gzip", gzip.compress(gzip.compress(b"{}", mtime=0), mtime=0)),  # stacked
        ("compress", b"{}"),
        ("gzip", b"\x1f\x8b\x08\x00not gzip at all"),
    ],
)
def test_codings_not_offered_or_broken_are_one_protocol_error(
    http: Http, coding: str, body: bytes
) -> None:
    with (
        _serve(body, {"Content-Encoding": coding}) as server,
        pytest.raises(ProtocolError) as refused,
    ):
        http.get_json(url(server.url + "/x"), what="poll")
    assert refused.value.code == "bad_encoding"


def test_the_client_offers_only_what_it_decodes_itself(http: Http) -> None:
    seen: list[str] = []

    def answer(handler: BaseHTTPRequestHandler) -> None:
        seen.append(handler.headers.get("accept-encoding", ""))
        send(handler, b"{}")

    with Loopback(answer) as server:
        http.get_json(url(server.url + "/x"), what="poll")
    assert seen == ["gzip, deflate"]


def test_bomb_helper_inflates_to_exactly_its_size() -> None:
    assert zlib.decompress(bomb("gzip", 4 << 20), 16 + zlib.MAX_WBITS) == bytes(4 << 20)
    assert zlib.decompress(bomb("deflate", 4 << 20)) == bytes(4 << 20)


# --- the whole-answer deadline -----------------------------------------------------------


def test_a_trickled_mutation_ends_at_the_deadline_as_an_ambiguous_timeout() -> None:
    server: Loopback

    def answer(handler: BaseHTTPRequestHandler) -> None:
        trickle(server, handler, in_headers=True)

    http = Http(timeout=1.0, sleep=lambda _: None)
    with Loopback(answer) as server:
        started = time.monotonic()
        with pytest.raises(Unavailable) as failed:
            http.send("POST", url(server.url + "/m"), what="reply", json_body={}, resend_safe=False)
        elapsed = time.monotonic() - started
        sent = list(server.requests)
    http.close()
    assert "may or may not have been applied" in failed.value.message
    assert sent == [("POST", "/m")]
    assert 1.0 <= elapsed < 2.0  # one bound (each read alone would have waited 1 s more)


def test_the_deadline_is_per_answer_not_per_client() -> None:
    """A slow but steady answer well inside the bound, twice in a row on one client."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        time.sleep(0.6)
        send(handler, b"{}")

    http = Http(timeout=1.0, sleep=lambda _: None)
    with Loopback(answer) as server:
        for _ in range(2):
            assert http.get_json(url(server.url + "/x"), what="poll") == {}
    http.close()


class _PayThenResend(httpx.Auth):
    """Like a payment rail: the first answer is read, then the request goes out again."""

    requires_response_body = True

    def auth_flow(self, request: httpx.Request) -> Iterator[httpx.Request]:
        yield request
        request.headers["x-proof"] = "1"
        yield request


def test_each_request_of_an_auth_flow_has_the_whole_bound() -> None:
    """Two answers of 0.6 s each in one `send`, with a 1 s bound: each is within it."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        time.sleep(0.6)
        send(handler, b"{}")

    http = Http(timeout=1.0, sleep=lambda _: None)
    with Loopback(answer) as server:
        response = http.send(
            "POST", url(server.url + "/p"), what="submit", auth=_PayThenResend(), resend_safe=False
        )
        sent = list(server.requests)
    http.close()
    assert response.status_code == 200 and sent == [("POST", "/p")] * 2


def test_the_deadline_wrapper_is_in_place() -> None:
    """httpx offers no public hook for it: this fails loudly if an httpx upgrade moves it."""
    transport = DeadlineTransport(1.0, verify=tls_context())
    assert type(transport.inner._pool._network_backend).__name__ == "_DeadlineBackend"
    transport.close()


def test_outside_a_request_the_sockets_keep_their_own_timeouts() -> None:
    """A deadline long past does not cut a later request of the same thread that goes around
    Http.send (the deadline is cleared when send returns)."""
    http = Http(timeout=0.5, sleep=lambda _: None)
    with _serve(b"{}") as server:
        assert http.get_json(url(server.url + "/x"), what="poll") == {}
        time.sleep(0.6)
        inner = http.router.direct.inner  # the direct route, under the cap
        response = inner.handle_request(httpx.Request("GET", server.url + "/x"))
        assert response.status_code == 200
        response.close()
    http.close()


# --- ids -------------------------------------------------------------------------------------


@pytest.mark.parametrize("good", ["t", "task_1", "a.b", "...", "ns:t-1", "x" * 256])
def test_ids_that_are_ids(good: str) -> None:
    assert task_id_arg(good) == good


@pytest.mark.parametrize(
    "bad", ["", ".", "..", "a/b", "a\\b", "a b", "a%2e", "?", "#", "é", "\x00", "x" * 257]
)
def test_ids_that_are_not(bad: str) -> None:
    with pytest.raises(UsageError) as refused:
        task_id_arg(bad)
    assert refused.value.message.startswith("invalid ID ")
    assert not any(ord(c) < 32 or ord(c) > 126 for c in refused.value.message)


def test_request_ids_share_the_characters_and_keep_their_length() -> None:
    assert request_id_arg("req_1234") == "req_1234"
    for bad in ("req_123", "x" * 129, "req_12345/..", "req_1234é"):
        with pytest.raises(UsageError):
            request_id_arg(bad)
    assert not is_id("..", 1, 128) and is_id("...", 1, 128)


def test_path_segments_are_percent_encoded_and_never_dot_segments() -> None:
    assert path_segment("a/b?c#d:e", "SLUG") == "a%2Fb%3Fc%23d%3Ae"
    for bad in ("", ".", ".."):
        with pytest.raises(UsageError):
            path_segment(bad, "SLUG")


def test_the_trace_redacts_every_proof_and_credential_header() -> None:
    """Review of 29.5: an MPP credential a challenge asked for in Payment-Authorization was
    printed whole by -v; the trace now redacts exactly what the cleartext guard treats as a
    proof or a credential, plus cookies and receipts."""
    secret = "Payment eyJzcHQiOiJzcHRfdGVzdF9zZWNyZXQifQ"
    names = ["Payment-Authorization", "Authorization", "x-payment", "Payment-Signature"]
    names += ["svc-agent-authorization", "svc-payment-id", "Cookie", "Set-Cookie"]
    headers = httpx.Headers([(name, secret) for name in names] + [("Accept", "ok")])
    lines: list[str] = []
    tracer = Tracer(lines.append)  # as -v prints a request and its answer
    request = httpx.Request("POST", "https://svc.test/svc/tasks", headers=headers)
    tracer.request(request)
    tracer.response(httpx.Response(402, headers=headers, request=request))
    shown = "\n".join(lines)
    assert len(lines) == 2 and shown.count("accept: ok") == 2
    assert secret not in shown and shown.count("[redacted]") == 2 * len(names)
    assert "payment-authorization" in REDACTED_HEADERS
