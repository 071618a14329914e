"""The daily cap's hold in one round trip, on an engine that can send a whole serial
transaction at once (the fleet ledger: `database.AtOnce`).

The fleet's runners queue on the cap's lock. Held across the six client round trips of the
checks in Python (the request's stale hold, the breaker's reads, the budgets, the hold), it
kept 7 to 10 of a fleet's 32 workers waiting at any moment. Here the common case is one
statement under the lock, sent with the lock and the commit as one script: the sums and the
hold are one `INSERT ... SELECT ... WHERE`, so the lock is held for the server's work alone.

The common case: no stored budget and no session budget. The check is then the cap, the
hourly rate and the breaker, each a condition of the one statement. When it holds nothing (a
budget exists, or a limit would refuse) the caller runs the full check in a serial
transaction, which finds the exact refusal or holds after all: the fast path decides nothing
but "held". SQLite runs the same statement first inside that serial transaction (its write
lock), where it replaces four (the day's sum, the breaker's and the budgets' reads, the
INSERT): 3 statements of a paid request fewer, one more only when a budget exists.
"""

from __future__ import annotations

from svc.store.ledger.budgets import HOUR, Limits, exposure_sql, outcomes_sql
from svc.store.ledger.database import Database, Statement, sends_at_once
from svc.store.ledger.fleet_settings import CapRule
from svc.store.ledger.rows import AuthState

# The hold's row, as literals a SELECT may give an INSERT (PostgreSQL reads an untyped NULL
# or number in a select list as text: the casts name the columns' kinds).
_HOLD = (
    "INSERT INTO authorizations (request_id, rail, amount_atomic, origin, signed_at,"
    " valid_before, status, updated_at, runner, profile, session)"
    " SELECT ?, ?, CAST(? AS BIGINT), ?, CAST(? AS DOUBLE PRECISION),"
    " CAST(? AS DOUBLE PRECISION), ?, CAST(? AS DOUBLE PRECISION), ?, ?, ?"
    " WHERE NOT EXISTS (SELECT 1 FROM budgets)"
)
# On a fleet: the cap's stored text is still the one this runner assumed (none stored: NULL).
_SAME_CAP = " AND (SELECT value FROM settings WHERE name = ?) IS NOT DISTINCT FROM ?"
# Paid requests this runner started in the last hour (the rate limit), as check_limits counts.
_STARTED = (
    "(SELECT COUNT(DISTINCT request_id) FROM authorizations WHERE runner = ?"
    " AND signed_at >= ? AND amount_atomic > 0 AND request_id <> ?)"
)


def hold_statement(
    request_id: str,
    *,
    row: tuple[str | float | int | None, ...],
    cap: CapRule,
    since: float,
    now: float,
    limits: Limits | None,
    bounded: bool,
) -> Statement | None:
    """The hold as one statement that writes it only when the cap, the rate and the breaker
    allow it and no budget applies (0 rows: the caller's full check decides, and words the
    refusal); None when one statement cannot decide (a session's budget). `row` is the hold's
    (rail, amount_atomic, origin, valid_before, runner, profile, session). On a fleet it also
    requires the fleet's stored cap to be the one `cap` last saw: the value obeyed is the one
    stored at the hold, read under the lock in the same statement. `bounded`: the breaker's
    read as the fleet ledger needs it (`budgets.outcomes_sql`)."""
    if limits is not None and limits.extra:
        return None
    rail, amount, origin, valid_before, runner, profile, session = row
    sql = _HOLD
    params: tuple[object, ...] = (
        request_id, rail, amount, origin, now, valid_before, AuthState.RESERVED, now, runner,
        profile, session,
    )  # fmt: skip
    if cap.fleet_key is not None:
        sql, params = sql + _SAME_CAP, (*params, cap.fleet_key, cap.seen)
    cap_atomic = cap.applied(cap.seen).atomic
    if cap_atomic is not None:
        exposure, values = exposure_sql(since, now)
        sql, params = f"{sql} AND {exposure} + ? <= ?", (*params, *values, amount, cap_atomic)
    payer = limits.scope.runner if limits is not None else None
    if limits is not None and payer and limits.max_per_hour:
        sql += f" AND {_STARTED} < ?"
        params = (*params, payer, now - HOUR, request_id, limits.max_per_hour)
    if limits is not None and payer and limits.breaker_after > 0:  # not all the last N failed
        outcomes, values = outcomes_sql(payer, now - HOUR, limits.breaker_after, bounded=bounded)
        sql += f" AND (SELECT COUNT(*) FROM ({outcomes}) o WHERE o.failed = 1) < ?"  # noqa: S608
        params = (*params, *values, limits.breaker_after)
    return sql, params


def held_at_once(db: Database, request_id: str, hold: Statement) -> bool | None:
    """On an engine that sends a whole serial transaction at once (`AtOnce`): the request's
    stale hold deleted, the cap's lock, `hold`, committed in one round trip; True when it
    held, False when the caller's full check must decide (one round trip more, only then),
    None when not tried (another engine, or inside a transaction): the caller runs `hold`
    inside its own serial transaction first."""
    if not sends_at_once(db):
        return None
    stale: Statement = (
        "DELETE FROM authorizations WHERE request_id = ? AND status = ?",
        (request_id, AuthState.RESERVED),
    )  # a dead run's hold of this request (the caller holds the request's lock)
    held = db.at_once([stale], [hold])
    return None if held is None else held == 1
