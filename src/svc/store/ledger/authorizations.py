"""The authorizations: every amount held or signed against the daily cap, and its standing.

Exposure is what may still leave the wallet: spent today, or signed (or held for signing)
and neither void nor expired. A hold is checked against the cap and written in one
transaction, so two processes can never both fit under it.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import NamedTuple

from svc.store.ledger.budgets import Limits, check_limits, exposure_sql
from svc.store.ledger.cap_hold import held_at_once, hold_statement
from svc.store.ledger.database import Database, Otherwise, Statement, Step, sends_at_once
from svc.store.ledger.fleet_settings import CapReached, CapRule
from svc.store.ledger.rows import EXPOSED, Authorization, AuthState

# A live authorization's row where no hold was (`authorize`): as values, for an engine that
# reads the hold's UPDATE row count first; as a SELECT that checks there is no hold, sent just
# before that UPDATE by an engine that sends the transaction whole (PostgreSQL reads an
# untyped NULL or number in a select list as text: the casts name the columns' kinds).
_LIVE = (
    "INSERT INTO authorizations (request_id, rail, amount_atomic, origin, signed_at,"
    " valid_before, fingerprint, pay_to, network, status, updated_at, runner)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_LIVE_UNLESS_HELD = (
    "INSERT INTO authorizations (request_id, rail, amount_atomic, origin, signed_at,"
    " valid_before, fingerprint, pay_to, network, status, updated_at, runner)"
    " SELECT ?, ?, CAST(? AS BIGINT), ?, CAST(? AS DOUBLE PRECISION),"
    " CAST(? AS DOUBLE PRECISION), ?, ?, ?, ?, CAST(? AS DOUBLE PRECISION), ?"
    " WHERE NOT EXISTS (SELECT 1 FROM authorizations WHERE request_id = ? AND status = ?)"
)


def cap_day_start() -> float:
    """When the daily cap's day began: local midnight. The journal's hold, `svc spend`'s cap
    section and `svc doctor` all count today's exposure from here."""
    return datetime.now().replace(hour=0, minute=0, second=0, microsecond=0).timestamp()


class LiveAuth(NamedTuple):
    """The columns of an authorization row known when a proof is signed."""

    request_id: str
    rail: str
    amount_atomic: int
    origin: str
    valid_before: float | None
    fingerprint: str


class Authorizations:
    def __init__(self, db: Database, runner: str | None = None) -> None:
        self.db = db
        self.runner = runner  # who holds what this process reserves and signs

    def since(self, since: float = 0.0) -> list[Authorization]:
        rows = self.db.execute(
            "SELECT * FROM authorizations WHERE signed_at >= ? ORDER BY signed_at", (since,)
        )
        return [Authorization(**dict(row)) for row in rows]

    def exposed_since(self, since: float) -> list[Authorization]:
        """Held, live or refused ones signed since `since` (the caller drops the expired):
        `svc spend`'s outstanding list, read without the spent ones of the window."""
        rows = self.db.execute(
            "SELECT * FROM authorizations WHERE signed_at >= ? AND status IN (?, ?, ?)"
            " ORDER BY signed_at",
            (since, *EXPOSED),
        )
        return [Authorization(**dict(row)) for row in rows]

    def of_request(self, request_id: str) -> list[Authorization]:
        """A request's authorizations, oldest first (a void one, then its successor)."""
        rows = self.db.execute(
            "SELECT * FROM authorizations WHERE request_id = ? ORDER BY id", (request_id,)
        )
        return [Authorization(**dict(row)) for row in rows]

    def exposure(self, since: float, now: float) -> int:
        """The daily cap's measure since `since`: the one subquery the budgets and the fleet's
        one-script hold sum with."""
        sql, params = exposure_sql(since, now)
        return int(self.db.execute(f"SELECT {sql}", params).fetchone()[0])

    def reserve(
        self,
        request_id: str,
        *,
        rail: str,
        amount_atomic: int,
        origin: str,
        valid_before: float | None,
        cap_atomic: int | None = None,
        since: float,
        limits: Limits | None = None,
        cap: CapRule | None = None,
    ) -> int | None:
        """Hold `amount_atomic` against the cap, and within `limits` (budgets, rate, breaker:
        LimitReached), before signing; None when held, else the exposure already there. Check
        and hold are one transaction across processes.

        `cap` (a rule, read at the hold: the fleet's value as stored now) replaces the fixed
        `cap_atomic`; its refusal raises CapReached, naming the value applied."""
        rule = cap if cap is not None else CapRule.fixed(cap_atomic)
        now = time.time()
        scope = limits.scope if limits is not None else None
        row = (rail, amount_atomic, origin, valid_before, self.runner,
               scope.profile if scope else None, scope.session if scope else None)  # fmt: skip
        at_once = sends_at_once(self.db)
        hold = hold_statement(
            request_id, row=row, cap=rule, since=since, now=now, limits=limits, bounded=at_once
        )
        held = None if hold is None else held_at_once(self.db, request_id, hold)  # one trip
        if held:
            return None
        with self.db.write(serial=True):  # across every process (and runner) on this store
            self.release(request_id)  # a dead run's hold (the caller holds the request's lock)
            if held is None and hold is not None and self.db.execute(*hold).rowcount == 1:
                return None  # the common case in one statement, under the serial lock
            applied = rule.current(self.db)  # under the cap's lock: no stale value pays
            if applied.atomic is not None:  # the sum reads every row of the day: only with a cap
                exposure = self.exposure(since, now)
                if exposure + amount_atomic > applied.atomic:
                    if cap is None:
                        return exposure
                    raise CapReached(exposure, applied)
            if limits is not None:
                check_limits(self.db, limits, request_id, amount_atomic, now)
            self._insert_hold(request_id, row, now)
        return None

    def _insert_hold(self, request_id: str, row: tuple[object, ...], now: float) -> None:
        """The reserved row: `row` is (rail, amount, origin, valid_before, runner, profile,
        session), as the one-script hold writes it."""
        rail, amount_atomic, origin, valid_before, runner, profile, session = row
        self.db.execute(
            "INSERT INTO authorizations (request_id, rail, amount_atomic, origin, signed_at,"
            " valid_before, status, updated_at, runner, profile, session)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (request_id, rail, amount_atomic, origin, now, valid_before, AuthState.RESERVED,
             now, runner, profile, session),
        )  # fmt: skip

    def authorize(self, auth: LiveAuth, *, pay_to: str, network: str) -> list[Step]:
        """The steps that turn the request's hold into a live authorization (or add one, for
        a ledger older than holds), for the caller's transaction (`Database.transaction`)."""
        now = time.time()
        held: Statement = (
            "UPDATE authorizations SET status = ?, fingerprint = ?, pay_to = ?, network = ?,"
            " valid_before = COALESCE(?, valid_before), updated_at = ?"
            " WHERE id = (SELECT MAX(id) FROM authorizations WHERE request_id = ?"
            " AND status = ?)",
            (AuthState.LIVE, auth.fingerprint, pay_to, network, auth.valid_before, now,
             auth.request_id, AuthState.RESERVED),
        )  # fmt: skip
        values = (auth.request_id, auth.rail, auth.amount_atomic, auth.origin, now,
                  auth.valid_before, auth.fingerprint, pay_to, network, AuthState.LIVE, now,
                  self.runner)  # fmt: skip
        added: Statement = (_LIVE, values)
        unless_held: Statement = (_LIVE_UNLESS_HELD, (*values, auth.request_id, AuthState.RESERVED))
        return [held, Otherwise(added, unless_held)]

    def release(self, request_id: str) -> None:
        self.db.execute(
            "DELETE FROM authorizations WHERE request_id = ? AND status = ?",
            (request_id, AuthState.RESERVED),
        )

    def set_status(self, request_id: str, status: AuthState, *, among: tuple[str, ...]) -> None:
        self.db.execute(*self.status(request_id, status, among=among))

    def status(self, request_id: str, status: AuthState, *, among: tuple[str, ...]) -> Statement:
        """`set_status`'s statement, for a transaction sent whole."""
        marks = ", ".join("?" for _ in among)
        return (
            f"UPDATE authorizations SET status = ?, updated_at = ?"  # noqa: S608 - marks only
            f" WHERE request_id = ? AND status IN ({marks})",
            (status, time.time(), request_id, *among),
        )

    def refunded(self, request_id: str, refunded_atomic: int | None) -> Statement:
        """Accounted as paid, less what came back: the statement, for the caller's
        transaction."""
        return (
            "UPDATE authorizations SET status = ?, refunded_atomic = ?, updated_at = ?"
            " WHERE request_id = ? AND status IN (?, ?, ?)",
            (AuthState.SPENT, refunded_atomic or 0, time.time(), request_id, *EXPOSED),
        )
