"""Budgets, the paid-request rate and the breaker, checked in the cap's serial transaction.

A budget is a limit on exposure (the daily cap's measure: spent, or held/signed and neither
void nor expired, less refunds) over a window, for a scope: the whole fleet, a profile, a
runner or an MCP session. They live in the `budgets` table, so every runner of a shared
ledger obeys the same ones. `Limits.check` runs inside `Authorizations.reserve`'s serial
transaction: the sums, the refusal and the hold are one step, so two processes never both fit.

The words a person reads are `svc.pay.budget`'s; this module returns data (`LimitReached`,
`BudgetWarning`) and knows SQL and calendars only.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from svc.store.ledger.database import Database, sends_at_once
from svc.store.ledger.rows import EXPOSED, AuthState

SCOPES = ("fleet", "profile", "runner", "session")
CALENDAR = ("day", "week", "month")
SESSION_WINDOW = "session"  # an MCP session's budget: the session's whole life
_ROLLING = re.compile(r"rolling:([1-9][0-9]{0,3})([hd])", re.ASCII)
HOUR = 3600.0  # the rate limit's and the breaker's window: the last hour
# The column each scope filters authorizations on (fleet: none, every row counts).
_COLUMN = {"profile": "profile", "runner": "runner", "session": "session"}


@dataclass(frozen=True)
class Budget:
    scope: str  # one of SCOPES
    name: str  # the profile, runner or session it limits ("" for the fleet)
    window: str  # day, week, month, rolling:24h, rolling:7d (session: the session's life)
    limit_atomic: int
    warned_start: float | None = None  # the window a warning was given in (once per window)


@dataclass(frozen=True)
class Scope:
    """Who pays: the names the rows are written with and the budgets are matched on."""

    profile: str | None
    runner: str | None
    session: str | None = None
    session_since: float = 0.0

    def name_of(self, scope: str) -> str | None:
        return {"fleet": "", "profile": self.profile, "runner": self.runner}.get(
            scope, self.session
        )


@dataclass(frozen=True)
class BudgetWarning:
    budget: Budget
    exposure_atomic: int  # with the amount being held
    resets_at: float | None


class LimitReached(Exception):
    """A limit refuses the hold: which (`kind`: budget, rate, breaker), how full, when it eases."""

    def __init__(
        self,
        kind: str,
        *,
        budget: Budget | None = None,
        exposure_atomic: int = 0,
        count: int = 0,
        resets_at: float | None = None,
    ) -> None:
        super().__init__(kind)
        self.kind: str = kind
        self.budget: Budget | None = budget
        self.exposure_atomic: int = exposure_atomic
        self.count: int = count
        self.resets_at: float | None = resets_at


@dataclass
class Limits:
    """What one payment must fit: the stored budgets of its scope, `extra` ones (an MCP
    session's, from settings), the hourly rate and the breaker. Warnings land in `warnings`."""

    scope: Scope
    extra: tuple[Budget, ...] = ()
    max_per_hour: int | None = None
    breaker_after: int = 0  # 0: no breaker
    warn_percent: int = 80
    warnings: list[BudgetWarning] = field(default_factory=list)
    told: set[tuple[str, str, str]] = field(default_factory=set)

    @property
    def active(self) -> bool:
        """Always true while a breaker is on (the default): the stored budgets are read in the
        transaction, so one set by another process a moment ago is obeyed."""
        return bool(self.extra or self.max_per_hour or self.breaker_after)


# --- windows ------------------------------------------------------------------------------


def valid_window(window: str) -> bool:
    return window in CALENDAR or _ROLLING.fullmatch(window) is not None


def rolling_seconds(window: str) -> float | None:
    match = _ROLLING.fullmatch(window)
    if match is None:
        return None
    return int(match.group(1)) * (HOUR if match.group(2) == "h" else 24 * HOUR)


def window_start(window: str, now: float, session_since: float = 0.0) -> float:
    """Where a window that holds `now` began, in this process's local time zone; a week
    starts on Monday."""
    if window == SESSION_WINDOW:
        return session_since
    span = rolling_seconds(window)
    if span is not None:
        return now - span
    day = datetime.fromtimestamp(now).replace(hour=0, minute=0, second=0, microsecond=0)
    if window == "week":
        day -= timedelta(days=day.weekday())
    elif window == "month":
        day = day.replace(day=1)
    return day.timestamp()


def window_end(window: str, now: float) -> float | None:
    """When a calendar window ends (its budget starts again); None for a rolling one (it eases
    as payments age out) and a session's."""
    if window not in CALENDAR:
        return None
    start = datetime.fromtimestamp(window_start(window, now))
    if window == "day":
        end = start + timedelta(days=1)
    elif window == "week":
        end = start + timedelta(days=7)
    else:
        end = (start + timedelta(days=32)).replace(day=1)
    return end.replace(hour=0).timestamp()  # a DST change keeps midnight midnight


# --- the table ------------------------------------------------------------------------------


class Budgets:
    def __init__(self, db: Database, runner: str | None = None) -> None:
        self.db = db
        self.runner = runner

    def all(self) -> list[Budget]:
        rows = self.db.execute(
            "SELECT scope, name, window_name, limit_atomic, warned_start FROM budgets"
            " ORDER BY scope, name, window_name"
        )
        return [Budget(*tuple(row)) for row in rows]

    def set(self, budget: Budget) -> None:
        with self.db.write(durable=True):
            self.db.execute(
                "INSERT INTO budgets (scope, name, window_name, limit_atomic, updated_at, runner)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (scope, name, window_name) DO UPDATE SET"
                " limit_atomic = excluded.limit_atomic, updated_at = excluded.updated_at,"
                " runner = excluded.runner, warned_start = NULL",
                (budget.scope, budget.name, budget.window, budget.limit_atomic, time.time(),
                 self.runner),
            )  # fmt: skip

    def unset(self, scope: str, name: str, window: str | None) -> int:
        """Remove one budget (or every window of a scope's name); how many went."""
        with self.db.write(durable=True):
            if window is None:
                gone = self.db.execute(
                    "DELETE FROM budgets WHERE scope = ? AND name = ?", (scope, name)
                )
            else:
                gone = self.db.execute(
                    "DELETE FROM budgets WHERE scope = ? AND name = ? AND window_name = ?",
                    (scope, name, window),
                )
            return int(gone.rowcount)

    def reset_breaker(self, runner: str) -> None:
        with self.db.write(durable=True):
            self.db.execute(
                "INSERT INTO breaker_resets (runner, reset_at) VALUES (?, ?)"
                " ON CONFLICT (runner) DO UPDATE SET reset_at = excluded.reset_at",
                (runner, time.time()),
            )

    # --- what a scope has used --------------------------------------------------------------

    def used(self, budget: Budget, now: float, since: float | None = None) -> int:
        """µUSD of exposure in the budget's window (its scope's rows only)."""
        start = window_start(budget.window, now) if since is None else since
        sql, params = exposure_sql(start, now, _scope_filter(budget))
        return int(self.db.execute(f"SELECT {sql}", params).fetchone()[0])

    def oldest(self, budget: Budget, start: float) -> float | None:
        """When the oldest payment a rolling window counts was made (it eases from then on)."""
        where, params = _scope_filter(budget)
        row = self.db.execute(
            f"SELECT MIN(signed_at) FROM authorizations WHERE signed_at >= ?{where}"  # noqa: S608
            " AND status <> ?",
            (start, *params, AuthState.VOID),
        ).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def mark_warned(self, budget: Budget, start: float) -> None:
        self.db.execute(
            "UPDATE budgets SET warned_start = ? WHERE scope = ? AND name = ? AND window_name = ?",
            (start, budget.scope, budget.name, budget.window),
        )

    def started_last_hour(self, runner: str, now: float, request_id: str) -> list[float]:
        """When each paid request this runner started in the last hour was first held."""
        rows = self.db.execute(
            "SELECT MIN(signed_at) FROM authorizations WHERE runner = ? AND signed_at >= ?"
            " AND amount_atomic > 0 AND request_id <> ? GROUP BY request_id",
            (runner, now - HOUR, request_id),
        )
        return sorted(float(row[0]) for row in rows)

    def last_outcomes(self, runner: str, since: float, count: int) -> list[tuple[bool, float]]:
        """(failed, signed_at) of the runner's last `count` decided paid requests since
        `since` and since its breaker was last reset, newest first (`outcomes_sql`)."""
        sql, params = outcomes_sql(runner, since, count, bounded=sends_at_once(self.db))
        return [(bool(row[0]), float(row[1])) for row in self.db.execute(sql, params)]

    def breaker(self, runner: str, after: int, now: float) -> LimitReached | None:
        """Open when the runner's last `after` decided paid requests of the last hour (since
        a reset) all failed; it closes an hour after the oldest of them."""
        if after <= 0:
            return None
        outcomes = self.last_outcomes(runner, now - HOUR, after)
        if len(outcomes) < after or not all(failed for failed, _ in outcomes):
            return None
        return LimitReached("breaker", count=after, resets_at=outcomes[-1][1] + HOUR)


def _scope_filter(budget: Budget) -> tuple[str, tuple[str, ...]]:
    column = _COLUMN.get(budget.scope)
    return ("", ()) if column is None else (f" AND {column} = ?", (budget.name,))


def outcomes_sql(
    runner: str, since: float, count: int, *, bounded: bool
) -> tuple[str, tuple[object, ...]]:
    """A query of (failed, signed_at) for the runner's last `count` decided paid requests
    since `since` and since its breaker's reset (read in it: no round trip of its own), newest
    first. Failed: refused after payment or proven void (settlement failed, a `payment_*`
    code), refunded, or the task ended `failed`. The fleet's hold counts the failed ones in
    its one statement (cap_hold); the breaker reads them.

    `bounded` (the fleet ledger, `database.AtOnce`): the cost is bounded by `count` whatever
    the planner knows of the table. The `count`-th newest signature time is read first
    (`_NEWEST`, in the runner index's own order: no sort), and only rows from it on are sorted
    with their tie-break and joined. PostgreSQL's index on (runner, signed_at) does not order
    by id, and on a ledger without statistics yet (a new fleet's, until autovacuum's first
    ANALYZE) it sorted the runner's whole hour in the hold, under the cap's lock: 1.05 ms
    against 0.14 ms for 750 rows. SQLite's index ends with the rowid (`id`), so the plain
    query stops after `count` rows there, and the bounded one only costs it a subquery."""
    decided = (AuthState.SPENT, AuthState.REFUSED, AuthState.VOID)
    mine: tuple[object, ...] = (runner, since, runner, *decided)
    values: tuple[object, ...]
    newest, values = "", ()  # the plain query: SQLite's index gives the order as it is
    if bounded:
        newest, values = f" AND a.signed_at >= COALESCE(({_NEWEST}), 0)", (*mine, count - 1)
    sql = (
        "SELECT CASE WHEN a.status <> ? OR COALESCE(a.refunded_atomic, 0) > 0"  # noqa: S608 - ours
        " OR COALESCE(s.state, '') = 'failed' THEN 1 ELSE 0 END AS failed, a.signed_at"
        " FROM authorizations a LEFT JOIN submissions s ON s.request_id = a.request_id"
        f" WHERE {_DECIDED.format(t='a')}{newest}"
        " ORDER BY a.signed_at DESC, a.id DESC LIMIT ?"
    )
    return sql, (AuthState.SPENT, *mine, *values, count)


# A runner's decided paid requests since a time and since its breaker's reset (`t`: the alias).
_DECIDED = (
    "{t}.runner = ? AND {t}.signed_at >= ? AND {t}.amount_atomic > 0"
    " AND {t}.signed_at >= COALESCE((SELECT reset_at FROM breaker_resets WHERE runner = ?), 0)"
    " AND {t}.status IN (?, ?, ?)"
)
# The signature time of the count-th newest of them (OFFSET count - 1), or NULL when fewer.
_NEWEST = (
    f"SELECT b.signed_at FROM authorizations b WHERE {_DECIDED.format(t='b')}"  # noqa: S608
    " ORDER BY b.signed_at DESC LIMIT 1 OFFSET ?"
)


def exposure_sql(
    start: float, now: float, scope: tuple[str, tuple[str, ...]] = ("", ())
) -> tuple[str, tuple[object, ...]]:
    """A parenthesized subquery for the exposure since `start` (the daily cap's measure:
    spent, or held/signed and neither void nor expired, less refunds), and its parameters;
    `scope` narrows it to a budget's rows (`_scope_filter`)."""
    where, params = scope
    sql = (
        "(SELECT COALESCE(SUM(amount_atomic - refunded_atomic), 0) FROM authorizations"  # noqa: S608 - a column name from _COLUMN only
        f" WHERE signed_at >= ?{where} AND (status = ? OR (status IN (?, ?, ?)"
        " AND (valid_before IS NULL OR valid_before > ?))))"
    )
    return sql, (start, *params, AuthState.SPENT, *EXPOSED, now)


# --- the check, inside the serial transaction ----------------------------------------------


def check_limits(
    db: Database, limits: Limits, request_id: str, amount_atomic: int, now: float
) -> None:
    """Raise LimitReached if the hold would break a limit; note the budgets it brings near."""
    books = Budgets(db)
    runner = limits.scope.runner
    if runner and limits.breaker_after > 0:
        tripped = books.breaker(runner, limits.breaker_after, now)
        if tripped is not None:
            raise tripped
    if runner and limits.max_per_hour:
        started = books.started_last_hour(runner, now, request_id)
        if len(started) >= limits.max_per_hour:
            raise LimitReached("rate", count=len(started), resets_at=started[0] + HOUR)
    if amount_atomic <= 0:
        return
    for budget in _applying(books.all(), limits):
        _fits(books, limits, budget, amount_atomic, now)


def _applying(stored: list[Budget], limits: Limits) -> list[Budget]:
    """The budgets naming this payer. One this svc cannot read (a scope or window a newer
    svc wrote, a limit below zero) refuses: a money limit is never silently dropped."""
    scope = limits.scope
    for budget in stored:
        if not readable(budget):
            raise LimitReached("unreadable", budget=budget)
    mine = [b for b in stored if scope.name_of(b.scope) == b.name]
    return mine + list(limits.extra)


def readable(budget: Budget) -> bool:
    return budget.scope in SCOPES and valid_window(budget.window) and budget.limit_atomic >= 0


def _fits(books: Budgets, limits: Limits, budget: Budget, amount: int, now: float) -> None:
    start = window_start(budget.window, now, limits.scope.session_since)
    used = books.used(budget, now, since=start)
    if used + amount > budget.limit_atomic:
        raise LimitReached(
            "budget", budget=budget, exposure_atomic=used, resets_at=_resets(books, budget, now)
        )
    near = (used + amount) * 100 >= budget.limit_atomic * limits.warn_percent
    key = (budget.scope, budget.name, budget.window)
    if near and key not in limits.told and not _warned(budget, start, now):
        limits.told.add(key)  # a session's budget is not stored: told once by its Limits
        if budget.window != SESSION_WINDOW:
            books.mark_warned(budget, now if rolling_seconds(budget.window) else start)
        limits.warnings.append(BudgetWarning(budget, used + amount, _resets(books, budget, now)))


def _warned(budget: Budget, start: float, now: float) -> bool:
    """Told in this window already: a calendar window's start is stored; a rolling one's
    warning time is, and holds for one span."""
    if budget.warned_start is None:
        return False
    span = rolling_seconds(budget.window)
    return budget.warned_start > now - span if span else budget.warned_start == start


def _resets(books: Budgets, budget: Budget, now: float) -> float | None:
    span = rolling_seconds(budget.window)
    if span is None:
        return window_end(budget.window, now)
    oldest = books.oldest(budget, now - span)
    return None if oldest is None else oldest + span
