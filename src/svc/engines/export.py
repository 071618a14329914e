"""`svc spend --format csv|beancount|ledger|json`: the window's charges and refunds as entries
an accountant's tools read, one per charge and one per refund.

A refund belongs to its charge's window (the window selects charges by when they were made),
so every export's total is `svc spend`'s total for the same window. Amounts are µUSD integers
here and exact decimal strings in the files (svc/money.py formats them).
"""

from __future__ import annotations

from dataclasses import dataclass

from svc.context import AppContext
from svc.engines.settlement import payment_id, settlement_reference
from svc.store.ledger import Submission
from svc.store.spend import Window, day_of

FORMATS = ("csv", "beancount", "ledger", "json")


@dataclass(frozen=True)
class Entry:
    """One charge (a positive amount) or refund (negative): what left, or came back."""

    kind: str  # "charge" | "refund"
    at: float
    rail: str
    amount_atomic: int
    request_id: str
    task_id: str | None
    reference: str | None  # the rail's settlement reference (svc.engines.settlement)
    payment_id: str | None
    runner: str | None
    payer: str | None
    recipient: str | None
    network: str | None
    asset: str | None
    task: str  # the task's text as journaled (outside text: each writer escapes it)

    @property
    def day(self) -> str:
        return day_of(self.at)


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
    from svc.engines.export_formats import WRITERS

    return WRITERS[fmt](entries(app, span, runner), span)
