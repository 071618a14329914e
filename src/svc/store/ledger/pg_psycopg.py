"""The fleet ledger's connection, through psycopg (libpq reads the URL: a local socket or a
remote host, TLS, a service file, ~/.pgpass, ...). psycopg is imported here only, and only
when a connection is opened; its errors leave as svc's PgError."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from svc.store.ledger.pg_api import PgError, Result, Statement
from svc.store.ledger.pg_rows import Row, index_of

if TYPE_CHECKING:
    import psycopg

# feature_not_supported: what the server answers a prepared statement whose result's columns
# changed since it was planned ("cached plan must not change result type")
PLAN_CHANGED = "0A000"


@contextmanager
def _translated() -> Iterator[None]:
    import psycopg

    try:
        yield
    except psycopg.Error as exc:
        operational = isinstance(exc, psycopg.OperationalError)
        raise PgError(str(exc), exc.sqlstate, operational=operational) from exc


def connect(url: str, timeout: int) -> PsycopgConnection:
    import psycopg

    with _translated():
        conn = psycopg.connect(url, autocommit=True, connect_timeout=timeout)
    conn.row_factory = _row_factory
    return PsycopgConnection(conn)


def _row_factory(cursor: Any) -> Callable[[Sequence[Any]], Row]:
    """Rows named from the result's own field names: `cursor.description` built a Column
    (with its type looked up) per column, per statement: half the CPU of reading a row."""
    result = cursor.pgresult
    count = result.nfields if result is not None else 0
    names = tuple((result.fname(i) or b"").decode() for i in range(count))
    index = index_of(names)
    return lambda values: Row(names, values, index)


class PsycopgConnection:
    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn  # psycopg's own (a test traces its libpq connection)

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Result:
        import psycopg

        with _translated():
            try:
                cursor = self.conn.execute(sql, params)
            except psycopg.errors.FeatureNotSupported as exc:
                if exc.sqlstate != PLAN_CHANGED or not self.idle:
                    raise  # in a transaction: spoilt; its ROLLBACK makes psycopg forget them
                # Another session changed a table under a statement psycopg keeps prepared
                # (another runner's migration added a column to a `SELECT *`): the server
                # refuses the kept plan until it is deallocated. Nothing ran: forget every
                # kept statement (psycopg reads DEALLOCATE ALL and forgets its own) and send it
                # again, planned anew.
                self.conn.execute("DEALLOCATE ALL")
                cursor = self.conn.execute(sql, params)
            rows = cursor.fetchall() if cursor.pgresult and cursor.pgresult.nfields else []
            return Result(rows, cursor.rowcount)

    def at_once(self, statements: Sequence[Statement]) -> list[int]:
        """One simple query, the parameters bound by psycopg's client-side cursor as quoted
        literals; each statement's row count."""
        import psycopg

        script = "; ".join(sql for sql, _ in statements)
        params = tuple(value for _, values in statements for value in values)
        with _translated(), psycopg.ClientCursor(self.conn) as cursor:
            cursor.execute(script, params)
            counts = [cursor.rowcount]
            while cursor.nextset():
                counts.append(cursor.rowcount)
        return counts

    @property
    def idle(self) -> bool:
        from psycopg.pq import TransactionStatus

        return bool(self.conn.info.transaction_status == TransactionStatus.IDLE)

    @property
    def backend_pid(self) -> int:
        return int(self.conn.info.backend_pid)

    @property
    def closed(self) -> bool:
        return bool(self.conn.closed)

    def close(self) -> None:
        self.conn.close()
