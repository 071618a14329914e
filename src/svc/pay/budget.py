"""Budgets, the hourly rate and the breaker, as the policy's decision uses them.

The ledger checks them in the cap's serial transaction (`svc.store.ledger.budgets`) and
returns data; here is what a payment is held within (`limits_for`), and the words of a
refusal (`PolicyRefused`, exit 5, with its own code and a next step as data) and of a
warning. Exposure is the daily cap's: spent, or held/signed and neither void nor expired.

What counts as a failed paid request for the breaker: one whose proof the server refused or
proved void after it was signed (settlement failed, a `payment_*` code), one refunded (a
failed delivery), and one whose task ended `failed`. A request still in flight neither trips
nor resets it; one that succeeded ends the run of failures.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from datetime import datetime

from svc.errors import PolicyRefused
from svc.money import atomic_for_people as usd
from svc.money import usd_to_atomic
from svc.next_step import step
from svc.settings import Settings, usd_amount
from svc.store.ledger.budgets import (
    SESSION_WINDOW,
    Budget,
    BudgetWarning,
    LimitReached,
    Limits,
    Scope,
)
from svc.words import budget_standing


@dataclass
class PayingSession:
    """An svc mcp session: its payments carry its id, and `session_budget_usd` limits them
    over its life (warned once: `told` outlives each payment's Limits)."""

    id: str
    since: float
    told: set[tuple[str, str, str]] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)  # warnings for the next tool result

    def take_notes(self) -> list[str]:
        taken, self.notes[:] = list(self.notes), []
        return taken


def note_in_session(words: str) -> None:
    """A budget's warning, kept for the session's next tool result (an agent tells its
    person); nothing outside a session."""
    session = _SESSION.get()
    if session is not None:
        session.notes.append(words)


_SESSION: ContextVar[PayingSession | None] = ContextVar("svc_paying_session", default=None)


def paying_in(session: PayingSession | None) -> Token[PayingSession | None]:
    """Payments made in this context (and the threads it starts) belong to `session`."""
    return _SESSION.set(session)


def done_paying(token: Token[PayingSession | None]) -> None:
    _SESSION.reset(token)


def limits_for(settings: Settings, runner: str | None) -> Limits:
    """What this process's payments are held within: the stored budgets of its profile, its
    runner and the fleet (read in the hold's transaction), an MCP session's own budget, the
    hourly rate and the breaker of its runner."""
    session = _SESSION.get()
    extra: tuple[Budget, ...] = ()
    if session is not None and settings.session_budget_usd is not None:
        limit = usd_atomic(settings.session_budget_usd)
        extra = (Budget("session", session.id, SESSION_WINDOW, limit),)
    return Limits(
        Scope(
            settings.profile,
            runner,
            session.id if session else None,
            session.since if session else 0.0,
        ),
        extra=extra,
        max_per_hour=settings.max_paid_per_hour,
        breaker_after=settings.breaker_after,
        warn_percent=settings.budget_warn_percent,
        told=session.told if session else set(),
    )


def usd_atomic(amount: object) -> int:
    return usd_to_atomic(usd_amount("a budget", amount))


def described(budget: Budget) -> str:
    """`the weekly budget of profile default (3.00 USD)`."""
    return f"the {window_words(budget.window)} budget of {scope_words(budget)}"


def scope_words(budget: Budget) -> str:
    if budget.scope == "fleet":
        return "the fleet"
    if budget.scope == "session":
        return "this MCP session"
    return f"{budget.scope} {budget.name}"


def window_words(window: str) -> str:
    named = {"day": "daily", "week": "weekly (Monday to Sunday)", "month": "monthly"}
    if window in named:
        return named[window]
    if window == SESSION_WINDOW:
        return "session"
    return window.replace(":", " ")  # rolling 24h


def when(moment: float | None) -> str:
    """A reset time in the person's local time: `Mon 2026-11-30 00:00`."""
    if moment is None:
        return "as its payments age out"
    return datetime.fromtimestamp(moment).strftime("%a %Y-%m-%d %H:%M")


def refusal(reached: LimitReached, amount_atomic: int) -> PolicyRefused:
    """The words of a limit that refused a hold: nothing was signed or paid."""
    if reached.kind == "breaker":
        return PolicyRefused(
            f"refusing to pay: the last {reached.count} paid requests failed or were refunded, "
            f"so the breaker stopped paying until {when(reached.resets_at)}",
            code="breaker_open",
            next=step("reset_breaker", "nothing was signed or paid; once the cause is fixed, "),
        )
    if reached.kind == "rate":
        return PolicyRefused(
            f"refusing to pay: {reached.count} paid requests were started in the last hour, "
            f"the most max_paid_per_hour allows; the next may start at {when(reached.resets_at)}",
            code="rate_limited",
            next=step("see_budgets", "nothing was signed or paid; "),
        )
    budget = reached.budget
    assert budget is not None
    if reached.kind == "unreadable":
        return PolicyRefused(
            f"refusing to pay: the ledger holds a budget this svc cannot read (scope "
            f"{budget.scope[:40]!r}, window {budget.window[:40]!r}); a newer svc may have "
            "written it, and a money limit is never ignored",
            code="budget_unreadable",
            next=step("see_budgets", "nothing was signed or paid; upgrade svc, or "),
        )
    return PolicyRefused(
        f"refusing to pay: {usd(amount_atomic)} would exceed {described(budget)} of "
        f"{usd(budget.limit_atomic)} ({usd(reached.exposure_atomic)} spent or authorized in "
        f"this window); it resets {_at(budget, reached.resets_at)}",
        code="budget_exceeded",
        next=step("see_budgets", "nothing was signed or paid; "),
    )


def _at(budget: Budget, moment: float | None) -> str:
    if budget.window == SESSION_WINDOW:
        return "with a new session"
    return "as its payments age out" if moment is None else f"at {when(moment)}"


def warning_words(warning: BudgetWarning) -> str:
    budget = warning.budget
    share = warning.exposure_atomic * 100 // max(1, budget.limit_atomic)
    standing = budget_standing(warning.exposure_atomic, budget.limit_atomic)
    return (
        f"{described(budget)} is {share} % used, {standing}: {usd(warning.exposure_atomic)} "
        f"of {usd(budget.limit_atomic)}; it resets {_at(budget, warning.resets_at)}"
    )
