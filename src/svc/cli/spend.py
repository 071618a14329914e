"""`svc spend`: what the ledger says was paid."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import typer

from svc.cli.app import current
from svc.store.ledger import ACCEPTED, UNKNOWN

app = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Show what was paid, per task and per method, with totals, from the local ledger.\n\n"
    "Counts accepted paid submissions; submissions whose outcome is unknown are listed "
    "apart (they may or may not have been charged).\n\n"
    "\b\nExamples:\n"
    "  svc spend\n"
    "  svc spend --json | jq .total_usd"
)
def spend() -> None:
    from svc.pay.x402 import atomic_to_usd

    app_ctx = current()
    rows = app_ctx.ledger.submissions()
    paid = [r for r in rows if r.status == ACCEPTED and r.proof and r.amount_atomic]
    unknown = [r for r in rows if r.status == UNKNOWN]
    by_method: dict[str, int] = defaultdict(int)
    by_day: dict[str, int] = defaultdict(int)
    from datetime import datetime

    for row in paid:
        by_method[row.method or "?"] += row.amount_atomic or 0
        by_day[datetime.fromtimestamp(row.created_at).strftime("%Y-%m-%d")] += (
            row.amount_atomic or 0
        )
    total = sum(r.amount_atomic or 0 for r in paid)
    doc: dict[str, Any] = {
        "total_usd": str(atomic_to_usd(total)),
        "paid_count": len(paid),
        "by_method": {m: str(atomic_to_usd(v)) for m, v in sorted(by_method.items())},
        "by_day": {d: str(atomic_to_usd(v)) for d, v in sorted(by_day.items())},
        "tasks": [
            {
                "request_id": r.request_id,
                "task_id": r.task_id,
                "method": r.method,
                "amount_usd": str(atomic_to_usd(r.amount_atomic or 0)),
                "pay_to": r.pay_to,
                "payer": r.payer,
                "billing": r.billing,
            }
            for r in paid
        ],
        "unknown_outcome": [r.request_id for r in unknown],
    }
    if app_ctx.output.json_mode:
        app_ctx.output.emit_json(doc)
        return
    from rich.table import Table

    table = Table(box=None, header_style="bold", title="paid tasks", title_justify="left")
    for column in ("task id", "method", "amount (USD)", "request id"):
        table.add_column(column)
    for item in doc["tasks"]:
        table.add_row(
            item["task_id"] or "-", item["method"] or "-", item["amount_usd"], item["request_id"]
        )
    console = app_ctx.output.console
    console.print(table)
    for method, amount in doc["by_method"].items():
        console.print(f"{method}: {amount} USD")
    console.print(f"total: {doc['total_usd']} USD over {len(paid)} task(s)")
    if unknown:
        app_ctx.output.warn(
            f"{len(unknown)} paid submission(s) have an unknown outcome; see `svc tasks`"
        )
