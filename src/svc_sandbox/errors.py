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


# Framework errors (unparseable body, unknown route, wrong method) in the spec's error shape.
_HTTP_CODES = {400: "invalid_request", 404: "not_found", 405: "method_not_allowed"}


async def handle_http_error(request: Request, exc: Exception) -> JSONResponse:
    from starlette.exceptions import HTTPException

    assert isinstance(exc, HTTPException)
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        # Starlette names only the first route's methods; list every route on this path.
        allowed = _methods_for(request.app.router.routes, request.url.path)
        if allowed:
            headers["Allow"] = ", ".join(sorted(allowed))
    return JSONResponse(
        {"error": code, "detail": exc.detail}, status_code=exc.status_code, headers=headers
    )


def _methods_for(routes: Any, path: str) -> set[str]:
    allowed: set[str] = set()
    for route in routes:
        inner = getattr(route, "original_router", None)  # FastAPI's included routers
        if inner is not None:
            allowed |= _methods_for(inner.routes, path)
            continue
        regex = getattr(route, "path_regex", None)
        methods = getattr(route, "methods", None)
        if regex is not None and methods and regex.match(path):
            allowed |= set(methods)
    return allowed
