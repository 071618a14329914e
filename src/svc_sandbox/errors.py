"""Error responses: JSON with the code in a top-level `error`, as the spec requires."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse


class SandboxError(Exception):
    """Raised anywhere in a route; rendered as `status` + JSON `body` + `headers`."""

    def __init__(
        self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(body.get("detail") or body.get("error"))
        self.status = status
        self.body = body
        self.headers = headers or {}


def api_error(status: int, error: str, detail: str, **extra: Any) -> SandboxError:
    return SandboxError(status, {"error": error, "detail": detail, **extra})


async def handle_sandbox_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, SandboxError)
    return JSONResponse(exc.body, status_code=exc.status, headers=exc.headers)
