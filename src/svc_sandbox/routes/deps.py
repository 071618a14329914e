"""How routes reach the sandbox state (one instance per app)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from svc_sandbox.state.sandbox import SandboxState


async def sandbox_state(request: Request) -> SandboxState:
    """Async: FastAPI runs a plain function dependency in its thread pool, a hop on every
    request for an attribute read (the batch's sandbox CPU)."""
    state = request.app.state.sandbox
    assert isinstance(state, SandboxState)
    return state


async def raw_body(request: Request) -> bytes:
    """The request body as sent (the MPP digest binds these bytes)."""
    return await request.body()


RawBody = Annotated[bytes, Depends(raw_body)]
