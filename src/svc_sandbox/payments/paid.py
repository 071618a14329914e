"""The one path of a paid submit, whatever the rail, and the one `svc-billing` header.

Order, for every rail: no proof -> the 402 (x402, MPP and card at once); an armed payment fault
answers; the proof is parsed and the payer identified; then, under one lock so a request id is
never settled twice: a failed delivery of this request id is answered again; a request id paid
before replays its task (or is a mismatch for another payer); else the rail takes the money and
the store books the charge and creates the task, or refunds a failed delivery.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response

from svc_sandbox.errors import SandboxError, api_error
from svc_sandbox.faults.queue import FAULT_STATUS, PaymentFault
from svc_sandbox.payments import challenges, rails, x402
from svc_sandbox.payments.money import usd
from svc_sandbox.state.config import SandboxConfig
from svc_sandbox.state.records import Task
from svc_sandbox.state.sandbox import Charge, SandboxState, Settlement

REQUEST_ID_HEADER = "svc-request-id"
BILLING_HEADER = "svc-billing"
USAGE_ERROR_HEADER = "svc-usage-error"
_FAIL_DELIVERY = re.compile(r"#fail-delivery\b", re.IGNORECASE)


@dataclass(frozen=True)
class Paid:
    response: Response
    task_id: str | None  # the task this answer is about (new or replayed), if any


def billing(status: str, method: str, amount_atomic: int, payment_id: str) -> str:
    """The `svc-billing` header: what this answer cost (charged, replayed or refunded)."""
    return (
        f"status={status}; method={method}; amount_usd={usd(amount_atomic)}; "
        f"payment_id={payment_id}"
    )


def submit(
    state: SandboxState, config: SandboxConfig, request: Request, raw: bytes, goal: str
) -> Paid:
    method = rails.method_of(request.headers)
    if method is None:
        note = x402.misplaced_proof_note(request.headers, x402.TASK_PROOF_HEADER)
        raise challenges.fee_challenge(state, config, request, raw, note=note)
    usage_error = _take_fault(state, method)
    rail = rails.rail_for(method, state, config, request, raw)
    request_id = request.headers.get(REQUEST_ID_HEADER)
    with _booking_settlement_failures(state, rail, request_id):
        rail.identify()  # outside the lock: a signature recovery needs no shared state
    with state.payments.settle_lock:
        paid = _settle(state, rail, request_id, goal)
    if usage_error and 200 <= paid.response.status_code < 300:
        paid.response.headers[USAGE_ERROR_HEADER] = "invalid_usage_header"
    return paid


def _take_fault(state: SandboxState, method: str) -> bool:
    """Raise the armed payment fault for this rail; True for `usage_error` (served, unbilled)."""
    fault = state.payments.take_fault(method)
    if fault is None:
        return False
    if fault.code == "usage_error":
        return True
    raise fault_error(fault)


def fault_error(fault: PaymentFault) -> SandboxError:
    body: dict[str, Any] = {"error": fault.code, "detail": f"sandbox payment fault: {fault.code}"}
    headers: dict[str, str] = {}
    if fault.code == "settlement_failed":
        body["settlementReason"] = fault.reason or "insufficient_funds"
    if fault.code == "rate_limit_exceeded":
        retry_after = fault.retry_after if fault.retry_after is not None else 1
        body["retry_after"] = retry_after
        headers["Retry-After"] = str(retry_after)
    return SandboxError(FAULT_STATUS[fault.code], body, headers)


def _settle(state: SandboxState, rail: rails.Rail, request_id: str | None, goal: str) -> Paid:
    failed = state.payments.failed_delivery(request_id)
    if failed is not None:
        return Paid(_refunded_answer(failed), None)
    receipt: dict[str, str] = {}
    with _booking_settlement_failures(state, rail, request_id):
        settlement = state.replay(request_id, rail.payer)
        if settlement is None:
            taken = rail.take()
            receipt = taken.receipt
            deliver = not (rail.refunds_failed_delivery and _FAIL_DELIVERY.search(goal))
            charge = Charge(
                rail.method,
                rail.payer,
                taken.amount_atomic,
                request_id,
                goal,
                taken.book,
                taken.onchain,
                deliver,
            )
            settlement = state.settle(charge)
        if settlement.outcome == "failed":
            raise rail.refused(settlement.reason or "settlement_failed")
    rail.settled(settlement, request_id)
    return _answer(state, rail.method, settlement, request_id, receipt)


@contextmanager
def _booking_settlement_failures(
    state: SandboxState, rail: rails.Rail, request_id: str | None
) -> Iterator[None]:
    """A signed payment that did not settle goes in the books (`settlement_failures`)."""
    try:
        yield
    except SandboxError as exc:
        reason = exc.body.get("settlementReason")
        if exc.status == 402 and isinstance(reason, str):
            book = rail.failure_book()
            state.record_settlement_failure(reason=reason, request_id=request_id, **book)
        raise


def _answer(
    state: SandboxState,
    method: str,
    settlement: Settlement,
    request_id: str | None,
    receipt: dict[str, str],
) -> Paid:
    if settlement.outcome == "mismatch":
        raise api_error(
            409,
            "payment_request_mismatch",
            f"{REQUEST_ID_HEADER} was already used by another payer; get a fresh 402",
        )
    if settlement.outcome == "replayed":
        assert settlement.task is not None
        return _replayed(state, settlement.task, request_id)
    charge = settlement.charge
    assert charge is not None
    if settlement.outcome == "refunded":
        answer = {
            "status": 502,
            "body": {
                "error": "upstream_error",
                "detail": "the upstream service failed to accept the task; the payment was "
                "refunded in full",
            },
            "billing": billing("refunded", method, charge["amount_atomic"], charge["id"]),
        }
        state.payments.remember_failed_delivery(request_id, answer)
        return Paid(_refunded_answer(answer), None)
    assert settlement.task is not None
    state.payments.remember_receipt(request_id, receipt)
    headers = {BILLING_HEADER: billing("charged", method, charge["amount_atomic"], charge["id"])}
    response = JSONResponse(
        settlement.task.to_wire(), status_code=202, headers={**headers, **receipt}
    )
    return Paid(response, settlement.task.id)


def _replayed(state: SandboxState, task: Task, request_id: str | None) -> Paid:
    """The original task again, as it is now; billed nothing (the charge it refers to).

    The settlement's receipt goes with it unchanged (docs/sandbox-wire.md, "Replays"): a
    replay answers the same payment again, so an SDK that reads the receipt after every
    paid 2xx finds the one transaction that paid; `svc-billing: status=replayed` is what says
    nothing new was charged, and svc reads only that.
    """
    current = state.peek(task.id) or task
    charge = state.charge_for(task.id) or {}
    header = billing(
        "replayed",
        str(charge.get("method", "")),
        int(charge.get("amount_atomic", 0)),
        str(charge.get("id", "")),
    )
    headers = {BILLING_HEADER: header}
    if state.config.replay_receipts:
        headers.update(state.payments.receipt_for(request_id))
    response = JSONResponse(current.to_wire(), status_code=202, headers=headers)
    return Paid(response, task.id)


def _refunded_answer(answer: dict[str, Any]) -> Response:
    return JSONResponse(
        answer["body"], status_code=answer["status"], headers={BILLING_HEADER: answer["billing"]}
    )
