"""How a request travels: direct or through its proxy, over verified TLS, under one deadline.

httpx drops the proxy variables once it is handed a transport (api/proxies.py reads them), and
it has no whole-answer timeout, so both are built here: `ProxyRouter` picks a route per
request, each an httpx `DeadlineTransport` (api/httpx_route.py), whose sockets end each read
and write by the answer's deadline. The size cap around the router is api/capped.py. A route
is built (and httpcore imported) when a request first needs it.
"""

from __future__ import annotations

import ssl
import threading
from typing import TYPE_CHECKING

import httpx  # svc/__init__.py has already kept httpx's CLI (click, rich) from loading

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

    def __init__(self, seconds: float, env: ProxyEnv) -> None:
        self.env = env
        self.seconds = seconds
        self._lock = threading.Lock()
        self._httpx_cleartext: DeadlineTransport | None = None  # built on first use
        self.context: ssl.SSLContext | None = None  # the verifying one, built on first TLS use
        self._direct: DeadlineTransport | None = None
        self._via: dict[str, DeadlineTransport] | None = None

    @property
    def cleartext(self) -> DeadlineTransport:
        """The route for plain http://, whose context trusts no CA (built on first use)."""
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
                self.context = tls_context()
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

    def route(self, url: str) -> Proxy | None:
        return self.env.proxy_for(url)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        proxy = self.route(str(request.url))
        if proxy is None and request.url.scheme == "http":
            return self.cleartext.handle_request(request)
        transport = self.direct if proxy is None else self.via[proxy.url]
        return transport.handle_request(request)

    def close(self) -> None:
        built = [self._direct, *(self._via or {}).values(), self._httpx_cleartext]
        for transport in built:
            if transport is not None:
                transport.close()


def _httpx_route(
    seconds: float, verify: ssl.SSLContext, proxy: str | None = None
) -> DeadlineTransport:
    """httpx's transport for one route (imported here: it brings httpcore and h11)."""
    from svc.api.httpx_route import DeadlineTransport

    return DeadlineTransport(seconds, verify=verify, proxy=proxy)


def _trusting_nobody() -> ssl.SSLContext:
    """A client context with verification on and no CA loaded: every handshake fails."""
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
