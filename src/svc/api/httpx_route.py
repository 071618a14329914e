"""httpx's own transport, each request on the wire bounded as a whole by one deadline: every
route of api/transport.ProxyRouter (direct, through a proxy, plain http).

Imported when the router first builds a route: this module brings httpcore and h11.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
from typing import Any

import httpcore
import httpx  # svc/__init__.py has already kept httpx's CLI (click, rich) from loading

from svc.api.deadline import current_cancel, remaining, start_deadline


class _DeadlineStream(httpcore.NetworkStream):
    """A socket whose every read and write ends by the deadline: a server that trickles one byte
    just inside each read timeout still cannot stretch an answer past it."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self.inner = inner
        self.cancel = current_cancel.get()
        if self.cancel is not None:  # a cancelled call shuts this socket from its thread
            self.cancel.watch(id(self), self._shut)

    def _shut(self) -> None:
        """Wake the read or write this stream is blocked in: it fails, and the call ends."""
        sock = self.inner.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.inner.read(max_bytes, remaining(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.inner.write(buffer, remaining(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        if self.cancel is not None:
            self.cancel.forget(id(self))
        self.inner.close()

    def start_tls(
        self,
        ssl_context: Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        left = remaining(timeout, httpcore.ConnectTimeout)
        if self.cancel is not None:  # the TLS stream wraps the same socket: one watch for it
            self.cancel.forget(id(self))
        return _DeadlineStream(self.inner.start_tls(ssl_context, server_hostname, left))

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
        left = remaining(timeout, httpcore.ConnectTimeout)
        stream = self.inner.connect_tcp(host, port, left, local_address, socket_options)
        return _DeadlineStream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.NetworkStream:
        left = remaining(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self.inner.connect_unix_socket(path, left, socket_options))

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

    def __init__(self, seconds: float, *, verify: ssl.SSLContext, proxy: str | None = None) -> None:
        self.seconds = seconds
        # One TLS context for every pool (the CA bundle is loaded once); `proxy`: through it
        # (CONNECT for https), its sockets bounded the same way.
        self.inner: httpx.HTTPTransport = httpx.HTTPTransport(verify=verify, proxy=proxy)
        pool = self.inner._pool
        pool._network_backend = _DeadlineBackend(pool._network_backend)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        start_deadline(self.seconds)
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()
