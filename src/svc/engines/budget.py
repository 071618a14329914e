"""Budgets as data: each budget with what it has used, what is left and when it
resets, the breaker's and the rate's standing; setting, removing and the breaker's reset.

`svc budget`, `svc spend`, `svc doctor`, `svc mcp` and `Client.budgets()` read `report`; the
words of a refusal and of a warning are `svc.pay.budget`'s.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from svc.context import AppContext
from svc.errors import UsageError
from svc.money import atomic_for_people as usd_words
from svc.money import atomic_to_usd as _decimal
from svc.money import parse_usd, usd_to_atomic
from svc.numbers import iso
from svc.pay.budget import described, usd_atomic, when, window_words
from svc.store.ledger import cap_day_start
from svc.store.ledger.budgets import (
    CALENDAR,
    Budget,
    readable,
    valid_window,
    window_end,
    window_start,
)
from svc.store.spend import signed_not_charged

WINDOW_HINT = "day, week (Monday to Sunday), month, or rolling:24h / rolling:7d (1-9999 h or d)"


@dataclass(frozen=True)
class Target:
    """Which scope a `svc budget set|unset` names."""

    scope: str
    name: str


def fleet_target(app: AppContext) -> Target:
    """The whole fleet's scope: only in a shared ledger."""
    if not app.settings.ledger_url:
        raise UsageError(
            "a fleet budget lives in the fleet's shared ledger, and ledger_url is not set",
            hint="set ledger_url (or SVC_LEDGER_URL) to the fleet's postgresql:// URL, or "
            "set this profile's budget",
        )
    return Target("fleet", "")


def profile_target(app: AppContext) -> Target:
    return Target("profile", app.settings.profile)


def checked_window(window: str) -> str:
    name = window.strip().lower()
    if not valid_window(name):
        raise UsageError(f"{window[:40]!r} is not a budget window", hint=WINDOW_HINT)
    return name


def set_budget(app: AppContext, amount: str, per: str, where: Target) -> dict[str, Any]:
    limit = usd_atomic(amount)
    if limit <= 0:
        raise UsageError("a budget must be more than 0.00 USD (svc budget unset removes one)")
    budget = Budget(where.scope, where.name, checked_window(per), limit)
    app.ledger.set_budget(budget)
    now = time.time()
    doc = entry(app, budget, now)
    used = usd_to_atomic(parse_usd(doc["used_usd"], "used_usd"))
    # Set all the same (the limit is the person's call), but a window that has already used
    # it up refuses every payment in the budget's scope from now on: say so, and until when.
    doc["already_exceeded"] = used > limit
    doc["warning"] = _already_used(budget, used, now) if used >= limit else None
    return doc


def _already_used(budget: Budget, used: int, now: float) -> str:
    """`this budget is already exceeded: 4.50 USD used of 3.00 USD this week; payments in its
    scope are refused until Mon 2026-11-30 00:00`."""
    state = "exceeded" if used > budget.limit_atomic else "used up"
    end = window_end(budget.window, now)  # None: a rolling window eases as payments age out
    until = "until enough of them age out" if end is None else f"until {when(end)}"
    return (
        f"this budget is already {state}: {usd_words(used)} used of "
        f"{usd_words(budget.limit_atomic)} {_this_window(budget.window)}; payments in its "
        f"scope are refused {until}"
    )


def _this_window(window: str) -> str:
    """`this week`, `today`, `in the last 24h`: the window whose payments were counted."""
    named = {"day": "today", "week": "this week", "month": "this month"}
    return named.get(window) or f"in the last {window.removeprefix('rolling:')}"


def unset_budget(app: AppContext, per: str | None, where: Target) -> int:
    window = None if per is None else checked_window(per)
    gone = app.ledger.unset_budget(where.scope, where.name, window)
    if not gone:
        which = f"{window} budget" if window else "budget"
        raise UsageError(f"{_scope_words(where)} has no {which}")
    return gone


def _scope_words(where: Target) -> str:
    return "the fleet" if where.scope == "fleet" else f"{where.scope} {where.name}"


def reset_breaker(app: AppContext, runner: str | None) -> str:
    name = runner or app.ledger.runner or ""
    app.ledger.reset_breaker(name)
    return name


def report(app: AppContext) -> dict[str, Any]:
    """Every stored budget (those that bind this process first), the breaker and the rate."""
    now = time.time()
    ledger = app.ledger_to_read()
    stored = ledger.budgets() if ledger is not None else []
    entries = [
        entry(app, budget, now) if readable(budget) else unreadable(budget) for budget in stored
    ]
    entries.sort(key=lambda e: (not e["applies"], e["scope"], e["name"], e["per"]))
    runner = ledger.runner if ledger is not None else None
    today = ledger.authorizations(since=cap_day_start()) if ledger is not None else []
    tripped = None
    if ledger is not None and runner:
        tripped = ledger.breaker_state(runner, app.settings.breaker_after, now)
    return {
        "budgets": entries,
        "breaker": {
            "runner": runner,
            "after": app.settings.breaker_after,
            "open": tripped is not None,
            "closes_at": iso(tripped.resets_at) if tripped and tripped.resets_at else None,
        },
        "max_paid_per_hour": app.settings.max_paid_per_hour,
        "warn_percent": app.settings.budget_warn_percent,
        "session_budget_usd": _usd_or_none(app.settings.session_budget_usd),
        **signed_not_charged(today, now),
    }


def entry(app: AppContext, budget: Budget, now: float) -> dict[str, Any]:
    """One budget as data: its limit, used and left (exact 6-decimal strings), when it resets."""
    used = app.ledger.budget_used(budget, now)
    left = max(budget.limit_atomic - used, 0)
    percent = used * 100 // budget.limit_atomic if budget.limit_atomic else 100
    resets = window_end(budget.window, now)
    return {
        "scope": budget.scope,
        "name": budget.name,
        "per": budget.window,
        "what": described(budget),
        "window": window_words(budget.window),
        "limit_usd": atomic_to_usd(budget.limit_atomic),
        "used_usd": atomic_to_usd(used),
        "left_usd": atomic_to_usd(left),
        "percent": percent,
        "since": iso(window_start(budget.window, now)),
        "resets_at": iso(resets) if resets is not None else None,
        "rolling": budget.window not in CALENDAR,
        "applies": _applies(app, budget),
        "warn": percent >= app.settings.budget_warn_percent,
    }


def unreadable(budget: Budget) -> dict[str, Any]:
    """A budget this svc cannot read (a newer svc's scope or window): shown, and it refuses
    every payment until it is removed or svc is upgraded."""
    return {
        "scope": budget.scope,
        "name": budget.name,
        "per": budget.window,
        "what": "a budget this svc cannot read",
        "window": budget.window,
        "limit_usd": atomic_to_usd(max(budget.limit_atomic, 0)),
        "used_usd": atomic_to_usd(0),
        "left_usd": atomic_to_usd(0),
        "percent": 100,
        "since": None,
        "resets_at": None,
        "rolling": False,
        "applies": True,
        "warn": True,
        "unreadable": True,
    }


def _applies(app: AppContext, budget: Budget) -> bool:
    """The budget binds this process's payments (its profile, its runner, the fleet)."""
    if budget.scope == "fleet":
        return True
    if budget.scope == "profile":
        return budget.name == app.settings.profile
    return budget.scope == "runner" and budget.name == app.ledger.runner


def atomic_to_usd(atomic: int) -> str:
    return format(_decimal(atomic), "f")  # 0.000000, never 0E-6


def _usd_or_none(amount: object) -> str | None:
    return None if amount is None else atomic_to_usd(usd_atomic(amount))


def near_their_end(app: AppContext) -> list[dict[str, Any]]:
    """The budgets binding this process at or past the warning share (doctor, spend, mcp)."""
    return [e for e in report(app)["budgets"] if e["applies"] and e["warn"]]
