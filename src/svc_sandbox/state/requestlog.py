"""Every request the service surface received, so tests can prove a command sent nothing.

`GET /_sandbox/requests` → `{count, requests: [{method, path, raw_path, request_id, proofs,
traceparent}]}` (the newest 200; `raw_path` as sent, before percent-decoding; `request_id` the
svc-request-id header or null; `proofs` the names (never the values) of the payment proof headers
it carried; `traceparent` the W3C trace context header or null); the count never resets, so a
test compares it before and after a command.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

from fastapi import APIRouter, Request
from starlette.types import ASGIApp, Receive, Scope, Send

EXEMPT_PREFIX = "/_sandbox"
KEEP = 200
PROOF_HEADERS = ("x-payment", "payment-signature", "svc-payment-id")

router = APIRouter(prefix="/_sandbox", tags=["sandbox"])


class RequestLog:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0
        self.recent: deque[dict[str, Any]] = deque(maxlen=KEEP)

    def note(
        self,
        method: str,
        path: str,
        raw_path: str,
        *,
        request_id: str | None = None,
        proofs: list[str] | None = None,
        traceparent: str | None = None,
    ) -> None:
        entry = {"method": method, "path": path, "raw_path": raw_path, "request_id": request_id}
        with self._lock:
            self.count += 1
            self.recent.append({**entry, "proofs": proofs or [], "traceparent": traceparent})

    def view(self) -> dict[str, Any]:
        with self._lock:
            return {"count": self.count, "requests": list(self.recent)}


class RequestLogMiddleware:
    def __init__(self, app: ASGIApp, log: RequestLog) -> None:
        self.app = app
        self.log = log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope["path"].startswith(EXEMPT_PREFIX):
            raw = scope.get("raw_path") or scope["path"].encode()
            headers = {k.decode("latin-1").lower(): v for k, v in scope["headers"]}
            proofs = [name for name in PROOF_HEADERS if name in headers]
            if headers.get("authorization", b"").lower().startswith(b"payment "):
                proofs.append("authorization: Payment")
            rid, trace = headers.get("svc-request-id"), headers.get("traceparent")
            self.log.note(
                scope["method"],
                scope["path"],
                raw.decode("latin-1"),
                request_id=rid.decode("latin-1") if rid is not None else None,
                proofs=proofs,
                traceparent=trace.decode("latin-1") if trace is not None else None,
            )
        await self.app(scope, receive, send)


@router.get("/requests")
def requests_seen(request: Request) -> dict[str, Any]:
    log = request.app.state.request_log
    assert isinstance(log, RequestLog)
    return log.view()
