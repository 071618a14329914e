"""The sandbox application factory."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI
from starlette.exceptions import HTTPException

from svc_sandbox.errors import SandboxError, handle_http_error, handle_sandbox_error
from svc_sandbox.faults.middleware import FaultMiddleware
from svc_sandbox.routes import admin, advisor, card, discovery, identity, paid, tasks
from svc_sandbox.routes.submit_fast import SubmitFastPath
from svc_sandbox.state import requestlog
from svc_sandbox.state.config import DEFAULT_NETWORK
from svc_sandbox.state.sandbox import SandboxState

# Every surface the sandbox serves, in one list. Add identity, advisor, discovery and the
# MPP/card payment routers here.
ROUTERS: list[APIRouter] = [
    tasks.router,
    advisor.router,
    discovery.router,
    admin.router,
    identity.router,
    identity.admin_router,
    requestlog.router,
    card.router,
    card.admin_router,
    paid.router,
]


def create_app(state: SandboxState | None = None, *, network: str = DEFAULT_NETWORK) -> FastAPI:
    """The whole service; `network` ("testnet", "mainnet") is what a new state offers."""
    app = FastAPI(
        title="svc sandbox",
        summary="Local emulator of the paid task-execution service",
        version="1.0.0",
        # /openapi.json is the public, searchable document (svc_sandbox.routes.discovery); FastAPI's
        # own full description (test controls included) stays available for /docs.
        openapi_url="/_sandbox/openapi.json",
    )
    app.state.sandbox = state or SandboxState(network=network)
    for router in ROUTERS:
        app.include_router(router)
    app.add_exception_handler(SandboxError, handle_sandbox_error)
    app.add_exception_handler(HTTPException, handle_http_error)
    # Innermost first: faults and the request log see every submit the fast path takes.
    app.add_middleware(SubmitFastPath)
    app.add_middleware(FaultMiddleware, state=app.state.sandbox)
    app.state.request_log = requestlog.RequestLog()
    app.add_middleware(requestlog.RequestLogMiddleware, log=app.state.request_log)
    return app
