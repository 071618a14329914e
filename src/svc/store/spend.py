"""The spend report: what the ledger says was paid, by day, task and rail, with refunds.

It sits beside the ledger it reads (issue 17.2): `svc spend` and the MCP `spend` tool draw the
same document. Amounts are USD strings with 6 decimals (exact); people-facing formatting is
`svc.ui.words`'s job.
"""

from __future__ import annotations

import time
from collections import defaultdict
from datetime import datetime
from typing import TYPE_CHECKING, Any

from svc.money import atomic_to_usd
from svc.numbers import iso
from svc.store.ledger import (
    ACCEPTED,
    AWAITING_CARD,
    REFUNDED,
    UNKNOWN,
    Authorization,
    Submission,
    cap_day_start,
)

if TYPE_CHECKING:
    from svc.store.ledger import LedgerStore


def _usd(atomic: int) -> str:
    return str(atomic_to_usd(atomic))


def _day(row: Submission) -> str:
    return datetime.fromtimestamp(row.created_at).strftime("%Y-%m-%d")


def day_start(since: str | None) -> float:
    """Local midnight of a `YYYY-MM-DD` day (0 for no day); ValueError if it is not one."""
    return datetime.strptime(since, "%Y-%m-%d").timestamp() if since else 0.0


def load_spend(
    ledger: LedgerStore | None,
    since: str | None,
    runner: str | None = None,
    cap_atomic: int | None = None,
) -> dict[str, Any]:
    """The report from a ledger (None: this machine has none yet, so nothing was paid);
    `runner` keeps one runner's share of a shared ledger; the cap section says what today's
    exposure is against `cap_atomic` and which runner holds it."""
    if ledger is None:
        return {**spend_report([], since, []), "cap": cap_section([], cap_atomic)}
    midnight, start = cap_day_start(), day_start(since)
    read = ledger.authorizations(since=min(start, midnight))  # one read serves both
    auths = [a for a in read if a.signed_at >= start]
    today = [a for a in read if a.signed_at >= midnight]
    rows = ledger.submissions()
    if runner is not None:
        rows = [r for r in rows if r.runner == runner]
        auths = [a for a in auths if a.runner == runner]
    return {**spend_report(rows, since, auths), "cap": cap_section(today, cap_atomic)}


def cap_section(today: list[Authorization], cap_atomic: int | None) -> dict[str, Any]:
    """Today's exposure (every runner's, whatever `--runner` says) against the daily cap,
    and who holds it: the same sum the cap is checked against before a signature."""
    now = time.time()
    held: dict[str, int] = defaultdict(int)
    for a in today:
        if a.status == "spent" or a.exposed(now):
            held[a.runner or "-"] += a.amount_atomic - (a.refunded_atomic or 0)
    exposed = sum(held.values())
    return {
        "daily_cap_usd": None if cap_atomic is None else _usd(cap_atomic),
        "exposed_today_usd": _usd(exposed),
        "left_today_usd": None if cap_atomic is None else _usd(max(0, cap_atomic - exposed)),
        "by_runner": {name: _usd(amount) for name, amount in sorted(held.items())},
    }


def outstanding(auths: list[Authorization], now: float) -> list[dict[str, Any]]:
    """Signed (or held) authorizations not known spent, not void, not expired: money that may
    still leave, whatever the server said about them."""
    return [
        {
            "request_id": a.request_id,
            "rail": a.rail,
            "amount_usd": _usd(a.amount_atomic),
            "status": a.status,
            "origin": a.origin,
            "pay_to": a.pay_to,
            "network": a.network,
            "signed_at": iso(a.signed_at),
            "valid_until": iso(a.valid_before),
            "runner": a.runner,
        }
        for a in auths
        if a.exposed(now)
    ]


def charged_rows(rows: list[Submission]) -> list[Submission]:
    """Submissions whose money left: accepted with a proof, or refunded."""
    return [
        r
        for r in rows
        if r.status in (ACCEPTED, REFUNDED)
        and r.amount_atomic
        and r.method
        and (r.has_proof or r.status == REFUNDED)
    ]


def spend_report(
    rows: list[Submission],
    since: str | None = None,
    auths: list[Authorization] | None = None,
    now: float | None = None,
) -> dict[str, Any]:
    """The report as one JSON document; amounts are USD strings with 6 decimals."""
    if since:
        rows = [r for r in rows if _day(r) >= since]
    charged = charged_rows(rows)
    at = time.time() if now is None else now
    exposed = [a for a in auths or [] if a.exposed(at)]
    paid = sum(r.amount_atomic or 0 for r in charged)
    refunded = sum(r.refunded_atomic or 0 for r in charged)
    by_day, by_rail = _sums(charged)
    return {
        "total_usd": _usd(paid - refunded),
        "paid_usd": _usd(paid),
        "refunded_usd": _usd(refunded),
        "paid_count": len(charged),
        "refund_count": sum(1 for r in charged if r.refunded_atomic),
        "by_day": {d: _summary(v) for d, v in sorted(by_day.items())},
        "by_rail": {m: _summary(v) for m, v in sorted(by_rail.items())},
        "by_method": {m: _usd(v[0] - v[1]) for m, v in sorted(by_rail.items())},
        "tasks": [_task_line(r) for r in charged],
        "outstanding_usd": _usd(sum(a.amount_atomic for a in exposed)),
        "outstanding": outstanding(exposed, at),
        "unknown_outcome": [r.request_id for r in rows if r.status == UNKNOWN],
        "awaiting_card": [r.request_id for r in rows if r.status == AWAITING_CARD],
    }


def _sums(charged: list[Submission]) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """[paid, refunded] in µUSD per day and per rail."""
    by_day: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_rail: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in charged:
        amount, refunded = r.amount_atomic or 0, r.refunded_atomic or 0
        for key, table in ((_day(r), by_day), (r.method or "?", by_rail)):
            table[key][0] += amount
            table[key][1] += refunded
    return by_day, by_rail


def _summary(pair: list[int]) -> dict[str, str]:
    return {
        "paid_usd": _usd(pair[0]),
        "refunded_usd": _usd(pair[1]),
        "net_usd": _usd(pair[0] - pair[1]),
    }


def _task_line(r: Submission) -> dict[str, Any]:
    return {
        "day": _day(r),
        "request_id": r.request_id,
        "task_id": r.task_id,
        "rail": r.method,
        "method": r.method,
        "amount_usd": _usd(r.amount_atomic or 0),
        "refunded_usd": _usd(r.refunded_atomic or 0),
        "pay_to": r.pay_to,
        "payer": r.payer,
        "billing": r.billing,
        "usage_error": r.usage_error,
        "runner": r.runner,
    }
