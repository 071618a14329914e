"""`receipt`: what the ledger says was paid for one task or request id; nothing is sent.

The whole operation in one place: its arguments, its result, its words, and on each face.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from pydantic import Field

from svc.context import AppContext
from svc.engines.receipt import receipt_document
from svc.operations.declare import Command, Document, Method, Operation, Tool
from svc.operations.fields import Positional, Request
from svc.operations.results import ResultModel
from svc.words import usd


class ReceiptRequest(Request):
    task_or_request_id: Annotated[str, Positional("ID")] = Field(
        min_length=1, max_length=256, description="A task id or request id."
    )


class Settlement(ResultModel):
    """How a payment settled: the rail's kind of reference and the reference itself (the
    x402 transaction, the MPP receipt's reference, the card payment id)."""

    kind: str | None = None
    reference: str | None = None
    payment_id: str | None = None
    receipt: dict[str, Any] | None = None  # the rail's receipt as the server sent it, decoded


class Refund(ResultModel):
    amount_usd: Decimal | None = None
    at: str | None = None


class Receipt(ResultModel):
    """What the ledger says was paid for one request or task (`svc receipt ID --json`):
    amounts exact Decimals, times ISO 8601 UTC."""

    request_id: str
    task_id: str | None = None
    status: str
    rail: str
    amount_usd: Decimal | None = None
    payer: str | None = None
    recipient: str | None = None
    network: str | None = None
    asset: str | None = None
    settlement: Settlement
    billing: str | None = None
    paid_at: str | None = None
    refund: Refund | None = None
    net_usd: Decimal | None = None
    origin: str | None = None
    runner: str | None = None


def receipt_text(doc: dict[str, Any]) -> str:
    task = f"task {doc['task_id']}" if doc.get("task_id") else "no task yet"
    when = doc.get("paid_at") or "an unknown time"
    text = (
        f"Paid {usd(doc['amount_usd'])} by {doc['rail']} for {task} (request "
        f"{doc['request_id']}, status {doc['status']}), at {when}."
    )
    reference = (doc.get("settlement") or {}).get("reference")
    if reference:
        text += f" Settlement reference: {reference}."
    refund = doc.get("refund")
    if refund:
        text += f" Refunded {usd(refund.get('amount_usd') or '0')}; net {usd(doc['net_usd'])}."
    return text


def _receipt(app: AppContext, request: ReceiptRequest) -> Document:
    return receipt_document(app, request.task_or_request_id)


RECEIPT = Operation(
    "receipt",
    ReceiptRequest,
    cli=Command(
        "receipt",
        "Show one payment: rail, amount, parties and its settlement reference.",
        "Show what was paid for one task or request: a receipt from the ledger.\n\n"
        "The rail (x402, mpp, card), the amount, payer and recipient, network and asset, the "
        "settlement reference (the x402 PAYMENT-RESPONSE's transaction, the MPP receipt's "
        "reference, the card payment id), when it was paid, and any refund. One JSON document "
        "when piped or with --json. Exit 7 when the ledger has no such id, or nothing was "
        "paid for it. Reads the ledger only: nothing is sent.\n\n"
        "\b\nExamples:\n"
        "  svc receipt task_8f2c41d09b7e6a13\n"
        "  svc receipt req_5b1d... --json | jq -r .settlement.reference",
    ),
    mcp=Tool(
        "get_receipt",
        "A payment's receipt",
        "What the ledger says was paid for one task or request id (free, nothing sent): the "
        "rail, amount, payer and recipient, network and asset, the settlement reference (the "
        "x402 transaction, the MPP receipt's reference, the card payment id), when it was paid "
        "and any refund. An id the ledger lacks, or one that paid nothing, is an error.",
        Receipt,
        read_only=True,
    ),
    library=Method(
        "receipt",
        "The receipt of one task or request id from the ledger (`svc receipt ID --json`); "
        "NotFound for an id the ledger lacks or one that paid nothing.",
    ),
    run=_receipt,
    result=Receipt,
    text=receipt_text,
)
