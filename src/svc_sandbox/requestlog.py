"""Every request the service surface received, so tests can prove a command sent nothing.

`GET /_sandbox/requests` → `{count, requests: [{method, path, raw_path}]}` (the newest 200;
`raw_path` as sent, before percent-decoding); the count never resets, so a test compares it
before and after a command.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

from fastapi import APIRouter, Request
from starlette.types import ASGIApp, Receive, Scope, Send

EXEMPT_PREFIX = "/_sandbox"
KEEP = 200

router = APIRouter(prefix="/_sandbox", tags=["sandbox"])


class RequestLog:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0
        self.recent: deque[dict[str, str]] = deque(maxlen=KEEP)

    def note(self, method: str, path: str, raw_path: str) -> None:
        with self._lock:
            self.count += 1
            self.recent.append({"method": method, "path": path, "raw_path": raw_path})

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
            self.log.note(scope["method"], scope["path"], raw.decode("latin-1"))
        await self.app(scope, receive, send)


@router.get("/requests")
def requests_seen(request: Request) -> dict[str, Any]:
    log = request.app.state.request_log
    assert isinstance(log, RequestLog)
    return log.view()
