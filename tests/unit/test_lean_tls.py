"""The lean route over https (api/lean.py) against httpx's own: TLS verified with the same
context (SSL_CERT_FILE, the URL's host, CERT_REQUIRED, ALPN http/1.1), every hostile peer ending
the same on both routes and never carrying the request, a sound answer read and its connection
reused. The CA and certificates are made at test time (tests/tls_peer.py)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.raw_peer import RawPeer, json_answer
from tests.tls_peer import HostilePeer, Pki, make_pki
from tests.unit.test_lean_wire import CAP, HOSTILE

from svc.api.http import Http
from svc.api.retry import RetryPolicy
from svc.errors import SvcError
from svc.origin import configured

OK = json_answer()


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(autouse=True)
def _trust_the_test_ca(monkeypatch: pytest.MonkeyPatch, pki: Pki) -> None:
    for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SSL_CERT_FILE", str(pki.ca))


@pytest.fixture(autouse=True)
def _small_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SVC_MAX_RESPONSE_BYTES", str(CAP))  # the cap HOSTILE was made for


def _http(lean_route: bool, timeout: float = 5.0) -> Http:
    retry = RetryPolicy(attempts=1)
    return Http(timeout=timeout, retry=retry, sleep=lambda _: None, lean=lean_route)


def _outcome(http: Http, url: str) -> tuple[object, ...]:
    """What a poll of `url` comes to: its JSON, or the error a person would see (the peer's
    port, which differs between two peers, written as PORT)."""
    try:
        return ("ok", http.get_json(configured(url, "the test URL"), what="poll"))
    except SvcError as exc:
        port = url.split(":")[2].split("/", maxsplit=1)[0]
        return (type(exc).__name__, int(exc.exit_code), str(exc).replace(port, "PORT"))


def _same_on_both(make_peer: object, timeout: float = 5.0) -> tuple[object, ...]:
    """The outcome of one poll on each route, each against a fresh peer; they must agree."""
    seen = []
    for lean_route in (False, True):
        with make_peer() as peer:  # type: ignore[operator]
            http = _http(lean_route, timeout)
            try:
                seen.append(_outcome(http, peer.url + "/svc/tasks/t1"))
            finally:
                http.close()
            if isinstance(peer, RawPeer) and "CERTIFICATE_VERIFY_FAILED" in str(seen[-1]):
                # The client refused the handshake: the request never left it.
                assert (peer.handshakes, peer.requests) == (0, [])
    assert seen[0] == seen[1]
    return seen[1]


def test_a_sound_answer_is_read_on_both_routes(pki: Pki) -> None:
    assert _same_on_both(lambda: RawPeer(lambda _: (OK, False), tls=pki.good)) == (
        "ok",
        {"ok": True},
    )


@pytest.mark.parametrize("answer", list(HOSTILE.values()), ids=list(HOSTILE))
def test_every_answer_over_tls_ends_the_same_on_both_routes(pki: Pki, answer: bytes) -> None:
    """The answers tests/unit/test_lean_wire.py sends in cleartext, inside TLS records."""
    _same_on_both(lambda: RawPeer(lambda _: (answer, True), tls=pki.good))


def test_a_trickled_answer_over_tls_ends_at_the_deadline_on_both_routes(pki: Pki) -> None:
    """One TLS record of one byte every 0.2 s after a sound handshake: both end at 1 s."""
    body = [bytes([byte]) for byte in OK]
    started = time.monotonic()
    outcome = _same_on_both(lambda: RawPeer(lambda _: (body, True), 0.2, pki.good), timeout=1.0)
    assert time.monotonic() - started < 5
    assert outcome == ("UnavailableError", 9, "poll failed after 1 attempt: poll timed out")


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("untrusted", "unable to get local issuer certificate"),
        ("wrong_host", "IP address mismatch"),
        ("expired", "certificate has expired"),
    ],
)
def test_a_bad_certificate_ends_the_same_and_sends_nothing(
    pki: Pki, kind: str, reason: str
) -> None:
    context = getattr(pki, kind)
    outcome = _same_on_both(lambda: RawPeer(lambda _: (OK, False), tls=context))
    assert outcome[:2] == ("UnavailableError", 9)
    assert "CERTIFICATE_VERIFY_FAILED" in str(outcome[2]) and reason in str(outcome[2])


def test_a_host_name_is_checked_against_the_certificate(pki: Pki) -> None:
    """SNI and the host check use the URL's host: `localhost` is in the good certificate."""
    with RawPeer(lambda _: (OK, False), tls=pki.good) as peer:
        http = _http(True)
        try:
            url = peer.url.replace("127.0.0.1", "localhost") + "/svc/tasks/t1"
            assert _outcome(http, url) == ("ok", {"ok": True})
        finally:
            http.close()


def test_without_the_test_ca_the_certificate_is_refused(
    pki: Pki, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE")
    outcome = _same_on_both(lambda: RawPeer(lambda _: (OK, False), tls=pki.good))
    assert outcome[:2] == ("UnavailableError", 9) and "CERTIFICATE_VERIFY_FAILED" in str(outcome[2])


@pytest.mark.parametrize("kind", ["plain http", "close"])
def test_a_peer_that_breaks_the_handshake_ends_the_same(kind: str) -> None:
    outcome = _same_on_both(lambda: HostilePeer(kind))
    assert outcome[:2] == ("UnavailableError", 9)
    assert "cannot connect to https://127.0.0.1:" in str(outcome[2])


def test_a_trickled_handshake_ends_at_the_deadline_on_both_routes() -> None:
    started = time.monotonic()
    outcome = _same_on_both(lambda: HostilePeer("trickle", gap=0.1), timeout=1.0)
    # Two polls of one second each, not the trickle's unending handshake (slack for a load).
    assert time.monotonic() - started < 8.0
    assert outcome == ("UnavailableError", 9, "poll failed after 1 attempt: poll timed out")


@pytest.fixture
def lean_http() -> Iterator[Http]:
    http = _http(True)
    yield http
    http.close()


def test_a_connection_is_kept_and_reused(lean_http: Http, pki: Pki) -> None:
    with RawPeer(lambda _: (OK, False), tls=pki.good) as peer:
        url = peer.url + "/svc/tasks/t1"
        outcomes = [_outcome(lean_http, url) for _ in range(3)]
    assert outcomes == [("ok", {"ok": True})] * 3
    assert (peer.connections, peer.handshakes, len(peer.requests)) == (1, 1, 3)


def test_a_lean_https_request_builds_no_httpx_route(lean_http: Http, pki: Pki) -> None:
    """The verifying context is built, httpx's routes are not: a lean https request needs
    neither httpcore nor h11 (api/httpx_route.py is built for what the lean route declines)."""
    with RawPeer(lambda _: (OK, False), tls=pki.good) as peer:
        assert _outcome(lean_http, peer.url + "/svc/tasks/t1") == ("ok", {"ok": True})
    router = lean_http.router
    assert router.context is not None
    assert router._direct is None and router._via is None and router._httpx_cleartext is None


def test_alpn_offers_only_http_1_1(lean_http: Http, pki: Pki) -> None:
    with RawPeer(lambda _: (OK, False), tls=pki.good) as peer:
        _outcome(lean_http, peer.url + "/svc/tasks/t1")
    [key] = lean_http.router.lean._idle  # type: ignore[union-attr]
    [(sock, _)] = lean_http.router.lean._idle[key]  # type: ignore[union-attr]
    assert sock.selected_alpn_protocol() in (None, "http/1.1")
    assert lean_http.router.context.get_ca_certs()  # type: ignore[union-attr]


def test_bytes_sent_while_idle_are_never_read_as_the_next_answer(lean_http: Http, pki: Pki) -> None:
    stale = json_answer(b'{"stale": true}')

    def script(index: int) -> tuple[bytes | list[bytes], bool]:
        return ([OK, stale] if index == 0 else OK), False

    with RawPeer(script, tls=pki.good) as peer:
        url = peer.url + "/svc/tasks/t1"
        first = _outcome(lean_http, url)
        time.sleep(0.2)  # the stale answer arrives while the connection is idle
        second = _outcome(lean_http, url)
    assert first == second == ("ok", {"ok": True})
    assert peer.connections == 2


def test_a_close_notify_while_idle_drops_the_connection(lean_http: Http, pki: Pki) -> None:
    with RawPeer(lambda index: (OK, index == 0), tls=pki.good) as peer:
        url = peer.url + "/svc/tasks/t1"
        first = _outcome(lean_http, url)
        time.sleep(0.2)
        second = _outcome(lean_http, url)
    assert first == second == ("ok", {"ok": True})
    assert peer.connections == 2


def test_a_proxied_https_get_keeps_httpx_route(
    lean_http: Http, monkeypatch: pytest.MonkeyPatch, pki: Pki
) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    proxy = f"http://127.0.0.1:{listener.getsockname()[1]}"
    monkeypatch.setenv("HTTPS_PROXY", proxy)
    http = _http(True, timeout=1.0)
    try:
        with RawPeer(lambda _: (OK, False), tls=pki.good) as peer:
            outcome = _outcome(http, peer.url + "/svc/tasks/t1")
        assert peer.connections == 0 and outcome[0] != "ok"  # it went to the proxy
    finally:
        http.close()
        listener.close()


def test_the_ca_file_is_read_on_first_tls_use_only(pki: Pki, tmp_path: Path) -> None:
    http = _http(True)
    try:
        assert http.router.context is None  # a sandbox poll over http never loads it
    finally:
        http.close()


def test_a_record_with_no_data_while_idle_drops_the_connection(lean_http: Http, pki: Pki) -> None:
    """A close_notify alert is a TLS record with no application data, sent here while the
    connection is idle and the TCP connection left open: the socket is readable, the
    connection is not used again, and the next poll is answered on a new one."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []

    def serve() -> None:
        for _ in range(2):
            conn = pki.good.wrap_socket(listener.accept()[0], server_side=True)
            accepted.append(conn)
            conn.recv(65536)
            conn.sendall(OK)
            conn.settimeout(0.5)
            with contextlib.suppress(OSError):
                conn.unwrap()  # the close_notify; the TCP connection stays open

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    url = f"https://127.0.0.1:{listener.getsockname()[1]}/svc/tasks/t1"
    try:
        first = _outcome(lean_http, url)
        time.sleep(0.2)
        second = _outcome(lean_http, url)
        thread.join(5)
    finally:
        listener.close()
        for conn in accepted:
            conn.close()
    assert first == second == ("ok", {"ok": True})
    assert len(accepted) == 2
