"""What the ledger's concern modules (submissions, authorizations, cards, pins) need of a
database: statements with `?` parameters in the SQL both engines speak, and transactions.

Two engines provide it: `sqlite.Database` (one file, the default) and `postgres.PgDatabase`
(the fleet ledger). The SQL the concern modules write is the common subset (`INSERT ... ON
CONFLICT`, no engine-specific functions), so one set of modules keeps the money rules on both.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

Statement = tuple[str, tuple[Any, ...]]  # SQL with `?` parameters, and their values


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
