"""How a request travels: direct or through its proxy, over verified TLS, under one deadline.

httpx drops the proxy variables once it is handed a transport (api/proxies.py reads them), and
it has no whole-answer timeout, so both are built here: `ProxyRouter` picks a route per
request, and every route is a `DeadlineTransport`, whose sockets end each read and write by
the answer's deadline. The size cap around the router is api/capped.py.
"""

from __future__ import annotations

import ssl
import threading
import time
import weakref
from typing import Any

import httpcore
import httpx  # svc/__init__.py has already kept httpx's CLI (click, rich) from loading

from svc.api.lean import LeanTransport, TlsRoute
from svc.api.proxies import Proxy, ProxyEnv
from svc.errors import UsageError

# The monotonic time by which the answer being received by this thread must be complete (watch
# polls from several threads through one client, so it is per thread, not per client).
_deadline = threading.local()


def end_deadline() -> None:
    """Called when a `client.request` returns (its body read): later sockets of this thread
    keep their own timeouts."""
    _deadline.at = None


def _remaining(timeout: float | None, error: type[Exception]) -> float | None:
    """The time this network operation may take: its own timeout, cut to the answer's deadline."""
    until: float | None = getattr(_deadline, "at", None)
    if until is None:
        return timeout
    left = until - time.monotonic()
    if left <= 0:
        raise error("the whole answer took longer than its deadline")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    """A socket whose every read and write ends by the deadline: a server that trickles one byte
    just inside each read timeout still cannot stretch an answer past it."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self.inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.inner.read(max_bytes, _remaining(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.inner.write(buffer, _remaining(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self.inner.close()

    def start_tls(
        self,
        ssl_context: Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        remaining = _remaining(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self.inner.start_tls(ssl_context, server_hostname, remaining))

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self.inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        remaining = _remaining(timeout, httpcore.ConnectTimeout)
        stream = self.inner.connect_tcp(host, port, remaining, local_address, socket_options)
        return _DeadlineStream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.NetworkStream:
        remaining = _remaining(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self.inner.connect_unix_socket(path, remaining, socket_options))

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


class DeadlineTransport(httpx.BaseTransport):
    """httpx's transport, each request on the wire bounded as a whole by `seconds`.

    The deadline starts when a request is handed to the transport and covers its answer, body
    included (httpx reads it before the next request starts; the client calls `end_deadline`
    once it has). Per request, not per `client.request` call: an auth flow (a 402 paid and
    re-sent, a token refreshed) sends several, and each has the whole bound. httpx has no
    whole-request timeout and no public way to pass a network backend, so the backend of its
    connection pool is wrapped (tests/unit/test_bounded_http.py pins this).
    """

    def __init__(
        self, seconds: float, *, verify: ssl.SSLContext | None = None, proxy: str | None = None
    ) -> None:
        self.seconds = seconds
        # One TLS context for every pool (the CA bundle is loaded once); `proxy`: through it
        # (CONNECT for https), its sockets bounded the same way.
        self.inner = httpx.HTTPTransport(verify=verify or tls_context(), proxy=proxy)
        pool = self.inner._pool
        pool._network_backend = _DeadlineBackend(pool._network_backend)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        _deadline.at = time.monotonic() + self.seconds
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


def tls_context() -> ssl.SSLContext:
    """The context every https connection verifies with: SSL_CERT_FILE, else SSL_CERT_DIR,
    else the bundled CAs (httpx reads the variables); an unreadable CA file is one line."""
    try:
        return httpx.create_ssl_context()
    except (OSError, ssl.SSLError) as exc:
        import os

        name = "SSL_CERT_FILE" if os.environ.get("SSL_CERT_FILE") else "SSL_CERT_DIR"
        reason = getattr(exc, "strerror", None) or getattr(exc, "reason", None) or "unreadable"
        raise UsageError(
            f"{name} ({os.environ.get(name, '')[:200]!a}) cannot be read as CA certificates: "
            f"{reason}",
            hint=f"point {name} at a PEM bundle, or unset it for the built-in CAs",
        ) from None


class ProxyRouter(httpx.BaseTransport):
    """Each request to a direct connection or to its proxy, as the environment says (httpx
    drops the proxy variables once it is handed a transport: api/proxies.py); every route is a
    DeadlineTransport, and the CappedTransport around this one bounds every answer.

    The CA bundle is loaded when the first request that may need TLS is routed, not before:
    loading it costs more than the rest of a `svc poll` against a loopback sandbox (issue
    34.3). A plain http:// request with no proxy goes through `cleartext`, whose context
    trusts no CA at all, so a TLS handshake on it could only fail, never pass unverified.
    """

    def __init__(self, seconds: float, env: ProxyEnv, *, lean_limit: int | None = None) -> None:
        self.env = env
        self.seconds = seconds
        self.httpx_cleartext = DeadlineTransport(seconds, verify=_trusting_nobody())
        # `lean_limit`: a bodiless GET or a POST with its body in memory, with no proxy (http
        # or https), skips httpcore (api/lean.py), its raw answer bounded by it; anything else
        # goes on to httpx's transport of the same route.
        self.cleartext: httpx.BaseTransport = self.httpx_cleartext
        self.lean: LeanTransport | None = None
        if lean_limit is not None:
            self.lean = LeanTransport(seconds, lean_limit, self.httpx_cleartext, _tls_of(self))
            self.cleartext = self.lean
        self._lock = threading.Lock()
        self.context: ssl.SSLContext | None = None  # the verifying one, built on first TLS use
        self._direct: DeadlineTransport | None = None
        self._via: dict[str, DeadlineTransport] | None = None

    @property
    def direct(self) -> DeadlineTransport:
        """The direct route for https (the verified TLS context, built on first use)."""
        self._tls_routes()
        assert self._direct is not None
        return self._direct

    @property
    def via(self) -> dict[str, DeadlineTransport]:
        """The route through each proxy, by its URL (built with `direct`)."""
        self._tls_routes()
        assert self._via is not None
        return self._via

    def _tls_routes(self) -> None:
        with self._lock:  # watch's pollers route from several threads
            if self._direct is not None:
                return
            context = tls_context()
            # What httpcore sets on it before each handshake of an HTTP/1.1 client: set once
            # here, so the lean route's handshakes offer the same.
            context.set_alpn_protocols(["http/1.1"])
            self._via = {
                p.url: DeadlineTransport(self.seconds, verify=context, proxy=p.url)
                for p in self.env.proxies
            }
            self._direct = DeadlineTransport(self.seconds, verify=context)
            self.context = context

    def _lean_tls(self) -> tuple[ssl.SSLContext, httpx.BaseTransport]:
        """The lean route's https: this context, and httpx's direct route for the rest."""
        direct = self.direct
        assert self.context is not None  # built with `direct`
        return self.context, direct

    def route(self, url: str) -> Proxy | None:
        return self.env.proxy_for(url)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        proxy = self.route(str(request.url))
        if proxy is None and request.url.scheme == "http":
            return self.cleartext.handle_request(request)
        if proxy is None and self.lean is not None:
            return self.lean.handle_request(request)
        transport = self.direct if proxy is None else self.via[proxy.url]
        return transport.handle_request(request)

    def close(self) -> None:
        built = [self._direct, *(self._via or {}).values(), self.httpx_cleartext]
        for transport in (self.cleartext, *built):
            if transport is not None:
                transport.close()


def _tls_of(router: ProxyRouter) -> TlsRoute:
    """`router`'s https for its lean route, through a weak reference: a cycle between the two
    would keep their sockets open until a garbage collection, where a command that never
    closes its client relies on them closing as it ends."""
    ref = weakref.ref(router)

    def tls() -> tuple[ssl.SSLContext, httpx.BaseTransport]:
        owner = ref()
        assert owner is not None  # the router outlives every request it routes
        return owner._lean_tls()

    return tls


def _trusting_nobody() -> ssl.SSLContext:
    """A client context with verification on and no CA loaded: every handshake fails."""
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
