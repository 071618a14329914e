"""`svc receipt ID`: what the ledger says was paid for one request or task, and how it settled."""

from __future__ import annotations

from typing import Any

from svc.context import AppContext
from svc.engines.settlement import (
    decoded_receipt,
    payment_id,
    settlement_kind,
    settlement_reference,
)
from svc.errors import NotFound
from svc.money import atomic_to_usd
from svc.next_step import step
from svc.numbers import iso
from svc.store.ledger import Authorization, LedgerStore, Submission


def receipt_document(app: AppContext, task_or_request_id: str) -> dict[str, Any]:
    """The receipt of a request id or task id the ledger holds; NotFound (exit 7) for
    one it lacks, or one that never paid (nothing to show a receipt for)."""
    ledger = app.ledger_to_read()
    row = ledger.find(task_or_request_id) if ledger is not None else None
    if ledger is None or row is None:
        raise NotFound(
            f"the ledger has no request or task {task_or_request_id!r}",
            code="not_in_ledger",
            next=step("see_tasks", tail=_which_ledger(app)),
        )
    if not row.amount_atomic or not row.method:
        raise NotFound(
            f"nothing was paid for {task_or_request_id!r} (its status: {row.status})",
            code="no_payment",
            next=step("see_tasks", tail=": what became of it"),
        )
    return _document(row, _signed(ledger, row.request_id))


def _which_ledger(app: AppContext) -> str:
    """Where the tasks list looks, for the ledger in effect: only a fleet's is shared (a
    local file's rows are this machine's alone, and a person must not go looking for another
    runner's request there)."""
    if app.settings.ledger_url:
        return " (the fleet's shared ledger: every runner's requests)"
    return " (the local ledger: only what this machine submitted)"


def _signed(ledger: LedgerStore, request_id: str) -> Authorization | None:
    """The authorization that carried the payment: the newest one not void."""
    auths = [a for a in ledger.authorizations_of(request_id) if a.status != "void"]
    return auths[-1] if auths else None


def _usd(atomic: int | None) -> str | None:
    return None if atomic is None else str(atomic_to_usd(atomic))


def _refund(row: Submission, auth: Authorization | None) -> dict[str, Any] | None:
    """What came back, and when: the authorization is last written by the refund itself
    (a row's own time moves with later task states)."""
    if row.status != "refunded" and not row.refunded_atomic:
        return None
    at = auth.updated_at if auth else row.updated_at
    return {"amount_usd": _usd(row.refunded_atomic), "at": iso(at)}


def _document(row: Submission, auth: Authorization | None) -> dict[str, Any]:
    refunded = row.refunded_atomic or 0
    raw = decoded_receipt(row.receipt)
    return {
        "request_id": row.request_id,
        "task_id": row.task_id,
        "status": row.status,
        "rail": row.method,
        "amount_usd": _usd(row.amount_atomic),
        "payer": row.payer,
        "recipient": row.pay_to,
        "network": row.network,
        "asset": row.asset,
        "settlement": {
            "kind": settlement_kind(row.method),
            "reference": settlement_reference(row),
            "payment_id": payment_id(row),
            "receipt": raw or None,  # the rail's receipt as the server sent it, decoded
        },
        "billing": row.billing,
        "paid_at": iso(auth.signed_at if auth else row.created_at),
        "refund": _refund(row, auth),
        "net_usd": _usd((row.amount_atomic or 0) - refunded),
        "origin": row.origin,
        "runner": row.runner,
    }
