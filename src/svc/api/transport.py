"""How a request travels: direct or through its proxy, over verified TLS, under one deadline.

httpx drops the proxy variables once it is handed a transport (api/proxies.py reads them), and
it has no whole-answer timeout, so both are built here: `ProxyRouter` picks a route per
request: the lean route (api/lean.py) for what it sends, else a `DeadlineTransport`
(api/httpx_route.py), whose sockets end each read and write by the answer's deadline. The size
cap around the router is api/capped.py.

httpx's transport, and with it httpcore and h11, is built (and imported) when a request first
needs it: about 40 ms of every command's start-up that a plain poll or a paid submit over the
lean route never uses.
"""

from __future__ import annotations

import ssl
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import httpx  # svc/__init__.py has already kept httpx's CLI (click, rich) from loading

from svc.api.lean import LeanTransport
from svc.api.proxies import Proxy, ProxyEnv
from svc.errors import UsageError

if TYPE_CHECKING:
    from svc.api.httpx_route import DeadlineTransport


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
        self._lock = threading.Lock()
        self._httpx_cleartext: DeadlineTransport | None = None  # built on first use
        # `lean_limit`: a bodiless GET or a POST with its body in memory, with no proxy (http
        # or https), skips httpcore (api/lean.py), its raw answer bounded by it; anything else
        # goes on to httpx's transport of the same route.
        self.lean: LeanTransport | None = None
        if lean_limit is not None:
            self.lean = LeanTransport(
                seconds,
                lean_limit,
                _weakly(self, lambda router: router.httpx_cleartext),
                _weakly(self, ProxyRouter._lean_tls),
            )
        self.context: ssl.SSLContext | None = None  # the verifying one, built on first TLS use
        self._direct: DeadlineTransport | None = None
        self._via: dict[str, DeadlineTransport] | None = None

    @property
    def cleartext(self) -> httpx.BaseTransport:
        """The route of a plain http:// request with no proxy: the lean one, if there is one."""
        return self.lean if self.lean is not None else self.httpx_cleartext

    @property
    def httpx_cleartext(self) -> DeadlineTransport:
        """httpx's route for plain http://, whose context trusts no CA (built on first use)."""
        with self._lock:
            if self._httpx_cleartext is None:
                self._httpx_cleartext = _httpx_route(self.seconds, _trusting_nobody())
            return self._httpx_cleartext

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

    def _verifying_context(self) -> ssl.SSLContext:
        """The one context every https route verifies with (the CA bundle loaded once)."""
        with self._lock:  # watch's pollers route from several threads
            if self.context is None:
                context = tls_context()
                # What httpcore sets on it before each handshake of an HTTP/1.1 client: set
                # once here, so the lean route's handshakes offer the same.
                context.set_alpn_protocols(["http/1.1"])
                self.context = context
            return self.context

    def _tls_routes(self) -> None:
        context = self._verifying_context()
        with self._lock:
            if self._direct is not None:
                return
            self._via = {
                p.url: _httpx_route(self.seconds, context, p.url) for p in self.env.proxies
            }
            self._direct = _httpx_route(self.seconds, context)

    def _lean_tls(self) -> tuple[ssl.SSLContext, Callable[[], httpx.BaseTransport]]:
        """The lean route's https: the verifying context, and how to reach httpx's direct
        route for what it declines (built then, not with the context: a lean https request
        needs neither httpcore nor h11)."""
        return self._verifying_context(), lambda: self.direct

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
        built = [self._direct, *(self._via or {}).values(), self._httpx_cleartext]
        for transport in (self.lean, *built):
            if transport is not None:
                transport.close()


def _httpx_route(
    seconds: float, verify: ssl.SSLContext, proxy: str | None = None
) -> DeadlineTransport:
    """httpx's transport for one route (imported here: it brings httpcore and h11)."""
    from svc.api.httpx_route import DeadlineTransport

    return DeadlineTransport(seconds, verify=verify, proxy=proxy)


R = TypeVar("R")


def _weakly(router: ProxyRouter, method: Callable[[ProxyRouter], R]) -> Callable[[], R]:
    """`method` applied to `router`, for its lean route, through a weak reference (`method`
    must not hold the router itself): a cycle between the two would keep their sockets open
    until a garbage collection, where a command that never closes its client relies on them
    closing as it ends."""
    ref = weakref.ref(router)

    def call() -> R:
        owner = ref()
        assert owner is not None  # the router outlives every request it routes
        return method(owner)

    return call


def _trusting_nobody() -> ssl.SSLContext:
    """A client context with verification on and no CA loaded: every handshake fails."""
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
