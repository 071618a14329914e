"""What the ledger's concern modules (submissions, authorizations, cards, pins) need of a
database: statements with `?` parameters in the SQL both engines speak, and transactions.

Two engines provide it: `sqlite.Database` (one file, the default) and `postgres.PgDatabase`
(the fleet ledger). The SQL the concern modules write is the common subset (`INSERT ... ON
CONFLICT`, no engine-specific functions), so one set of modules keeps the money rules on both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, NamedTuple, Protocol, TypeGuard, runtime_checkable

Statement = tuple[str, tuple[Any, ...]]  # SQL with `?` parameters, and their values


class Otherwise(NamedTuple):
    """In a `transaction`: a write run only when the statement before it matched no row (an
    UPDATE's fallback INSERT: `Authorizations.authorize`).

    `statement` is what an engine running one statement at a time sends after reading that
    row count (SQLite: no statement more than the Python branch it replaces). `guarded` is the
    same write with the condition in its own SQL, for an engine that sends the transaction at
    once (PostgreSQL), which runs it just *before* the statement it follows here: its guard
    reads what that statement will match, before it is changed. So `guarded` must not touch
    the rows that statement matches (the INSERT adds a row its UPDATE's WHERE never reads)."""

    statement: Statement
    guarded: Statement


Step = Statement | Otherwise


class NoRowMatched(Exception):
    """A transaction's required UPDATE changed no row: nothing of it was committed."""

    def __init__(self, step: int) -> None:
        super().__init__(f"step {step} of the transaction changed no row")
        self.step = step


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Database(Protocol):
    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Cursor:
        """One statement; rows read by column name (`row["status"]`, `dict(row)`)."""
        ...

    def write(self, *, durable: bool = False, serial: bool = False) -> AbstractContextManager[None]:
        """One transaction. `durable`: on disk before it returns. `serial`: no other serial
        transaction of any process on the same store runs beside it (the daily cap's hold)."""
        ...

    def transaction(
        self, steps: Sequence[Step], *, durable: bool = False, required: int | None = None
    ) -> list[int]:
        """`steps` as one transaction (`write`'s, `durable` as there), committed; each one's
        row count, in order (an `Otherwise` not run: 0). A short transaction whose statements
        do not wait for one another's result in Python: the fleet ledger sends it in one round
        trip (a signature's and an acceptance's were 4 each), SQLite runs it as `write` would.
        Inside a caller's transaction, part of it, one statement at a time.

        `required`: the index of a plain UPDATE that must change a row; when it changes none,
        nothing of the transaction is committed and NoRowMatched is raised (the journal keeps
        the row it wrote, so a transition that found none must not read as written)."""
        ...

    def close(self) -> None: ...

    def integrity(self) -> str:
        """The engine's own check ("ok" when sound)."""
        ...

    def schema_version(self) -> int: ...

    def describe(self) -> str:
        """Which engine and where, for `svc doctor` (never a password)."""
        ...

    def floor(self, expression: str) -> str:
        """SQL for the integer floor of a non-negative number (the engines cast differently)."""
        ...

    def missing_rights(self) -> list[str]:
        """What the ledger needs to do and may not (`table: RIGHT`, or the file's)."""
        ...

    def unwritable_reason(self) -> str | None:
        """Why it was opened to read only (the local file on a full or read-only disk)."""
        ...


@runtime_checkable
class AtOnce(Protocol):
    """An engine that sends a whole serial transaction in one round trip (the fleet ledger):
    the daily cap's hold then keeps its lock for the server's work alone (`cap_hold`)."""

    def at_once(self, before: Sequence[Statement], serial: Sequence[Statement]) -> int | None:
        """`before`, the serial lock, `serial`, committed; the last statement's row count
        (None when it cannot: inside a transaction)."""
        ...


_SENDS_AT_ONCE: dict[type, bool] = {}


def sends_at_once(db: object) -> TypeGuard[AtOnce]:
    """`isinstance(db, AtOnce)`, judged once per class: a runtime-checkable Protocol's
    isinstance walks the Protocol's attributes on every call, three times a paid request. No
    engine gains or loses `at_once` after its class is made (none delegates by __getattr__)."""
    kind = type(db)
    known = _SENDS_AT_ONCE.get(kind)
    if known is None:
        known = _SENDS_AT_ONCE[kind] = isinstance(db, AtOnce)
    return known


def one_by_one(
    execute: Callable[[str, tuple[Any, ...]], Cursor],
    steps: Sequence[Step],
    required: int | None = None,
) -> list[int]:
    """`steps` run one statement at a time, in the caller's transaction: each one's row count
    (an `Otherwise` runs its plain statement only when the one before it matched no row)."""
    counts: list[int] = []
    for step in steps:
        if isinstance(step, Otherwise) and counts and counts[-1]:
            counts.append(0)
            continue
        sql, params = step.statement if isinstance(step, Otherwise) else step
        counts.append(execute(sql, params).rowcount)
    if required is not None and counts[required] == 0:
        raise NoRowMatched(required)  # inside the write: what ran is rolled back
    return counts
