"""Each request on the wire as a span of the command's trace (svc.telemetry), when a person's
collector asked for traces: the transport sees every request, the auth flows' second ones (a
paid re-send, a refreshed bearer) included, and a failure to connect as much as an answer.

`traceparent` goes only to the origins it is given (the service the person configured): a
server's link, a card page or another host learns nothing of the trace.
"""

from __future__ import annotations

import httpx

from svc import telemetry
from svc.api import headers
from svc.origin import origin_of


class TracedTransport(httpx.BaseTransport):
    def __init__(self, inner: httpx.BaseTransport, propagate_to: frozenset[str]) -> None:
        self.inner = inner
        self.propagate_to = propagate_to

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        origin = origin_of(str(request.url))  # scheme, host and port: the path and query dropped
        with telemetry.http_request(request.method, origin) as span:
            if origin in self.propagate_to:
                telemetry.propagate(request.headers)
            else:  # a request object the auth flow re-sends elsewhere keeps none it had
                request.headers.pop(headers.TRACEPARENT, None)
                request.headers.pop(headers.TRACESTATE, None)
            response = self.inner.handle_request(request)
            span.set({"http.response.status_code": response.status_code})
            if response.status_code >= 400:
                span.failed(str(response.status_code))
            return response

    def close(self) -> None:
        self.inner.close()
