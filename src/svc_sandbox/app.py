"""The sandbox application factory."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI

from svc_sandbox import admin, identity, tasks
from svc_sandbox.errors import SandboxError, handle_sandbox_error
from svc_sandbox.faults import FaultMiddleware
from svc_sandbox.state import SandboxState

# Every surface the sandbox serves, in one list. Add identity, advisor, discovery and the
# MPP/card payment routers here.
ROUTERS: list[APIRouter] = [
    tasks.router,
    admin.router,
    identity.router,
    identity.admin_router,
]


def create_app(state: SandboxState | None = None) -> FastAPI:
    app = FastAPI(
        title="svc sandbox",
        summary="Local emulator of the paid task-execution service",
        version="1.0.0",
    )
    app.state.sandbox = state or SandboxState()
    for router in ROUTERS:
        app.include_router(router)
    app.add_exception_handler(SandboxError, handle_sandbox_error)
    app.add_middleware(FaultMiddleware, state=app.state.sandbox)
    return app
