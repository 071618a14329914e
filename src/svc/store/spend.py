"""The spend report: what the ledger says was paid over a window, by day, rail and runner, with
refunds.

It sits beside the ledger it reads: `svc spend` and the MCP `spend` tool draw the
same document. The sums come from the engine (`LedgerStore.spend_sums`) and the rows only of
the window, so the report costs what it shows, not the ledger's age. Amounts are
USD strings with 6 decimals (exact); people-facing formatting is `svc.words`'s job.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from svc.money import atomic_to_usd
from svc.numbers import iso
from svc.store.ledger import (
    AWAITING_CARD,
    EVERYONE,
    UNKNOWN,
    Authorization,
    Submission,
    Whose,
    cap_day_start,
)

if TYPE_CHECKING:
    from svc.store.ledger import LedgerStore
    from svc.store.ledger.books import SpendGroup

DEFAULT_DAYS = 30  # `svc spend` without --since or --all: today and the 29 days before


def _usd(atomic: int) -> str:
    return str(atomic_to_usd(atomic))


def day_of(stamp: float) -> str:
    """The local day (YYYY-MM-DD) of a time: the day `svc spend` files it under."""
    return datetime.fromtimestamp(stamp).strftime("%Y-%m-%d")


def _day(row: Submission) -> str:
    return day_of(row.created_at)


def day_start(since: str | None) -> float:
    """Local midnight of a `YYYY-MM-DD` day (0 for no day); ValueError if it is not one."""
    return datetime.strptime(since, "%Y-%m-%d").timestamp() if since else 0.0


def _midnight(day: date) -> float:
    return datetime.combine(day, datetime.min.time()).timestamp()


@dataclass(frozen=True)
class Window:
    """The days a report covers: [start, end) in epoch seconds, from local midnights."""

    since: str | None = None  # the first day (YYYY-MM-DD); None: the whole history
    until: str | None = None  # the last day, included; None: up to now

    @property
    def start(self) -> float:
        return day_start(self.since)

    @property
    def end(self) -> float | None:
        if self.until is None:
            return None
        return _midnight(datetime.strptime(self.until, "%Y-%m-%d").date() + timedelta(days=1))

    def public(self) -> dict[str, Any]:
        return {"since": self.since, "until": self.until, "whole_history": self.since is None}


class BadDay(ValueError):
    """A day that is not `YYYY-MM-DD`, or a window that ends before it starts."""

    def __init__(self, which: str, value: str | None) -> None:
        super().__init__(which)
        self.which: str = which
        self.value: str | None = value


def window(
    since: str | None, until: str | None, *, whole: bool = False, today: date | None = None
) -> Window:
    """The window asked for: from `since` (default: the last DEFAULT_DAYS days, or with
    `whole` the whole history) to `until` (default: now). BadDay names what is wrong."""
    since, until = _iso_day("since", since), _iso_day("until", until)
    if since is None and not whole:
        first = (today or date.today()) - timedelta(days=DEFAULT_DAYS - 1)
        since = first.isoformat()
    if since and until and until < since:
        raise BadDay("order", until)
    return Window(since, until)


def _iso_day(which: str, value: str | None) -> str | None:
    """`2026-11-1` as `2026-11-01` (days compare as text), or BadDay."""
    if value is None:
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%d").date().isoformat()
    except ValueError:
        raise BadDay(which, value) from None


def load_spend(
    ledger: LedgerStore | None,
    span: Window | None,
    whose: Whose = EVERYONE,
    cap_atomic: int | None = None,
    *,
    with_tasks: bool = True,
) -> dict[str, Any]:
    """The report of a window (None: the whole history) from a ledger (None: this machine has
    none yet, so nothing was paid); `whose` keeps one runner's, profile's or wallet's share;
    the cap section says today's exposure against `cap_atomic` and which runner holds it,
    whoever's share is shown (the cap is one). The per-task list is read only `with_tasks`
    (a terminal's summary does without it)."""
    span = span or Window()
    if ledger is None:
        return {**spend_report([], window=span), "cap": cap_section([], cap_atomic)}
    start, end = span.start, span.end
    groups = ledger.spend_sums(start, end, whose)
    rows = ledger.charges(start, end, whose) if with_tasks else []
    exposed = [
        a
        for a in ledger.exposed_authorizations(start)
        if (end is None or a.signed_at < end) and _held_by(ledger, a, whose)
    ]
    today = ledger.authorizations(since=cap_day_start())
    report = spend_report(groups, rows, exposed, ledger.open_items(whose), window=span)
    return {**report, "cap": cap_section(today, cap_atomic)}


def _held_by(ledger: LedgerStore, auth: Authorization, whose: Whose) -> bool:
    """An outstanding authorization is `whose`: its runner and profile are on it; the wallet
    that signed it is on its submission (a handful of rows: the outstanding ones)."""
    if whose.runner is not None and auth.runner != whose.runner:
        return False
    if whose.profile is not None and auth.profile != whose.profile:
        return False
    if whose.wallet is None:
        return True
    row = ledger.get(auth.request_id)
    return row is not None and (row.payer or "").lower() == whose.wallet.lower()


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
        **signed_not_charged(today, now),
    }


def unpaid_exposure(auths: Iterable[Authorization], now: float) -> tuple[int, float | None]:
    """What of the exposure was signed but is not known charged (refused by the server, or
    its answer not in yet), in µUSD, and the last expiry: it counts against the cap until
    then, since whoever holds a signed authorization could still settle it (None: one of
    them has no expiry, and counts until it is known spent or void)."""
    pending = [a for a in auths if a.status != "spent" and a.exposed(now)]
    ends = [a.valid_before for a in pending]
    last = None if not pending or None in ends else max(e for e in ends if e is not None)
    return sum(a.amount_atomic for a in pending), last


def signed_not_charged(auths: Iterable[Authorization], now: float) -> dict[str, Any]:
    """`unpaid_exposure` as the JSON of `svc spend`'s cap and `svc budget` say it."""
    amount, last = unpaid_exposure(auths, now)
    return {
        "signed_not_charged_usd": _usd(amount),
        "signed_not_charged_until": None if last is None else iso(last),
    }


def outstanding(auths: Iterable[Authorization], now: float) -> list[dict[str, Any]]:
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


def spend_report(
    groups: list[SpendGroup],
    rows: list[Submission] | None = None,
    auths: Iterable[Authorization] = (),
    open_rows: Iterable[Submission] = (),
    *,
    window: Window | None = None,
    now: float | None = None,
) -> dict[str, Any]:
    """The report as one JSON document; amounts are USD strings with 6 decimals."""
    at = time.time() if now is None else now
    exposed = [a for a in auths if a.exposed(at)]
    open_rows = list(open_rows)
    paid = sum(g.paid_atomic for g in groups)
    refunded = sum(g.refunded_atomic for g in groups)
    by_day, by_rail, by_runner = _sums(groups)
    return {
        "window": (window or Window()).public(),
        "total_usd": _usd(paid - refunded),
        "paid_usd": _usd(paid),
        "refunded_usd": _usd(refunded),
        "paid_count": sum(g.charges for g in groups),
        "refund_count": sum(g.refunds for g in groups),
        "by_day": {d: _summary(v) for d, v in sorted(by_day.items())},
        "by_rail": {m: _summary(v) for m, v in sorted(by_rail.items())},
        "by_method": {m: _usd(v[0] - v[1]) for m, v in sorted(by_rail.items())},
        "by_runner": {m: _summary(v) for m, v in sorted(by_runner.items())},
        "tasks": [_task_line(r) for r in rows or []],
        "outstanding_usd": _usd(sum(a.amount_atomic for a in exposed)),
        "outstanding": outstanding(exposed, at),
        "unknown_outcome": [r.request_id for r in open_rows if r.status == UNKNOWN],
        "awaiting_card": [r.request_id for r in open_rows if r.status == AWAITING_CARD],
    }


Sums = dict[str, list[int]]


def _sums(groups: list[SpendGroup]) -> tuple[Sums, Sums, Sums]:
    """[paid, refunded] in µUSD per local day, per rail and per runner."""
    by_day: Sums = defaultdict(lambda: [0, 0])
    by_rail: Sums = defaultdict(lambda: [0, 0])
    by_runner: Sums = defaultdict(lambda: [0, 0])
    for g in groups:
        keys = ((day_of(g.starts_at), by_day), (g.rail, by_rail), (g.runner or "-", by_runner))
        for key, table in keys:
            table[key][0] += g.paid_atomic
            table[key][1] += g.refunded_atomic
    return by_day, by_rail, by_runner


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
