"""The connections a runner holds its request-id locks on (issue 34.4), kept for the process.

A request id's lock on the fleet's ledger is a session advisory lock, held on a connection of
its own so that it dies with the runner (the server drops a dead session's locks). Opening
that connection for each request cost a connection set-up and a server backend per paid
task; here a released lock's connection is unlocked and kept for the next request, so a
runner opens as many as it holds locks at once (its batch's concurrency), once.

A kept connection the server has since closed (a restart, an idle timeout) is found on its
first use and replaced by a new one; an unlock that does not answer true closes the
connection instead of keeping it, so a kept connection never holds a lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

MAX_IDLE = 16  # more than a batch's concurrency: the rest are closed when released

Connect = Callable[[], "psycopg.Connection[Any]"]


class LockConnections:
    def __init__(self, connect: Connect) -> None:
        self._connect = connect
        self._idle: list[psycopg.Connection[Any]] = []
        self._guard = threading.Lock()

    def try_lock(self, key: int) -> tuple[psycopg.Connection[Any], bool]:
        """A connection and whether it took the lock on `key` (one round trip): a kept one
        first, a new one when none is kept or the kept one turns out dead."""
        import psycopg

        conn = self._kept()
        if conn is not None:
            try:
                return conn, _try(conn, key)
            except psycopg.OperationalError:  # closed by the server while kept
                conn.close()
        conn = self._connect()
        return conn, _try(conn, key)

    def retry(self, conn: psycopg.Connection[Any], key: int) -> bool:
        return _try(conn, key)

    def release(self, conn: psycopg.Connection[Any], key: int) -> None:
        """Unlock `key` and keep the connection for the next request; closed instead when the
        unlock fails or enough are kept."""
        try:
            unlocked = _unlock(conn, key)
        except Exception:  # the connection is gone: so is its lock
            unlocked = False
        with self._guard:
            if unlocked and not conn.closed and len(self._idle) < MAX_IDLE:
                self._idle.append(conn)
                return
        conn.close()

    def _kept(self) -> psycopg.Connection[Any] | None:
        with self._guard:
            while self._idle:
                conn = self._idle.pop()
                if not conn.closed:
                    return conn
        return None


def _try(conn: psycopg.Connection[Any], key: int) -> bool:
    row = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
    return bool(row and row[0])


def _unlock(conn: psycopg.Connection[Any], key: int) -> bool:
    row = conn.execute("SELECT pg_advisory_unlock(%s)", (key,)).fetchone()
    return bool(row and row[0])


_POOLS: dict[str, LockConnections] = {}
_POOLS_GUARD = threading.Lock()


def pool_for(url: str, connect: Connect) -> LockConnections:
    """The process's lock connections to the database at `url`."""
    with _POOLS_GUARD:
        pool = _POOLS.get(url)
        if pool is None:
            pool = _POOLS[url] = LockConnections(connect)
        return pool
