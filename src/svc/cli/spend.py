"""`svc spend`: what the ledger says was paid, by day, task and rail, with refunds."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

import typer

from svc.cli.app import current
from svc.store.ledger import ACCEPTED, AWAITING_CARD, REFUNDED, UNKNOWN, Authorization, Submission

app = typer.Typer(rich_markup_mode=None)


def _usd(atomic: int) -> str:
    from svc.money import atomic_to_usd

    return str(atomic_to_usd(atomic))


def _atomic(usd: str) -> int:
    from svc.money import usd_to_atomic

    return usd_to_atomic(usd)


def _day(row: Submission) -> str:
    return datetime.fromtimestamp(row.created_at).strftime("%Y-%m-%d")


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
            "signed_at": datetime.fromtimestamp(a.signed_at).isoformat(timespec="seconds"),
            "valid_until": (
                datetime.fromtimestamp(a.valid_before).isoformat(timespec="seconds")
                if a.valid_before is not None
                else None
            ),
        }
        for a in auths
        if a.exposed(now)
    ]


def spend_report(
    rows: list[Submission],
    since: str | None = None,
    auths: list[Authorization] | None = None,
    now: float | None = None,
) -> dict[str, Any]:
    """The report as one JSON document; amounts are USD strings with 6 decimals."""
    import time

    if since:
        rows = [r for r in rows if _day(r) >= since]
    charged = [r for r in rows if r.status in (ACCEPTED, REFUNDED) and r.amount_atomic and r.method]
    charged = [r for r in charged if r.has_proof or r.status == REFUNDED]
    pending = outstanding(auths or [], time.time() if now is None else now)
    unknown = [r for r in rows if r.status == UNKNOWN]
    waiting = [r for r in rows if r.status == AWAITING_CARD]
    by_day: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_rail: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in charged:
        amount, refunded = r.amount_atomic or 0, r.refunded_atomic or 0
        for key, table in ((_day(r), by_day), (r.method or "?", by_rail)):
            table[key][0] += amount
            table[key][1] += refunded
    paid = sum(r.amount_atomic or 0 for r in charged)
    refunded = sum(r.refunded_atomic or 0 for r in charged)

    def summary(pair: list[int]) -> dict[str, str]:
        return {
            "paid_usd": _usd(pair[0]),
            "refunded_usd": _usd(pair[1]),
            "net_usd": _usd(pair[0] - pair[1]),
        }

    return {
        "total_usd": _usd(paid - refunded),
        "paid_usd": _usd(paid),
        "refunded_usd": _usd(refunded),
        "paid_count": len(charged),
        "refund_count": sum(1 for r in charged if r.refunded_atomic),
        "by_day": {d: summary(v) for d, v in sorted(by_day.items())},
        "by_rail": {m: summary(v) for m, v in sorted(by_rail.items())},
        "by_method": {m: _usd(v[0] - v[1]) for m, v in sorted(by_rail.items())},
        "tasks": [
            {
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
            }
            for r in charged
        ],
        "outstanding_usd": _usd(sum(_atomic(o["amount_usd"]) for o in pending)),
        "outstanding": pending,
        "unknown_outcome": [r.request_id for r in unknown],
        "awaiting_card": [r.request_id for r in waiting],
    }


@app.command(
    help="Show what was paid, by day, task and rail, with refunds, from the local ledger.\n\n"
    "Counts accepted paid submissions and refunds the service reported (svc-billing). "
    "Outstanding authorizations (signed, not known spent, not void, not expired: money that "
    "may still leave, and that counts against the daily cap) are listed apart, as are "
    "submissions whose outcome is unknown and card payments waiting for a person. A table on a terminal, one JSON document when piped or with --json.\n\n"
    "\b\nExamples:\n"
    "  svc spend\n"
    "  svc spend --since 2026-11-01\n"
    "  svc spend --json | jq .by_rail"
)
def spend(
    since: str | None = typer.Option(
        None, "--since", metavar="YYYY-MM-DD", help="Only days from this one on."
    ),
) -> None:
    from svc.errors import UsageError

    if since is not None:
        try:
            datetime.strptime(since, "%Y-%m-%d")
        except ValueError:
            raise UsageError(f"--since must be a date like 2026-11-01, got {since!r}") from None
    app_ctx = current()
    ledger = app_ctx.ledger
    start = datetime.strptime(since, "%Y-%m-%d").timestamp() if since else 0.0
    doc = spend_report(ledger.submissions(), since, ledger.authorizations(since=start))
    from svc.ui import views

    app_ctx.output.show(doc, views.spend)  # ledger rows are outside text: ui cleans every cell
    if app_ctx.output.json_mode:
        return
    if doc["unknown_outcome"]:
        app_ctx.output.warn(
            f"{len(doc['unknown_outcome'])} paid submission(s) have an unknown outcome; "
            "see `svc tasks`"
        )
    if doc["awaiting_card"]:
        app_ctx.output.warn(
            f"{len(doc['awaiting_card'])} card payment(s) wait for a person; run `svc pay card`"
        )
