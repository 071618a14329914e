"""The lean route of a plain GET (api/lean.py) against httpx's own (issue 34): every hostile
answer ends the same way on both (the same error class, exit code and line), the request bytes
are the same, and a kept connection is reused only while it is sound. A raw peer on loopback
writes the bytes (tests/raw_peer.py)."""

from __future__ import annotations

import gzip
import json
import socket
import time
from collections.abc import Iterator

import httpcore
import httpx
import pytest
from tests.raw_peer import RawPeer, json_answer

from svc.api import lean
from svc.api.http import Http
from svc.api.retry import RetryPolicy
from svc.errors import SvcError, UntrustedURLError
from svc.origin import configured

CAP = 4096
OK = json_answer()
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"


@pytest.fixture(autouse=True)
def _small_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SVC_MAX_RESPONSE_BYTES", str(CAP))


def _http(lean_route: bool, timeout: float = 5.0) -> Http:
    retry = RetryPolicy(attempts=1)
    return Http(timeout=timeout, retry=retry, sleep=lambda _: None, lean=lean_route)


def _outcome(http: Http, url: str) -> tuple[object, ...]:
    """What a poll of `url` comes to: its JSON, or the error a person would see."""
    try:
        return ("ok", http.get_json(configured(url, "the test URL"), what="poll"))
    except SvcError as exc:
        return (type(exc).__name__, int(exc.exit_code), str(exc))


def _both(answer: bytes | list[bytes], close: bool = True, gap: float = 0.0) -> list[object]:
    """The outcome of one poll on each route, from a fresh peer each time."""
    seen = []
    for lean_route in (False, True):
        with RawPeer(lambda _: (answer, close), gap) as peer:
            http = _http(lean_route)
            try:
                seen.append(_outcome(http, peer.url + "/svc/tasks/t1"))
            finally:
                http.close()
    return seen


HOSTILE = {
    "a sound answer": OK,
    "a sound answer, chunked": HEAD
    + b'Transfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n3;ext=1\r\n 1}\r\n0\r\nX-T: 1\r\n\r\n',
    "an HTTP/1.0 answer read to the close": b"HTTP/1.0 200 OK\r\nContent-Type: application/json"
    b"\r\n\r\n[1, 2]",
    "an informational answer first": b"HTTP/1.1 100 Continue\r\n\r\n" + OK,
    "a status line without a reason": b"HTTP/1.1 200\r\nContent-Type: application/json\r\n"
    b"Content-Length: 2\r\n\r\n{}",
    "a folded header line": HEAD + b"X-A: 1\r\n  2\r\nContent-Length: 2\r\n\r\n{}",
    "a declared length over the cap": HEAD + b"Content-Length: %d\r\n\r\n" % (CAP + 1),
    "a body over the cap, to the close": HEAD + b"\r\n" + b"[" + b"1," * CAP + b"1]",
    "a body over the cap, chunked": HEAD
    + b"Transfer-Encoding: chunked\r\n\r\n"
    + (b"400\r\n" + b" " * 1024 + b"\r\n") * 5
    + b"0\r\n\r\n",
    "a gzip body within the cap": HEAD
    + b"Content-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(gzip.compress(b"[7]"))
    + gzip.compress(b"[7]"),
    "a gzip body over the cap": HEAD
    + b"Content-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(gzip.compress(bytes(CAP * 4)))
    + gzip.compress(bytes(CAP * 4)),
    "a flood of one-byte chunks over the cap": HEAD
    + b"Transfer-Encoding: chunked\r\n\r\n"
    + b"1\r\n \r\n" * (CAP + 1)
    + b"0\r\n\r\n",
    "a chunk size of twenty hex digits": HEAD
    + b"Transfer-Encoding: chunked\r\n\r\n"
    + b"F" * 20
    + b"\r\n{}",
    "a chunk size of 21 hex digits": HEAD
    + b"Transfer-Encoding: chunked\r\n\r\n"
    + b"0" * 21
    + b"\r\n\r\n",
    "a Content-Length that is not a number": HEAD + b"Content-Length: 2x\r\n\r\n{}",
    "a negative Content-Length": HEAD + b"Content-Length: -1\r\n\r\n{}",
    "conflicting Content-Lengths": HEAD + b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    "a Content-Length list that conflicts": HEAD + b"Content-Length: 2, 3\r\n\r\n{}",
    "a Content-Length of 21 digits": HEAD + b"Content-Length: " + b"0" * 21 + b"\r\n\r\n",
    "a close before the whole body": HEAD + b'Content-Length: 100\r\n\r\n{"a": 1',
    "a close before any byte": b"",
    "a close in the middle of the head": b"HTTP/1.1 200 OK\r\nContent-Ty",
    "a chunk size that is not hex": HEAD
    + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    "a chunk without its footer": HEAD + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}XX0\r\n\r\n",
    "a close in the middle of a chunk": HEAD + b"Transfer-Encoding: chunked\r\n\r\n9\r\n{}",
    "a close before the last chunk": HEAD + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n",
    "a transfer coding other than chunked": HEAD + b"Transfer-Encoding: gzip\r\n\r\n{}",
    "two transfer codings": HEAD
    + b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "a redirect": b"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:9/elsewhere\r\n"
    b"Content-Length: 0\r\n\r\n",
    "a redirect to a broken Location": b"HTTP/1.1 302 Found\r\nLocation: http://[::1\r\n"
    b"Content-Length: 0\r\n\r\n",
    "a NUL in a header value": HEAD + b"X-Bad: a\x00b\r\nContent-Length: 2\r\n\r\n{}",
    "a header line without a colon": HEAD + b"X-Bad\r\nContent-Length: 2\r\n\r\n{}",
    "a space before the colon": HEAD + b"X-Bad : 1\r\nContent-Length: 2\r\n\r\n{}",
    "a continuation line first": b"HTTP/1.1 200 OK\r\n X: 1\r\nContent-Length: 2\r\n\r\n{}",
    "a status code that is not one": b"HTTP/1.1 2OO OK\r\nContent-Length: 2\r\n\r\n{}",
    "a status line that is not HTTP": b"SSH-2.0-OpenSSH_9.6\r\n\r\n",
    "a head larger than httpcore takes": b"HTTP/1.1 200 OK\r\nX: " + b"a" * (200 * 1024),
    "a body that is not JSON": HEAD + b"Content-Length: 5\r\n\r\nhello",
    "a body labelled as HTML": b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
    b"Content-Length: 2\r\n\r\n{}",
    "JSON nested past the bound": HEAD
    + b"Content-Length: 2000\r\n\r\n"
    + b"[" * 1000
    + b"]" * 1000,
    "an error status": b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
    b'Content-Length: 19\r\n\r\n{"error": "resting"}'[:-1],
    "an unasked-for 101, then an answer": b"HTTP/1.1 101 Switching Protocols\r\n\r\n" + OK,
    "an unasked-for 101 with an Upgrade": b"HTTP/1.1 101 Switching Protocols\r\n"
    b"Upgrade: h2c\r\nConnection: Upgrade\r\n\r\n",
    "an early hint first": b"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + OK,
    "a 307 to another origin": b"HTTP/1.1 307 Temporary Redirect\r\n"
    b"Location: http://127.0.0.2:9/x\r\nContent-Length: 0\r\n\r\n",
    "a 308 to https": b"HTTP/1.1 308 Permanent Redirect\r\nLocation: https://example.com/x\r\n"
    b"Content-Length: 0\r\n\r\n",
    "a 204 with a body": b"HTTP/1.1 204 No Content\r\n\r\n{}",
    "chunked and a length": HEAD + b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n"
    b"2\r\n{}\r\n0\r\n\r\n",
    "a chunk extension with a CR": HEAD + b"Transfer-Encoding: chunked\r\n\r\n"
    b"2;a=\rb\r\n{}\r\n0\r\n\r\n",
    "a bad trailer": HEAD + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nX Y\r\n\r\n",
    "a status 600": b"HTTP/1.1 600 X\r\nContent-Length: 2\r\n\r\n{}",
    "HTTP/2.0 in the status line": b"HTTP/2.0 200 OK\r\nContent-Length: 2\r\n\r\n{}",
    "a bare LF head": b"HTTP/1.1 200 OK\nContent-Type: application/json\nContent-Length: 2\n\n{}",
    "a head of many fields within 100 KiB": HEAD
    + b"".join(b"X-%d: v\r\n" % i for i in range(9000))
    + b"Content-Length: 2\r\n\r\n{}",
    "a length with a plus": HEAD + b"Content-Length: +2\r\n\r\n{}",
    "a length with a space after it": HEAD + b"Content-Length: 2 \r\n\r\n{}",
    "an empty Content-Length in a list": HEAD + b"Content-Length: 2,\r\n\r\n{}",
}


@pytest.mark.parametrize("answer", list(HOSTILE.values()), ids=list(HOSTILE))
def test_every_answer_ends_the_same_on_both_routes(answer: bytes) -> None:
    by_httpx, own = _both(answer)
    assert own == by_httpx


def test_a_trickled_answer_ends_at_the_deadline_on_both_routes() -> None:
    """One byte every 0.2 s (each read well inside its timeout): both end at the 1 s bound."""
    body = [bytes([byte]) for byte in OK]
    for lean_route in (False, True):
        with RawPeer(lambda _: (body, True), gap=0.2) as peer:
            http = _http(lean_route, timeout=1.0)
            started = time.monotonic()
            kind, code, line = _outcome(http, peer.url + "/t")
            http.close()
        assert time.monotonic() - started < 3
        assert (kind, code) == ("UnavailableError", 9) and "timed out" in str(line)


def test_the_request_bytes_are_the_same_on_both_routes() -> None:
    sent = []
    for lean_route in (False, True):
        with RawPeer(lambda _: (OK, False)) as peer:
            http = _http(lean_route)
            url = configured(peer.url + "/svc/tasks/t1?page=2&x=%C3%A9", "u")
            http.send("GET", url, what="poll", resend_safe=True, headers={"svc-x": "1"})
            http.close()
        sent.append(peer.requests[0][1].replace(peer.url[7:].encode(), b"HOST"))
    assert sent[0] == sent[1]
    assert sent[1].startswith(b"GET /svc/tasks/t1?page=2&x=%C3%A9 HTTP/1.1\r\nHost: HOST\r\n")


def test_a_header_value_that_would_split_the_request_is_refused_on_both_routes() -> None:
    with RawPeer(lambda _: (OK, False)) as peer:
        for lean_route in (False, True):
            http = _http(lean_route)
            with pytest.raises(httpx.LocalProtocolError):
                http._request_once(
                    "GET",
                    configured(peer.url + "/t", "u"),
                    json=None,
                    data=None,
                    headers={"svc-x": "1 "},
                    auth=None,
                )
            http.close()
        assert peer.requests == []


# --- the kept connection -----------------------------------------------------------------------


@pytest.fixture
def lean_http() -> Iterator[Http]:
    http = _http(True)
    yield http
    http.close()


def _polls(http: Http, peer: RawPeer, count: int) -> list[object]:
    return [_outcome(http, f"{peer.url}/svc/tasks/t{n}") for n in range(count)]


def test_a_connection_is_kept_and_reused(lean_http: Http) -> None:
    with RawPeer(lambda _: (OK, False)) as peer:
        assert _polls(lean_http, peer, 3) == [("ok", {"ok": True})] * 3
    assert peer.connections == 1 and len(peer.requests) == 3


def test_a_connection_the_server_closed_is_not_reused(lean_http: Http) -> None:
    """The server hangs up after each answer without saying so: the next poll sees the closed
    connection before sending on it and opens a new one (httpcore's check)."""
    with RawPeer(lambda _: (OK, True)) as peer:
        for _ in range(3):
            assert _polls(lean_http, peer, 1) == [("ok", {"ok": True})]
            time.sleep(0.05)  # the FIN arrives
    assert peer.connections == 3


def test_connection_close_and_http_1_0_are_not_kept(lean_http: Http) -> None:
    for answer in (
        json_answer(b"{}", b"Connection: close"),
        b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
    ):
        with RawPeer(lambda _, answer=answer: (answer, False)) as peer:
            assert _polls(lean_http, peer, 2) == [("ok", {})] * 2
        assert peer.connections == 2


def test_bytes_after_the_answer_never_become_the_next_answer(lean_http: Http) -> None:
    """A server that sends more than the answer (a second, unasked-for answer): the connection
    is dropped, and the next poll reads its own answer on a new one."""
    smuggled = json_answer(b'{"n": 1}') + json_answer(b'{"smuggled": true}')
    with RawPeer(lambda i: (smuggled if i == 0 else json_answer(b'{"n": 2}'), False)) as peer:
        assert _polls(lean_http, peer, 2) == [("ok", {"n": 1}), ("ok", {"n": 2})]
    assert peer.connections == 2


def test_a_late_unasked_answer_on_an_idle_connection_is_never_read(lean_http: Http) -> None:
    parts = [json_answer(b'{"n": 1}'), json_answer(b'{"smuggled": true}')]
    with RawPeer(lambda i: (parts if i == 0 else json_answer(b'{"n": 2}'), False), 0.1) as peer:
        first = _polls(lean_http, peer, 1)
        time.sleep(0.3)  # the second answer arrives while the connection is idle
        assert first + _polls(lean_http, peer, 1) == [("ok", {"n": 1}), ("ok", {"n": 2})]
    assert peer.connections == 2


def test_an_idle_connection_expires_as_httpcores_does(
    lean_http: Http, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lean, "KEEPALIVE_EXPIRY", 0.1)
    with RawPeer(lambda _: (OK, False)) as peer:
        _polls(lean_http, peer, 1)
        time.sleep(0.2)
        _polls(lean_http, peer, 1)
    assert peer.connections == 2


def test_a_broken_answer_drops_its_connection(lean_http: Http) -> None:
    answers = [HEAD + b"Content-Length: 2x\r\n\r\n{}", OK]
    with RawPeer(lambda i: (answers[min(i, 1)], False)) as peer:
        outcomes = _polls(lean_http, peer, 2)
    assert outcomes[0][0] == "UnavailableError" and outcomes[1] == ("ok", {"ok": True})
    assert peer.connections == 2


def test_the_idle_connections_are_bounded_and_closed_with_the_client() -> None:
    http = _http(True)
    peers = [RawPeer(lambda _: (OK, False)).__enter__() for _ in range(lean.MAX_IDLE + 3)]
    try:
        for peer in peers:
            _polls(http, peer, 1)
        transport = http.router.cleartext
        assert isinstance(transport, lean.LeanTransport)
        assert sum(map(len, transport._idle.values())) == lean.MAX_IDLE
        http.close()
        assert transport._idle == {}
    finally:
        for peer in peers:
            peer.__exit__()


# --- what takes the lean route, and what does not -----------------------------------------------


def test_a_get_with_a_body_and_any_other_method_take_httpx_route(lean_http: Http) -> None:
    with RawPeer(lambda _: (OK, False)) as peer:
        url = configured(peer.url + "/t", "u")
        lean_http.send("POST", url, what="x", json_body={"a": 1}, resend_safe=True)
        request = httpx.Request("GET", peer.url + "/t", content=b"{}")
        assert lean.request_head(request) is None
    assert peer.requests[0][1].startswith(b"POST /t HTTP/1.1\r\n")


def test_a_proxied_get_goes_to_its_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """HTTP_PROXY applies to a plain http:// GET: it is sent to the proxy (httpx's route, in
    absolute form), never straight to the host."""
    with RawPeer(lambda _: (OK, False)) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        http = _http(True)
        assert _outcome(http, "http://far.example.invalid/svc/tasks/t1") == ("ok", {"ok": True})
        http.close()
    assert proxy.requests[0][1].startswith(b"GET http://far.example.invalid/svc/tasks/t1 HTTP/1.1")


def test_a_credential_never_leaves_in_cleartext_on_the_lean_route(lean_http: Http) -> None:
    """The guard runs before any route: a bearer to a far http:// host is refused unsent."""
    far = configured("http://far.example.invalid/svc/tasks/t1", "u")
    with pytest.raises(UntrustedURLError):
        lean_http.send(
            "GET", far, what="poll", headers={"Authorization": "Bearer s"}, resend_safe=True
        )


def test_a_cookie_set_on_the_lean_route_is_sent_back(lean_http: Http) -> None:
    answer = json_answer(b"{}", b"Set-Cookie: session=abc; Path=/")
    with RawPeer(lambda _: (answer, False)) as peer:
        _polls(lean_http, peer, 2)
    assert b"Cookie: session=abc" not in peer.requests[0][1]
    assert b"\r\nCookie: session=abc\r\n" in peer.requests[1][1]


def test_an_answer_keeps_its_version_and_reason(lean_http: Http) -> None:
    with RawPeer(lambda _: (json_answer(b"[]").replace(b" OK", b" Fine Thanks"), False)) as peer:
        url = configured(peer.url + "/t", "u")
        response = lean_http.send("GET", url, what="x", resend_safe=True)
    assert (response.http_version, response.reason_phrase) == ("HTTP/1.1", "Fine Thanks")
    assert json.loads(response.content) == []


def test_a_mock_of_httpx_sending_sees_every_request(
    monkeypatch: pytest.MonkeyPatch, lean_http: Http
) -> None:
    """A library user's tests that mock httpx (pytest-httpx patches HTTPTransport, respx
    httpcore's pool) keep seeing every request: none goes to the network past the mock."""
    seen: list[str] = []

    def by_httpx(transport: object, request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(200, json={"mocked": "httpx"})

    def by_httpcore(pool: object, request: httpcore.Request) -> httpcore.Response:
        seen.append(bytes(request.url.target).decode())
        body = b'{"mocked": "httpcore"}'
        return httpcore.Response(
            200, headers=[(b"content-type", b"application/json")], content=body
        )

    with RawPeer(lambda _: (OK, False)) as peer:
        for target, mock in (
            (httpx.HTTPTransport, by_httpx),
            (httpcore.ConnectionPool, by_httpcore),
        ):
            with monkeypatch.context() as patch:
                patch.setattr(target, "handle_request", mock)
                mocked = _outcome(lean_http, peer.url + "/t")
                assert mocked == ("ok", {"mocked": mock.__name__[3:]})
        assert _outcome(lean_http, peer.url + "/t") == ("ok", {"ok": True})  # and now the wire
        assert len(peer.requests) == 1
    assert seen == [peer.url + "/t", "/t"]


def test_a_kept_plain_connection_sets_no_timeout_per_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain connection is made non-blocking once and waited on with poll: a timeout set
    before each step was an ioctl a step, each a hand-off of the GIL among a batch's workers.
    Three answers on one connection: the one timeout create_connection sets, no more."""
    set_to: list[float | None] = []
    real = socket.socket.settimeout

    def counting(sock: socket.socket, value: float | None) -> None:
        set_to.append(value)
        real(sock, value)

    monkeypatch.setattr(socket.socket, "settimeout", counting)
    with RawPeer(lambda _: (OK, False)) as peer:
        http = _http(lean_route=True)
        try:
            assert [_outcome(http, peer.url + "/x")[0] for _ in range(3)] == ["ok"] * 3
        finally:
            http.close()
    assert peer.connections == 1
    assert len(set_to) == 1, set_to
