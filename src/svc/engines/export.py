"""`svc spend --format csv|beancount|ledger|json`: the window's charges and refunds as entries
an accountant's tools read, one per charge and one per refund.

A refund belongs to its charge's window (the window selects charges by when they were made),
so every export's total is `svc spend`'s total for the same window. Amounts are µUSD integers
here and exact decimal strings in the files (svc/money.py formats them).

Entries are in the order of their dates (a refund after the charges made before it), as
`hledger check ordereddates` wants a journal; the service paid (its origin) is each entry's
payee, and the profile that paid comes from the request's authorization.
"""

from __future__ import annotations

from svc.context import AppContext
from svc.engines.export_entry import Entry
from svc.engines.export_formats import WRITERS
from svc.engines.settlement import payment_id, settlement_reference
from svc.origin import origin_of
from svc.store.ledger import EVERYONE, LedgerStore, Submission, Whose
from svc.store.spend import Window

FORMATS = ("csv", "beancount", "ledger", "json")


def entries(app: AppContext, span: Window, whose: Whose = EVERYONE) -> list[Entry]:
    """The window's charges and refunds (`whose`: one runner's, profile's or wallet's) in
    date order; none without a ledger."""
    ledger = app.ledger_to_read()
    rows = [] if ledger is None else ledger.charges(span.start, span.end, whose)
    out: list[Entry] = []
    for row in reversed(rows):  # charges() is newest first
        profile = None if ledger is None else _profile(ledger, row)
        out.append(_entry(row, "charge", row.created_at, row.amount_atomic or 0, profile))
        if row.refunded_atomic:
            refunded_at = max(row.updated_at, row.created_at)
            out.append(_entry(row, "refund", refunded_at, -row.refunded_atomic, profile))
    return sorted(out, key=lambda e: e.at)  # stable: a charge stays before its refund


def _profile(ledger: LedgerStore, row: Submission) -> str | None:
    """The profile that paid: the submission rows do not say it, its authorizations do (one
    indexed read per row, so the export still costs what the window holds)."""
    named = [a.profile for a in ledger.authorizations_of(row.request_id) if a.profile]
    return named[-1] if named else None


def _entry(row: Submission, kind: str, at: float, amount: int, profile: str | None) -> Entry:
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
        origin=_origin(row),
        profile=profile,
    )


def _origin(row: Submission) -> str | None:
    """The service's origin (rows journaled before the origin column: their base URL's)."""
    where = row.origin or row.base_url
    return origin_of(where) if where else None


def export(app: AppContext, fmt: str, span: Window, whose: Whose = EVERYONE) -> str:
    """The window in one of FORMATS, as the text of a file."""
    return WRITERS[fmt](entries(app, span, whose), span)
