"""`svc receipt ID` on a terminal: one payment as key/value lines (every value is outside
text from the ledger or a server's receipt: `Output.pairs` cleans it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from svc.words import usd

if TYPE_CHECKING:
    from svc.ui.output import Output


def receipt(out: Output, doc: dict[str, Any]) -> None:
    settlement = doc["settlement"]
    refund = doc.get("refund")
    rows: list[tuple[str, object]] = [
        ("task", doc["task_id"] or "-"),
        ("request", doc["request_id"]),
        ("status", doc["status"]),
        ("rail", doc["rail"]),
        ("amount", usd(doc["amount_usd"])),
        ("paid at", doc["paid_at"]),
        ("payer", doc["payer"] or "-"),
        ("recipient", doc["recipient"] or "-"),
        ("network", doc["network"] or "-"),
        ("asset", doc["asset"] or "-"),
        (settlement["kind"], settlement["reference"] or "- (none kept)"),
        ("payment id", settlement["payment_id"] or "-"),
    ]
    if refund:
        rows.append(("refunded", f"{usd(refund['amount_usd'])} at {refund['at']}"))
        rows.append(("net", usd(doc["net_usd"])))
    if doc.get("runner"):
        rows.append(("runner", doc["runner"]))
    out.pairs(rows)
