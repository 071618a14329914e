"""How routes reach the sandbox state (one instance per app)."""

from __future__ import annotations

from fastapi import Request

from svc_sandbox.state import SandboxState


def sandbox_state(request: Request) -> SandboxState:
    state = request.app.state.sandbox
    assert isinstance(state, SandboxState)
    return state
