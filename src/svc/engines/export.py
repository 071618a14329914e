"""`svc spend --format csv|beancount|ledger|json`: the window's charges and refunds as entries
an accountant's tools read, one per charge and one per refund.

A refund belongs to its charge's window (the window selects charges by when they were made),
so every export's total is `svc spend`'s total for the same window. Amounts are µUSD integers
here and exact decimal strings in the files (svc/money.py formats them).
"""

from __future__ import annotations

from svc.context import AppContext
from svc.engines.export_entry import Entry
from svc.engines.export_formats import WRITERS
from svc.engines.settlement import payment_id, settlement_reference
from svc.store.ledger import Submission
from svc.store.spend import Window

FORMATS = ("csv", "beancount", "ledger", "json")


def entries(app: AppContext, span: Window, runner: str | None = None) -> list[Entry]:
    """The window's charges and refunds, oldest first; none without a ledger."""
    ledger = app.ledger_to_read()
    rows = [] if ledger is None else ledger.charges(span.start, span.end, runner)
    out: list[Entry] = []
    for row in reversed(rows):  # charges() is newest first
        out.append(_entry(row, "charge", row.created_at, row.amount_atomic or 0))
        if row.refunded_atomic:
            refunded_at = max(row.updated_at, row.created_at)
            out.append(_entry(row, "refund", refunded_at, -row.refunded_atomic))
    return out


def _entry(row: Submission, kind: str, at: float, amount: int) -> Entry:
    return Entry(
        kind=kind,
        at=at,
        rail=row.method or "?",
        amount_atomic=amount,
        request_id=row.request_id,
        task_id=row.task_id,
        reference=settlement_reference(row),
        payment_id=payment_id(row),
        runner=row.runner,
        payer=row.payer,
        recipient=row.pay_to,
        network=row.network,
        asset=row.asset,
        task=row.task_preview,
    )


def export(app: AppContext, fmt: str, span: Window, runner: str | None = None) -> str:
    """The window in one of FORMATS, as the text of a file."""
    return WRITERS[fmt](entries(app, span, runner), span)
