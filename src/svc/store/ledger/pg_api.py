"""What the fleet ledger needs of a PostgreSQL connection.

pg_psycopg.PsycopgConnection provides it (psycopg, over libpq). The ledger's code names only
this: statements with `%s` parameters, a whole transaction in one round trip, whether a
transaction is open, and svc's own error, which carries the server's SQLSTATE, so a failure
is told apart (`postgres._unavailable`) without importing psycopg.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

Statement = tuple[str, tuple[Any, ...]]  # SQL with `%s` parameters, and their values

INSUFFICIENT_PRIVILEGE = "42501"
UNDEFINED_TABLE = "42P01"


class PgError(Exception):
    """A PostgreSQL failure: the server's first line of words, its SQLSTATE when it sent one,
    and whether it is "operational" (the connection, or the server's state: psycopg's
    OperationalError), which the person fixes elsewhere than a refused statement."""

    def __init__(self, message: str, sqlstate: str | None = None, *, operational: bool) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate
        self.operational = operational


class Result:
    """A statement's rows (read whole: the ledger's reads are bounded) and its row count."""

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self._rows = rows
        self._next = 0
        self.rowcount = rowcount

    def fetchone(self) -> Any:
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]

    def fetchall(self) -> list[Any]:
        rest, self._next = self._rows[self._next :], len(self._rows)
        return rest

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


class PgConnection(Protocol):
    """An autocommit connection: svc begins and ends its transactions itself."""

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Result:
        """One statement; raises PgError."""
        ...

    def at_once(self, statements: Sequence[Statement]) -> list[int]:
        """Every statement (a whole transaction, BEGIN to COMMIT) in one round trip; each
        one's row count. Raises PgError for the first that failed (the rest did not run)."""
        ...

    @property
    def idle(self) -> bool:
        """No transaction is open (nor failed) on it."""
        ...

    @property
    def closed(self) -> bool: ...

    @property
    def backend_pid(self) -> int:
        """The server process of this session."""
        ...

    def close(self) -> None: ...
