"""`GET|POST /svc/paid/echo`: the generic paid endpoint (svc_sandbox.payments.paid_request)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from svc_sandbox.payments import paid_request
from svc_sandbox.routes.deps import RawBody, sandbox_state
from svc_sandbox.state.sandbox import SandboxState

router = APIRouter()

State = Annotated[SandboxState, Depends(sandbox_state)]


# Not in the discovery document: the spec's paid surface is the tasks'; this one is the
# sandbox's own, for `svc request` (docs/sandbox-wire.md).
@router.get(paid_request.PATH, include_in_schema=False)
@router.post(paid_request.PATH, include_in_schema=False)
def paid_echo(
    request: Request,
    state: State,
    raw: RawBody,
    x402: Annotated[int, Query(ge=1, le=2)] = 2,
    size: Annotated[
        int | None, Query(alias="bytes", ge=0, le=paid_request.MAX_STREAM_BYTES)
    ] = None,
) -> Response:
    """Pay the task fee, get the request echoed (or `bytes` bytes streamed)."""
    return paid_request.answer(state, request, raw, x402, size)
