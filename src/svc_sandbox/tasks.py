"""The task operations: submit (paid, x402), poll and reply (free, scoped to the agent)."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from svc_sandbox import agent_bearer, payments, scenarios, x402
from svc_sandbox.config import SandboxConfig
from svc_sandbox.deps import sandbox_state
from svc_sandbox.errors import SandboxError, api_error
from svc_sandbox.money import usd
from svc_sandbox.records import Task
from svc_sandbox.state import SandboxState

router = APIRouter()

State = Annotated[SandboxState, Depends(sandbox_state)]

_EMAIL = re.compile(r"^[^@\s]+@[^@\s.]+(\.[^@\s.]+)+$")
REQUEST_ID_HEADER = "svc-request-id"
PROOF_HEADER = "x-payment"


class TaskSubmission(BaseModel):
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
def submit_task(
    body: TaskSubmission, request: Request, state: State, raw: payments.RawBody
) -> Response:
    if not _EMAIL.match(body.email):
        raise api_error(400, "invalid_request", "malformed e-mail address")
    config = state.get_config()
    # A presented bearer must verify; with require_bearer, one must be presented (before 402).
    bearer = agent_bearer.request_agent(
        state.identity, request, state.clock.now(), required=config.require_bearer
    )
    paid = payments.handle_paid(state, config, request, raw, body.task)  # MPP, card, faults
    if paid is not None:
        if bearer is not None and 200 <= paid.status_code < 300:
            # Whatever the rail, a task submitted with a bearer belongs to that agent.
            task_id = json.loads(bytes(paid.body)).get("id")
            if isinstance(task_id, str):
                state.identity.bind_task(task_id, bearer.id)
        return paid
    header = request.headers.get(PROOF_HEADER)
    if header is None:
        raise payments.fee_challenge(state, config, request, raw)
    request_id = request.headers.get(REQUEST_ID_HEADER)
    proof = x402.decode_proof(header, config)
    try:
        payer = x402.verify_signature(proof)
        earlier = state.find_request(request_id)
        if earlier is None:
            problem = x402.settlement_problem(proof, config, config.price_atomic)
            if problem is not None:
                raise x402.settlement_error(problem, proof)
    except SandboxError as exc:
        _note_settlement_failure(state, exc, proof, request_id)
        raise
    settled = state.settle_submit(
        payer=payer,
        nonce=proof.authorization.nonce,
        amount_atomic=config.price_atomic,
        pay_to=config.pay_to,
        request_id=request_id,
        goal=body.task,
    )
    if settled.outcome == "mismatch":
        raise api_error(
            409,
            "payment_request_mismatch",
            f"{REQUEST_ID_HEADER} was already used by another payer; get a fresh 402",
        )
    if settled.outcome == "failed":
        assert settled.reason is not None
        error = x402.settlement_error(settled.reason, proof)
        _note_settlement_failure(state, error, proof, request_id)
        raise error
    assert settled.task is not None
    if bearer is not None:
        state.identity.bind_task(settled.task.id, bearer.id)
    if settled.outcome == "replayed":
        return _replayed(state, settled.task)
    assert settled.charge is not None
    billing = _billing("charged", config.price_atomic, settled.charge["id"])
    return JSONResponse(
        settled.task.to_wire(),
        status_code=202,
        headers={
            "PAYMENT-RESPONSE": x402.receipt(proof, success=True),
            "svc-billing": billing,
        },
    )


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
    bound = state.identity.task_agent(ticket_id) if bearer is not None else None
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
    header = request.headers.get(PROOF_HEADER)
    if header is None:
        if config.require_agent:
            raise x402.challenge(
                config,
                amount_atomic=0,
                resource_url=str(request.url),
                description="Free call: sign a zero-amount proof to identify the agent.",
            )
        return None
    proof = x402.decode_proof(header, config)
    payer = x402.verify_signature(proof)
    problem = x402.settlement_problem(proof, config, 0)
    if problem is not None:
        raise x402.settlement_error(problem, proof)
    return payer


def _replayed(state: SandboxState, task: Task) -> JSONResponse:
    current = state.peek(task.id) or task
    charge = state.charge_for(task.id) or {}
    billing = _billing("replayed", int(charge.get("amount_atomic", 0)), charge.get("id", ""))
    return JSONResponse(current.to_wire(), status_code=202, headers={"svc-billing": billing})


def _billing(status: str, amount_atomic: int, payment_id: str) -> str:
    return f"status={status}; method=x402; amount_usd={usd(amount_atomic)}; payment_id={payment_id}"


def _note_settlement_failure(
    state: SandboxState,
    exc: SandboxError,
    proof: x402.Proof,
    request_id: str | None,
) -> None:
    reason = exc.body.get("settlementReason")
    if exc.status == 402 and isinstance(reason, str):
        state.record_settlement_failure(
            reason=reason,
            payer=proof.authorization.from_,
            request_id=request_id,
            nonce=proof.authorization.nonce,
            amount_atomic=proof.authorization.value,
        )
