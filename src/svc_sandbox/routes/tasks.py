"""The task operations: submit (paid, x402), poll and reply (free, scoped to the agent)."""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from svc_sandbox import scenarios
from svc_sandbox.errors import SandboxError, api_error
from svc_sandbox.identity import agent_bearer
from svc_sandbox.payments import paid, x402
from svc_sandbox.routes.deps import RawBody, sandbox_state
from svc_sandbox.state.config import SandboxConfig
from svc_sandbox.state.records import Task
from svc_sandbox.state.sandbox import SandboxState

router = APIRouter()

State = Annotated[SandboxState, Depends(sandbox_state)]

_EMAIL = re.compile(r"^[^@\s]+@[^@\s.]+(\.[^@\s.]+)+$")
PROOF_HEADER = x402.TASK_PROOF_HEADER


class TaskSubmission(BaseModel):
    """The spec's submission body: "No other fields exist on this surface", so an unknown one
    (a typo such as `emial`) is a 422 naming it, as the quote body's are, before any 402."""

    model_config = ConfigDict(extra="forbid")

    task: str = Field(min_length=1, max_length=100_000)
    email: str = Field(min_length=3, max_length=254)


class ReplyInfo(BaseModel):
    field_values: dict[str, str] = Field(default_factory=dict)
    payment_approved: bool | None = None


class ReplyBody(BaseModel):
    message: str | None = Field(default=None, max_length=4000)
    field: str | None = Field(default=None, max_length=64)
    value: str | None = Field(default=None, max_length=4000)
    sensitive: bool = False
    info: ReplyInfo | None = None


@router.post("/svc/tasks", status_code=202)
def submit_task(body: TaskSubmission, request: Request, state: State, raw: RawBody) -> Response:
    """FastAPI's route: what `routes.submit_fast` does not take (an odd body, for the 422 and
    400 shapes FastAPI words) comes here; both run `submit_answer`."""
    return submit_answer(state, body, request, raw)


def submit_answer(
    state: SandboxState, body: TaskSubmission, request: Request, raw: bytes
) -> Response:
    if not _EMAIL.match(body.email):
        raise api_error(400, "invalid_request", "malformed e-mail address")
    config = state.get_config()
    # A presented bearer must verify; with require_bearer, one must be presented (before 402).
    bearer = agent_bearer.request_agent(
        state.identity, request, state.clock.now(), required=config.require_bearer
    )
    answer = paid.submit(state, config, request, raw, body.task)
    if bearer is not None and answer.task_id is not None:
        # Whatever the rail, a task submitted with a bearer belongs to that agent.
        state.identity.tokens.bind_task(answer.task_id, bearer.id)
    return answer.response


@router.get("/svc/tasks/{ticket_id}")
def poll_task(ticket_id: str, request: Request, state: State) -> dict[str, Any]:
    _owned_task(state, request, ticket_id)
    task = state.poll(ticket_id)
    if task is None:  # reset in between
        raise _not_found(ticket_id)
    return task.to_wire(with_events=True)


@router.post("/svc/tasks/{ticket_id}/reply")
def reply_to_task(
    ticket_id: str, body: ReplyBody, request: Request, state: State
) -> dict[str, Any]:
    _owned_task(state, request, ticket_id)
    reply = scenarios.Reply(
        message=body.message,
        field=body.field,
        value=body.value,
        sensitive=body.sensitive,
        info_present=body.info is not None,
        field_values=body.info.field_values if body.info else None,
        payment_approved=body.info.payment_approved if body.info else None,
    )
    try:
        task = state.update(ticket_id, lambda t, now: scenarios.apply_reply(t, reply, now))
    except scenarios.ReplyRejected as exc:
        raise rejection_error(exc) from None
    if task is None:  # reset in between
        raise _not_found(ticket_id)
    return task.to_wire()


def rejection_error(exc: scenarios.ReplyRejected) -> SandboxError:
    if exc.status == 422:  # the spec's validation error body, plus the error code
        item = {"loc": exc.loc, "msg": exc.detail, "type": "value_error"}
        return SandboxError(422, {"error": exc.error, "detail": [item]})
    return api_error(exc.status, exc.error, exc.detail)


# --- helpers ---------------------------------------------------------------------------


def _owned_task(state: SandboxState, request: Request, ticket_id: str) -> Task:
    """The task, if the caller may see it (else 404): each credential presented must match.

    A proof's signer must be the payer; a bearer's agent must be the agent that submitted with a
    bearer (tasks submitted without one are bound to no agent identity). A bearer alone also
    identifies the caller, so it stands in for the zero-amount proof `require_agent` asks for.
    """
    bearer = agent_bearer.request_agent(state.identity, request, state.clock.now())
    identified = bearer is not None and PROOF_HEADER not in request.headers
    agent = None if identified else _agent(state.get_config(), request)
    task = state.peek(ticket_id)
    bound = state.identity.tokens.task_agent(ticket_id) if bearer is not None else None
    if (
        task is None
        or (agent is not None and not task.owned_by(agent))
        or (bearer is not None and bound is not None and bound != bearer.id)
    ):
        raise _not_found(ticket_id)
    return task


def _not_found(ticket_id: str) -> SandboxError:
    return api_error(404, "not_found", f"no task {ticket_id!r} for this agent")


def _agent(config: SandboxConfig, request: Request) -> str | None:
    """The agent behind a free call, from its zero-amount proof (None when anonymous)."""
    return x402.free_call_payer(
        request.headers,
        config,
        reads=PROOF_HEADER,
        required=config.require_agent,
        resource_url=str(request.url),
        description="Free call: sign a zero-amount proof to identify the agent.",
    )
