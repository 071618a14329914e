"""The lean route of a plain GET or a POST with its body in memory, with no proxy, over http://
or https://: a watch's poll, a submit and its paid retry (issue 34).

httpx's transport and httpcore cost a loopback poll about twice what the exchange itself does
(the pool scans every connection for each request, h11 builds an event for each step, the body
goes through several stream wrappers). `LeanTransport` keeps what they guarantee and little
else: the same request bytes (Host first, the names as given, each field checked as h11 checks
it), an answer read by h11's rules (api/wire_rules.py) whole within the deadline and the size
cap (api/lean_conn.py), and a keep-alive pool that, like httpcore's, never reuses a connection
idle for more than five seconds or one with something to read (the server closed it, or sent
what no request asked for). It answers with an `httpx.Response` whose body is read, so the
layers above it (CappedTransport's decoding and cap, the hooks, cookies, the retry loop) are
the ones every answer goes through.

Over https the connection is verified exactly as httpx's route verifies it: the same
`ssl.SSLContext` (api/transport.tls_context(), ALPN http/1.1), the URL's host as SNI and for
the host name check, the handshake under the answer's deadline (api/lean_conn.handshake).

api/transport.ProxyRouter sends a request here only when it has no proxy; one that is neither a
GET without a body nor a POST framed by its Content-Length goes on to httpx's transport of that
route, and proxies take httpx's routes. A POST is written once: on a kept connection that turns
out dead (closed after the idle check) it fails as httpcore's fails, and is never re-sent here.
"""

from __future__ import annotations

import re
import select
import socket
import ssl
import sys
import threading
import time
from collections.abc import Callable

import httpx  # svc/__init__.py has already kept httpx's CLI (click, rich) from loading

from svc.api.lean_conn import Clock, Exchange, connect, handshake
from svc.api.wire_rules import FIELD_NAME, FIELD_VALUE

KEEPALIVE_EXPIRY = 5.0  # seconds an idle connection may be reused: httpcore's default
MAX_IDLE = 20  # idle connections kept: httpx's max_keepalive_connections
_TARGET = re.compile(rb"[\x21-\x7e]+")
_HTTPX_SENDS = "httpx._transports.default"  # where the real sending methods are defined
_HTTPCORE_SENDS = "httpcore._sync.connection_pool"
_BODY_FIELDS = (b"content-length", b"transfer-encoding")
_UPGRADE = b"upgrade"  # a request asking for another protocol: httpx's (h11 follows it)
# The methods this route sends: a poll's GET, and a POST with its whole body in memory (a
# submit, its paid retry with the proof httpx's auth flow added, a reply).
_METHODS = ("GET", "POST")

Key = tuple[str, str, int]  # (scheme, host, port): the connections that may serve a request
# The verifying context and httpx's direct https route, built on first TLS use (ProxyRouter).
TlsRoute = Callable[[], tuple[ssl.SSLContext, Callable[[], httpx.BaseTransport]]]
_PORTS = {"http": 80, "https": 443}


def request_head(request: httpx.Request) -> bytes | None:
    """The request as h11 writes it: the request line, the fields (Host first, then the rest
    in order) and, for a POST, its body. None for a request this route does not send: a GET
    with a body, a POST whose body is not whole in memory or not framed by one Content-Length
    that says its size exactly (h11 refuses a mismatch half-way through sending: httpx's route
    sends it, to fail the same way), a request asking for an `Upgrade`, and every other method."""
    if request.method not in _METHODS:
        return None
    method = request.method.encode("ascii")
    target = request.url.raw_path
    if not _TARGET.fullmatch(target):
        raise httpx.LocalProtocolError(f"Illegal target characters: {target!r}")
    host: list[bytes] = []
    rest: list[bytes] = []
    framing: list[tuple[bytes, bytes]] = []
    for name, value in request.headers.raw:
        if not FIELD_NAME.fullmatch(name):
            raise httpx.LocalProtocolError(f"Illegal header name {name!r}")
        if not FIELD_VALUE.fullmatch(value):
            raise httpx.LocalProtocolError(f"Illegal header value {value!r}")
        lowered = name.lower()
        if lowered == _UPGRADE:
            return None
        if lowered in _BODY_FIELDS:
            framing.append((lowered, value))
        (host if lowered == b"host" else rest).append(b"%s: %s\r\n" % (name, value))
    if not host:
        raise httpx.LocalProtocolError("Missing mandatory Host: header")
    body = _body(method, request, framing)
    if body is None:
        return None
    return b"%s %s HTTP/1.1\r\n%s%s\r\n%s" % (method, target, b"".join(host), b"".join(rest), body)


def _body(
    method: bytes, request: httpx.Request, framing: list[tuple[bytes, bytes]]
) -> bytes | None:
    """A GET's (none) or a POST's body as the route sends it; None when it is not the route's."""
    if method == b"GET":
        return None if framing else b""
    if not isinstance(request.stream, httpx.ByteStream) or len(framing) != 1:
        return None
    body = request.content  # a ByteStream's bytes, read when the request was built
    return body if framing[0] == (b"content-length", b"%d" % len(body)) else None


class LeanTransport(httpx.BaseTransport):
    """Plain GETs and small POSTs (`request_head`), each answer whole within `seconds` and
    `limit` raw bytes, each request written once (never again on another connection: httpcore
    does not either, and the retry loop decides what may be sent twice); any other request
    goes to httpx's transport of the same route (`other()` for http://, `tls`'s for https://,
    each built when first asked for). Without `tls`, every https request goes to `other()`."""

    def __init__(
        self,
        seconds: float,
        limit: int,
        other: Callable[[], httpx.BaseTransport],
        tls: TlsRoute | None = None,
    ) -> None:
        self.seconds = seconds
        self.limit = limit
        self.other = other
        self.tls = tls
        self._idle: dict[Key, list[tuple[socket.socket, float]]] = {}
        self._lock = threading.Lock()  # a watch's pollers share the pool

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        scheme = url.scheme if url.scheme == "http" or self.tls is not None else ""
        mine = scheme in _PORTS and not _sending_is_mocked()
        head = request_head(request) if mine else None
        if head is None:
            return self._other(url.scheme).handle_request(request)
        clock = Clock(self.seconds, request.extensions.get("timeout", {}))
        key = (scheme, url.raw_host.decode("ascii"), url.port or _PORTS[scheme])
        sock = self._checkout(key) or self._open(key, clock)
        try:
            exchange = Exchange(sock, clock, url, self.limit)
            exchange.send(head)
            answer = exchange.head()
            body = exchange.body(answer)
        except BaseException:
            sock.close()
            raise
        if answer.keep_alive and exchange.whole and not exchange.buf:
            self._checkin(key, sock)
        else:
            sock.close()
        return httpx.Response(
            answer.status,
            headers=answer.headers,
            stream=httpx.ByteStream(body),
            request=request,
            extensions={"http_version": b"HTTP/" + answer.version, "reason_phrase": answer.reason},
        )

    def _other(self, scheme: str) -> httpx.BaseTransport:
        return self.tls()[1]() if scheme == "https" and self.tls is not None else self.other()

    def _open(self, key: Key, clock: Clock) -> socket.socket:
        scheme, host, port = key
        if scheme != "https":
            return connect(host, port, clock)
        assert self.tls is not None  # handle_request admits https only with it
        # The context first, as httpx's route builds it: an unreadable SSL_CERT_FILE is its
        # one line (a usage error) before any connection, whatever the host.
        context = self.tls()[0]
        return handshake(connect(host, port, clock), context, host, clock)

    def _checkout(self, key: Key) -> socket.socket | None:
        """An idle connection to reuse: fresh enough and with nothing waiting to be read."""
        while True:
            with self._lock:
                idle = self._idle.get(key)
                if not idle:
                    return None
                sock, since = idle.pop()
            if time.monotonic() - since <= KEEPALIVE_EXPIRY and _clean(sock):
                return sock
            sock.close()

    def _checkin(self, key: Key, sock: socket.socket) -> None:
        with self._lock:
            if sum(map(len, self._idle.values())) < MAX_IDLE:
                self._idle.setdefault(key, []).append((sock, time.monotonic()))
                return
        sock.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, {}
        for connections in idle.values():
            for sock, _ in connections:
                sock.close()


def _sending_is_mocked() -> bool:
    """Whether a test double stands in for httpx's or httpcore's sending (pytest-httpx and
    respx patch these methods): it must see every request, as before this route existed, and
    a mocked request must never reach the network instead; httpx's route sends it then."""
    if getattr(httpx.HTTPTransport.handle_request, "__module__", None) != _HTTPX_SENDS:
        return True
    httpcore = sys.modules.get("httpcore")
    if httpcore is None:  # not imported yet: nothing has patched it
        return False
    return getattr(httpcore.ConnectionPool.handle_request, "__module__", None) != _HTTPCORE_SENDS


def _clean(sock: socket.socket) -> bool:
    """Whether an idle connection has nothing to read, so that it may carry the next request.

    Bytes on the socket mean the server closed it (EOF) or sent what no request asked for:
    not used again (httpcore's check). Over TLS those bytes may also be a record with no
    application data (a session ticket, a key update), but telling it from the start of a
    stale answer means reading it, and a record cut in two would look alike: in doubt, the
    connection is dropped, as httpcore drops it. Decrypted bytes the TLS layer holds back
    (`pending`) are a stale answer the socket no longer shows."""
    if isinstance(sock, ssl.SSLSocket) and sock.pending():
        return False
    return not _readable(sock)


def _readable(sock: socket.socket) -> bool:
    """Whether the socket itself has bytes (or the EOF) waiting."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))
