"""An operation's document in a line or two of plain words: the text an MCP tool result
carries beside its structured content (the document itself)."""

from __future__ import annotations

from typing import Any

from svc.words import counted, plural, usd


def spend_text(doc: dict[str, Any]) -> str:
    text = (
        f"Paid {usd(doc['paid_usd'])} over {plural(doc['paid_count'], 'task')}, refunded "
        f"{usd(doc['refunded_usd'])}, net {usd(doc['total_usd'])}; outstanding "
        f"authorizations {usd(doc['outstanding_usd'])}."
    )
    if doc["unknown_outcome"]:
        unknown = counted(len(doc["unknown_outcome"]), "paid submission", "has", "have")
        text += f" {unknown} an unknown outcome."
    return text


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


def price_text(doc: dict[str, Any]) -> str:
    verdict = "within the payment policy" if doc["within_policy"] else "refused by the policy"
    text = f"{usd(doc.get('amount_usd'))} by {doc['rail']}, {verdict}"
    return text + (f": {doc['refusal']}." if doc.get("refusal") else ".")
