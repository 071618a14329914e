"""`svc receipt ID`: one payment as the ledger keeps it (`svc.engines.receipt` builds it)."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.engines.receipt import receipt_document
from svc.ui import views_receipt
from svc.ui.face import FaceContext

app = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class ReceiptOptions:
    task_or_request_id: str


@app.command(
    help="Show what was paid for one task or request: a receipt from the ledger.\n\n"
    "The rail (x402, mpp, card), the amount, payer and recipient, network and asset, the "
    "settlement reference (the x402 PAYMENT-RESPONSE's transaction, the MPP receipt's "
    "reference, the card payment id), when it was paid, and any refund. One JSON document "
    "when piped or with --json. Exit 7 when the ledger has no such id, or nothing was "
    "paid for it. Reads the ledger only: nothing is sent.\n\n"
    "\b\nExamples:\n"
    "  svc receipt task_8f2c41d09b7e6a13\n"
    "  svc receipt req_5b1d... --json | jq -r .settlement.reference"
)
def receipt(
    task_or_request_id: str = typer.Argument(..., metavar="ID", help="A task id or request id."),
) -> None:
    raise typer.Exit(run(ReceiptOptions(task_or_request_id), current()))


def run(opts: ReceiptOptions, ctx: FaceContext) -> int:
    doc = receipt_document(ctx, opts.task_or_request_id)
    ctx.output.show(doc, views_receipt.receipt)
    return 0
