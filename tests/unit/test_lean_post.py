"""The lean route of a POST (api/lean.py), against httpx's own (issue 34's batch): a submit and
its paid retry go out byte for byte as httpx sends them, every hostile answer ends the same way,
and a POST is never sent twice by the route: on a kept connection that turned out dead it fails
as httpcore fails it (no answer, never re-sent; the retry loop then says it may or may not have
been applied). A raw peer on loopback writes the bytes (tests/raw_peer.py)."""

from __future__ import annotations

import ssl
import time
from collections.abc import Generator
from pathlib import Path

import httpcore
import httpx
import pytest
from tests.raw_peer import RawPeer, json_answer
from tests.tls_peer import make_pki
from tests.unit.test_lean_wire import HOSTILE, OK

from svc.api import lean
from svc.api.http import Http
from svc.api.retry import RetryPolicy
from svc.errors import SvcError
from svc.origin import configured

CAP = 4096
BODY = {"task": "book a table", "email": "a@example.com"}


@pytest.fixture(autouse=True)
def _small_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SVC_MAX_RESPONSE_BYTES", str(CAP))


def _http(lean_route: bool, attempts: int = 1) -> Http:
    retry = RetryPolicy(attempts=attempts)
    return Http(timeout=5.0, retry=retry, sleep=lambda _: None, lean=lean_route)


def _post(http: Http, url: str, auth: httpx.Auth | None = None) -> tuple[object, ...]:
    """What a submit's POST comes to: its status and JSON, or the error a person would see."""
    try:
        response = http.send(
            "POST",
            configured(url, "the test URL"),
            what="submit",
            json_body=BODY,
            headers={"Idempotency-Key": "req_1"},
            auth=auth,
            resend_safe=False,
        )
    except SvcError as exc:
        return (type(exc).__name__, int(exc.exit_code), str(exc))
    # The body as read (a hostile answer's may be no JSON, or nested past any bound).
    return ("ok", response.status_code, response.content)


def _sends_lean(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The requests the lean route writes, recorded (so a test knows which route sent)."""
    sent: list[bytes] = []
    send = lean.Exchange.send

    def recorded(self: lean.Exchange, request: bytes) -> None:
        sent.append(request)
        send(self, request)

    monkeypatch.setattr(lean.Exchange, "send", recorded)
    return sent


@pytest.mark.parametrize("answer", list(HOSTILE.values()), ids=list(HOSTILE))
def test_every_answer_to_a_post_ends_the_same_on_both_routes(
    answer: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = _sends_lean(monkeypatch)
    seen = []
    for lean_route in (False, True):
        with RawPeer(lambda _: (answer, True)) as peer:
            http = _http(lean_route)
            try:
                seen.append(_post(http, peer.url + "/svc/tasks"))
            finally:
                http.close()
    assert seen[1] == seen[0]
    assert len(sent) == 1 and sent[0].startswith(b"POST /svc/tasks HTTP/1.1\r\n")


class _PaidOnChallenge(httpx.Auth):
    """As the payment auth does: the first answer is a 402, the proof goes in a header of the
    same request, sent again."""

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        response = yield request
        if response.status_code == 402:
            request.headers["Payment-Signature"] = "proof-of-payment"
            yield request


CHALLENGE = b"HTTP/1.1 402 Payment Required\r\nContent-Type: application/json\r\n"
CHALLENGE += b'Content-Length: 17\r\n\r\n{"challenge": 1}\n'


def _paid_on_both_routes(
    second: bytes, tls: ssl.SSLContext | None = None
) -> tuple[list[tuple[object, ...]], list[list[bytes]]]:
    """A paid submit on each route, httpx's first: the challenge, then `second` to the paid
    retry. Each route's outcome and the requests it wrote (the peer's address as HOST), each
    on one connection."""
    outcomes, wires = [], []
    for lean_route in (False, True):
        answers = [CHALLENGE, second]
        with RawPeer(lambda i, answers=answers: (answers[i], False), tls=tls) as peer:
            http = _http(lean_route)
            outcomes.append(_post(http, peer.url + "/svc/tasks", _PaidOnChallenge()))
            http.close()
        assert peer.connections == 1
        host = peer.url.split("://", 1)[1].encode()
        wires.append([request.replace(host, b"HOST") for _, request in peer.requests])
    return outcomes, wires


def test_a_paid_submit_is_the_same_bytes_on_both_routes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The challenge and the paid retry (its proof added by the auth flow) go out byte for
    byte as httpx writes them, on one kept connection, the lean route writing both."""
    sent = _sends_lean(monkeypatch)
    outcomes, wires = _paid_on_both_routes(json_answer(b'{"id": "t1"}'))
    assert outcomes == [("ok", 200, b'{"id": "t1"}')] * 2
    assert wires[1] == wires[0]
    assert wires[1][1].startswith(b"POST /svc/tasks HTTP/1.1\r\nHost: HOST\r\n")
    assert b"\r\nPayment-Signature: proof-of-payment\r\n" in wires[1][1]
    assert wires[1][1].endswith(b'\r\n\r\n{"task":"book a table","email":"a@example.com"}')
    assert len(sent) == 2


def test_a_paid_retry_answered_101_is_a_broken_connection_on_both_routes() -> None:
    """The proof-carrying retry answered `101 Switching Protocols`, no upgrade asked for: h11
    refuses it, so the connection broke and the proof's fate is unknown (exit 9 here, which
    the submit flow journals as unknown, exit 10). The lean route once handed the 101 back as
    the service's final answer, and the proof was journaled as refused: "not charged"."""
    outcomes, _ = _paid_on_both_routes(b"HTTP/1.1 101 Switching Protocols\r\n\r\n" + OK)
    assert outcomes[0][:2] == ("UnavailableError", 9)
    assert outcomes[1] == outcomes[0]


def test_a_request_asking_for_an_upgrade_goes_to_httpx() -> None:
    request = httpx.Request("GET", "http://127.0.0.1:9/x", headers={"Upgrade": "h2c"})
    assert lean.request_head(request) is None


def _dies_on_second(i: int) -> tuple[bytes, bool]:
    """Answers the first request and keeps the connection; reads the second and hangs up
    without a word: a kept connection that turned out dead once the POST was on it."""
    return (OK, False) if i == 0 else (b"", True)


@pytest.mark.parametrize("attempts", [1, 4])
def test_a_post_on_a_kept_connection_that_died_is_never_sent_twice(
    attempts: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """httpcore sends a request once on the connection it took from its pool and, when no
    answer comes, raises; the lean route does the same, and the retry loop does not send a
    request that may have been applied again, however many attempts it has."""
    sent = _sends_lean(monkeypatch)
    outcomes, counts = [], []
    for lean_route in (False, True):
        with RawPeer(_dies_on_second) as peer:
            http = _http(lean_route, attempts)
            outcomes.append([_post(http, peer.url + "/svc/tasks") for _ in range(2)])
            http.close()
        counts.append((len(peer.requests), peer.connections))
    assert outcomes[1] == outcomes[0]
    assert outcomes[1][0] == ("ok", 200, b'{"ok": true}')
    kind, code, line = outcomes[1][1]
    assert (kind, code) == ("UnavailableError", 9) and "may or may not have been applied" in line
    assert counts == [(2, 1), (2, 1)]  # the second POST reached the server once, on both
    assert len(sent) == 2


def test_a_kept_connection_the_server_closed_is_not_used_for_a_post(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server hung up after its answer and said so (the FIN is there): the next POST sees
    it before sending and opens a new connection, as httpcore's pool does."""
    sent = _sends_lean(monkeypatch)
    with RawPeer(lambda _: (OK, True)) as peer:
        http = _http(True)
        for _ in range(2):
            assert _post(http, peer.url + "/svc/tasks") == ("ok", 200, b'{"ok": true}')
            time.sleep(0.2)  # the FIN arrives, even on a loaded machine
        http.close()
    assert (len(peer.requests), peer.connections, len(sent)) == (2, 2, 2)


def test_a_post_the_route_cannot_send_as_h11_would_goes_to_httpx() -> None:
    """A body not whole in memory, or framed otherwise than by one Content-Length that says
    its size (h11 refuses a mismatch only half-way through: httpx's route fails it the same
    way), and every method but GET and POST, are httpx's to send."""
    url = "http://127.0.0.1:9/t"
    whole = httpx.Request("POST", url, content=b"{}")
    assert lean.request_head(whole) is not None
    assert lean.request_head(whole).endswith(b"\r\n\r\n{}")  # type: ignore[union-attr]
    streamed = httpx.Request("POST", url, content=iter([b"{}"]))
    wrong = httpx.Request("POST", url, content=b"{}", headers={"Content-Length": "3"})
    chunked = httpx.Request("POST", url, content=b"{}", headers={"Transfer-Encoding": "chunked"})
    padded = httpx.Request("POST", url, content=b"{}", headers={"Content-Length": "02"})
    for request in (streamed, wrong, chunked, padded):
        assert lean.request_head(request) is None
    for method in ("PUT", "DELETE", "PATCH", "HEAD"):
        assert lean.request_head(httpx.Request(method, url, content=b"{}")) is None


def test_a_post_with_a_wrong_length_fails_as_httpx_fails_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sent = _sends_lean(monkeypatch)
    errors = []
    with RawPeer(lambda _: (OK, False)) as peer:
        for lean_route in (False, True):
            http = _http(lean_route)
            with pytest.raises(Exception) as caught:  # its type is compared below
                http.client.post(peer.url + "/t", content=b"{}", headers={"Content-Length": "3"})
            errors.append((type(caught.value), str(caught.value)))
            http.close()
    assert errors[1] == errors[0] and sent == []
    assert "Too little data for declared Content-Length" in errors[1][1]


def test_a_mock_of_httpx_sending_sees_every_post(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest-httpx and respx patch httpx's or httpcore's sending: a library user's mocked
    test still sees every POST, and none reaches the network past the mock."""
    seen: list[str] = []

    def by_httpx(transport: object, request: httpx.Request) -> httpx.Response:
        seen.append(request.method)
        return httpx.Response(200, json={"mocked": "httpx"})

    def by_httpcore(pool: object, request: httpcore.Request) -> httpcore.Response:
        seen.append(request.method.decode())
        body = b'{"mocked":"httpcore"}'
        return httpcore.Response(
            200, headers=[(b"content-type", b"application/json")], content=body
        )

    with RawPeer(lambda _: (OK, False)) as peer:
        http = _http(True)
        for target, mock in (
            (httpx.HTTPTransport, by_httpx),
            (httpcore.ConnectionPool, by_httpcore),
        ):
            with monkeypatch.context() as patch:
                patch.setattr(target, "handle_request", mock)
                assert _post(http, peer.url + "/t") == (
                    "ok",
                    200,
                    b'{"mocked":"%s"}' % mock.__name__[3:].encode(),
                )
        assert _post(http, peer.url + "/t") == ("ok", 200, b'{"ok": true}')
        http.close()
        assert len(peer.requests) == 1
    assert seen == ["POST", "POST"]


def test_a_paid_submit_over_tls_is_the_same_bytes_and_a_bad_certificate_sends_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over https the lean route verifies as httpx's does before a POST leaves: a certificate
    for another host ends both routes the same with nothing written; a sound one carries the
    challenge and the paid retry byte for byte as httpx writes them."""
    pki = make_pki(tmp_path)
    for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SSL_CERT_FILE", str(pki.ca))
    sent = _sends_lean(monkeypatch)
    refused = []
    for lean_route in (False, True):
        with RawPeer(lambda _: (OK, False), tls=pki.wrong_host) as peer:
            http = _http(lean_route)
            outcome = _post(http, peer.url + "/svc/tasks", _PaidOnChallenge())
            http.close()
        assert (peer.handshakes, peer.requests) == (0, [])
        port = peer.url.rsplit(":", 1)[1]
        refused.append(tuple(str(part).replace(port, "PORT") for part in outcome))
    assert refused[1] == refused[0] and refused[1][:2] == ("UnavailableError", "9")
    assert sent == []
    outcomes, wires = _paid_on_both_routes(json_answer(b'{"id": "t1"}'), pki.good)
    assert outcomes == [("ok", 200, b'{"id": "t1"}')] * 2
    assert wires[1] == wires[0] and len(wires[1]) == 2
    assert b"\r\nPayment-Signature: proof-of-payment\r\n" in wires[1][1]
    assert len(sent) == 2
